// `prereg status`: for each after-the-deadline stage, current or stale and why (DVC's `status`),
// judged by the same rule the stages skip by (run/stage-inputs.ts). Runs no stage, writes nothing.
import { existsSync } from 'node:fs';
import { studyLayout, studyRelative } from '../layout.ts';
import { shown } from '../text/display.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { runDirectory } from '../emit/directory.ts';
import { runIdOf } from '../emit/manifest.ts';
import { emitInputs } from '../emit/outputs.ts';
import { PIPELINE, STAGE_NAMES } from '../run/pipeline.ts';
import { judgeStage } from '../run/runner.ts';
import type { Command } from '../command.ts';
import { requireSealedIntake } from '../intake/files.ts';
import { windowLines, windowState } from '../study/window.ts';

export interface StageStatus {
  stage: string;
  state: 'current' | 'stale' | 'blocked';
  reason: string;
  code?: string;
}

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
    "emit is blocked outside the window (SEAL_MISSING before a sealed study's seal, WINDOW_OPEN",
    "before an unsealed one's closes_at by this machine's clock). First line: the window's phase",
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
    const stages: StageStatus[] = [];
    // Each stage is judged on its predecessor's current inputs digest; a stage after a blocked one is blocked too.
    // One read of the study for every stage judged: each line judges the same bytes.
    const loaded = loadStudyFiles(layout);
    // Judged as the stages skip by, hashing silently; with the options run gives them (--secret-file).
    const judging = { ...ctx, progress: () => {} };
    try {
      let upstream: string | null = null;
      let allCurrent = true;
      // A stale first stage rebuilds the store from nothing: no later stage's record survives it.
      let rebuilt = false;
      let submissions: Array<{ file: string; sha256: string; bytes: number }> = [];
      for (const stage of PIPELINE.slice(0, -1)) {
        const { judgement, consumed } = await judgeStage(stage.name, judging, loaded, upstream, rebuilt);
        if (stage.after === null) {
          rebuilt = !judgement.current;
          // What run_id derives from: the submission files ingest would record.
          submissions = (consumed as { submissions: typeof submissions }).submissions;
        }
        stages.push(state(stage.name, judgement));
        upstream = judgement.digest;
        allCurrent &&= judgement.current;
      }
      const runId = runIdOf(emitInputs(loaded, submissions));
      // The same directory run and emit resolve --outputs to; named as the user gave it.
      const outputs = typeof ctx.values.outputs === 'string' ? ctx.values.outputs : undefined;
      const dir = runDirectory(layout, runId, outputs).finalDir;
      const named = outputs === undefined ? `${studyRelative(layout, dir)}/` : shown(`${dir}/`);
      const missing =
        outputs === undefined ? `${named} does not exist (if run wrote elsewhere, pass its --outputs DIR)` : `${named} does not exist`;
      stages.push(
        allCurrent && existsSync(dir)
          ? { stage: 'emit', state: 'current', reason: `${named} exists` }
          : { stage: 'emit', state: 'stale', reason: allCurrent ? missing : 'an earlier stage is stale' },
      );
    } catch (err) {
      if (!(err instanceof PreregError)) throw err;
      const at = stages.length;
      for (const [i, name] of STAGE_NAMES.slice(at).entries()) {
        stages.push(
          i === 0
            ? { stage: name, state: 'blocked', code: err.code, reason: err.message.split('\n')[0]! }
            : { stage: name, state: 'blocked', reason: `${STAGE_NAMES[at]} is blocked` },
        );
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
    const lines = [
      ...(window ? windowLines(window) : []),
      ...stages.map((s) => `${s.stage}: ${s.state}${s.state === 'stale' ? ' — ' : ', '}${s.code ? `${s.code}: ` : ''}${s.reason}`),
    ];
    return { exitCode: blocked ? EXIT.blocked : EXIT.ok, json: { ok: !blocked, window, stages }, text: lines.join('\n') };
  },
};

function state(stage: string, v: { current: boolean; reason: string }): StageStatus {
  return { stage, state: v.current ? 'current' : 'stale', reason: v.reason };
}
