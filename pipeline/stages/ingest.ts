// `prereg ingest` (SPEC §2, §5.1): every inputs/submissions/*.jsonl → the DuckDB tables records,
// evidence, receipts, rejects (and submission_files, stage_runs) in work/prereg.duckdb.
//
// Rejected lines are data, not a failure of the stage: they are recorded with their reason code
// and the stage exits 0. It exits 3 when the frozen items cannot be established (freeze.json or
// the items file missing, invalid, or drifted from the freeze). The database is a cache: when the
// inputs digest recorded by the last run matches, the stage skips and says so; otherwise it
// rebuilds every table from scratch into a new file renamed into place. The work: ingest/stage.ts.
import { runStage } from '../run/runner.ts';
import type { Command } from '../command.ts';

export const ingest: Command = {
  name: 'ingest',
  summary: 'read inputs/submissions/*.jsonl into the DuckDB store (records, evidence, receipts, rejects)',
  help: [
    'usage: prereg ingest [--force] [--root DIR] [--json]',
    '',
    '  the longest line accepted is study.json limits.max_line_bytes (default 4194304 = 4 MiB)',
    '  --force             rebuild the database even when the inputs are unchanged',
    '',
    'Reads every inputs/submissions/*.jsonl (files sorted by name, lines in order) into',
    'work/prereg.duckdb. A bad line is rejected with a reason code, its file, line number and',
    'byte offset (the rejects table); the other lines go on. lines read = accepted + rejected.',
    'Rejects are data, not a failure: exit 0. Exit 3 when freeze.json or the frozen items are',
    'missing, invalid or drifted. With unchanged inputs the stage skips and says so.',
  ].join('\n'),
  options: { 'max-line-bytes': { type: 'string' }, force: { type: 'boolean' } },
  stage: true,
  jsonSchema: () => 'prereg.ingest/1',
  writesStudy: () => true,
  run: (ctx) => runStage('ingest', ctx),
};
