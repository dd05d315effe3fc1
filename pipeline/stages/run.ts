// `prereg run`: the whole after-the-deadline pipeline, ingest → verify → classify → score → emit.
// Each stage skips when nothing it consumed changed, and says why it reran otherwise.
import { KEY_OPTIONS } from '../options.ts';
import type { Command } from '../command.ts';
import { PIPELINE } from '../run/pipeline.ts';
import { runStage } from '../run/runner.ts';
import { EXIT } from '../reasons.ts';
import { refuseOutputsInsideStudy } from '../emit/directory.ts';
import { studyLayout } from '../layout.ts';
import { requireRunnable } from '../run/preflight.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';

export const run: Command = {
  name: 'run',
  summary: 'run the whole pipeline after the deadline: ingest → verify → classify → score → emit',
  help: [
    'usage: prereg run [--operator-key FILE] [--cms-key FILE] [--cms-cert FILE] [--secret-file FILE]',
    '                  [--outputs DIR] [--force] [--verified-shards DIR] [--root DIR] [--json]',
    '',
    'First checks everything it will need and refuses (exit 3) before any work: freeze.json, the',
    'window closed (a sealed study sealed: SEAL_MISSING; an unsealed one past closes_at by this',
    "machine's clock: WINDOW_OPEN), at",
    'least one submission line, inputs/commitments.jsonl when the policy requires receipts, the',
    'operator keys (the pinned one), the revealed answer key and its secret (reproducing the',
    "commitment). Then runs every stage in order (see each stage's --help); a stage whose inputs are unchanged",
    'since its last run is skipped. Ends with emit, which writes outputs/<run_id>/ and refuses',
    'an existing one (OUTPUT_EXISTS, exit 4). Stops at the first stage that refuses, with its',
    'code and exit code; nothing is written to outputs/ then.',
    '',
    'With --verified-shards DIR (docs/scaling.md): DIR holds one directory per shard written by',
    "`prereg verify --shard I/N --out`. Verify checks that every shard was made from the study's",
    'freeze, seal and input files (SHARD_FOREIGN), that 0..N-1 are there once each (SHARD_MISSING,',
    'SHARD_DUPLICATE) and unchanged (SHARD_DIGEST_MISMATCH), loads their rows instead of checking',
    'each item, refuses an item in no shard or in two, and computes what spans records as always;',
    'the outputs are those of a run without shards, byte for byte.',
  ].join('\n'),
  options: {
    ...KEY_OPTIONS,
    'secret-file': { type: 'string' },
    outputs: { type: 'string' },
    force: { type: 'boolean' },
    'verified-shards': { type: 'string' },
  },
  stage: true,
  jsonSchema: () => 'prereg.run/1',
  writesStudy: () => true,
  async run(ctx) {
    // Refused before any stage runs: outputs inside the study would modify its inputs.
    if (typeof ctx.values.outputs === 'string') refuseOutputsInsideStudy(ctx.values.outputs, studyLayout(ctx.root));
    // Everything run will need, checked before any stage does any work.
    requireRunnable(loadStudyFiles(studyLayout(ctx.root)), ctx.values, ctx.env);
    const stages: Record<string, unknown> = {};
    // Each stage's first line: skipped, or rerun and why.
    const said: string[] = [];
    // Each stage asks for its predecessor through runStage: with one memo, none runs twice.
    const shared = { ...ctx, memo: new Map() };
    for (const stage of PIPELINE) {
      ctx.progress(`run: ${stage.name}…`);
      const result = await runStage(stage.name, shared);
      stages[stage.name] = result.json;
      if (stage.name !== 'emit') said.push(result.text.split('\n')[0]!);
      if (result.exitCode !== EXIT.ok)
        return { exitCode: result.exitCode, json: { ok: false, failed_stage: stage.name, stages }, text: result.text };
    }
    const emitted = stages.emit as { run_id: string; dir: string };
    return {
      exitCode: EXIT.ok,
      json: { ok: true, run_id: emitted.run_id, dir: emitted.dir, stages },
      text: `${said.join('\n')}\nrun complete: outputs written to ${emitted.dir} (run_id ${emitted.run_id})`,
    };
  },
};
