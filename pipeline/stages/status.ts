// `prereg status`: for each after-the-deadline stage, current or stale and why (DVC's `status`),
// judged by the same rule the stages skip by (run/stage-inputs.ts). Runs no stage, writes nothing.
import { existsSync } from 'node:fs';
import { studyLayout, studyRelative } from '../layout.ts';
import { shown } from '../text/display.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { requireFrozenInputs } from '../freeze/preflight.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { runDirectory } from '../emit/directory.ts';
import { runIdOf } from '../emit/manifest.ts';
import { storePath } from '../store/db.ts';
import type { StageVerdict } from '../run/stage-inputs.ts';
import { analysisInputs, analysisVerdict } from '../analysis/stage.ts';
import { emitInputs } from '../emit/outputs.ts';
import { ingestInputs, ingestVerdict } from '../ingest/stage.ts';
import { verifyInputs, verifyVerdict } from '../verify/study-stage.ts';
import type { Command } from '../command.ts';
import { requireSealedIntake } from '../intake/files.ts';
import { windowLines, windowState } from '../study/window.ts';

export interface StageStatus {
  stage: string;
  state: 'current' | 'stale' | 'blocked';
  reason: string;
  code?: string;
}

const STAGES = ['ingest', 'verify', 'classify', 'score', 'emit'] as const;

export const status: Command = {
  name: 'status',
  summary: 'say, for each stage from ingest to emit, whether it is current or stale, and why',
  help: [
    'usage: prereg status [--secret-file FILE] [--outputs DIR] [--root DIR] [--json]',
    '',
    'For ingest, verify, classify, score and emit: current (the next run skips it), stale (it',
    'reruns, and the input that changed is named, e.g. "inputs/submissions/a.jsonl changed") or',
    'blocked (it would refuse, with its reason code). Judged by the rule the stages skip by: the',
    'inputs each recorded in work/prereg.duckdb against what it would consume now. Runs no stage',
    'and writes nothing. Exit 0 when every stage could run (current or stale), 3 when one is blocked:',
    'emit is blocked outside the window (SEAL_MISSING before a sealed study\'s seal, WINDOW_OPEN',
    'before an unsealed one\'s closes_at by this machine\'s clock). First line: the window\'s phase',
    '(before, open, closed, sealed), its times and the next step of that phase.',
    '',
    '  --outputs DIR   where run/emit were told to write <run_id>/ (default: outputs/); emit is',
    '                  current only when <run_id>/ exists there',
  ].join('\n'),
  options: { 'secret-file': { type: 'string' }, outputs: { type: 'string' } },
  stage: true,
  jsonSchema: () => 'prereg.status/2',
  async run(ctx) {
    const layout = studyLayout(ctx.root);
    const secretFile = typeof ctx.values['secret-file'] === 'string' ? ctx.values['secret-file'] : undefined;
    const stages: StageStatus[] = [];
    // Each stage is judged on its predecessor's current inputs digest; a stage after a blocked one is blocked too.
    // One read of the study for every stage judged: each line judges the same bytes.
    const loaded = loadStudyFiles(layout);
    try {
      const ing = await ingestInputs(loaded, () => {});
      const ingV = (await ingestVerdict(layout, ing.inputs, false)).verdict;
      stages.push(state('ingest', ingV));
      const verIn = verifyInputs(loaded, ingV.digest);
      // A stale ingest rebuilds the store from nothing: no later stage's record survives it.
      const rebuilt = ingV.current ? null : { current: false, digest: '', reason: 'no recorded run once ingest rebuilds the store' };
      const verV = rebuilt ?? (await recorded(layout, () => verifyVerdict(layout, verIn, false)));
      stages.push(state('verify', verV));
      const frozen = requireFrozenInputs(loaded, ctx.env, secretFile);
      let upstream = verV.digest;
      let allCurrent = ingV.current && verV.current;
      for (const name of ['classify', 'score'] as const) {
        const inputs = analysisInputs(name, upstream, frozen);
        const v = rebuilt ?? (await recorded(layout, () => analysisVerdict(layout, inputs, false)));
        stages.push(state(name, v));
        upstream = v.digest;
        allCurrent &&= v.current;
      }
      const runId = runIdOf(emitInputs(loaded, ing.inputs.submissions));
      // The same directory run and emit resolve --outputs to; named as the user gave it.
      const outputs = typeof ctx.values.outputs === 'string' ? ctx.values.outputs : undefined;
      const dir = runDirectory(layout, runId, outputs).finalDir;
      const named = outputs === undefined ? `${studyRelative(layout, dir)}/` : shown(`${dir}/`);
      const missing = outputs === undefined ? `${named} does not exist (if run wrote elsewhere, pass its --outputs DIR)` : `${named} does not exist`;
      stages.push(
        allCurrent && existsSync(dir)
          ? { stage: 'emit', state: 'current', reason: `${named} exists` }
          : { stage: 'emit', state: 'stale', reason: allCurrent ? missing : 'an earlier stage is stale' },
      );
    } catch (err) {
      if (!(err instanceof PreregError)) throw err;
      const at = stages.length;
      for (const [i, name] of STAGES.slice(at).entries()) {
        stages.push(i === 0 ? { stage: name, state: 'blocked', code: err.code, reason: err.message.split('\n')[0]! } : { stage: name, state: 'blocked', reason: `${STAGES[at]} is blocked` });
      }
    }
    // Emit signs nothing outside the window (SEAL_MISSING, WINDOW_OPEN): blocked, whatever the store holds.
    const last = stages[stages.length - 1]!;
    if (last.state !== 'blocked') {
      try {
        requireSealedIntake(loaded, Date.now());
      } catch (err) {
        if (!(err instanceof PreregError)) throw err;
        stages[stages.length - 1] = { stage: 'emit', state: 'blocked', code: err.code, reason: err.message.split('\n')[0]! };
      }
    }
    const window = windowState(loaded, Date.now());
    const blocked = stages.some((s) => s.state === 'blocked');
    const lines = [...(window ? windowLines(window) : []), ...stages.map((s) => `${s.stage}: ${s.state}${s.state === 'stale' ? ' — ' : ', '}${s.code ? `${s.code}: ` : ''}${s.reason}`)];
    return { exitCode: blocked ? EXIT.blocked : EXIT.ok, json: { ok: !blocked, window, stages }, text: lines.join('\n') };
  },
};

/** A verdict read from the store; no store, or one that cannot be read, means never run (ingest rebuilds it). */
async function recorded(layout: ReturnType<typeof studyLayout>, judge: () => Promise<StageVerdict>): Promise<Pick<StageVerdict, 'current' | 'digest' | 'reason'>> {
  if (!existsSync(storePath(layout))) return { current: false, digest: '', reason: 'no recorded run' };
  try {
    return await judge();
  } catch (err) {
    if (err instanceof PreregError) throw err;
    return { current: false, digest: '', reason: `the database could not be read (${(err as Error).message.split('\n')[0]})` };
  }
}

function state(stage: string, v: { current: boolean; reason: string }): StageStatus {
  return { stage, state: v.current ? 'current' : 'stale', reason: v.reason };
}
