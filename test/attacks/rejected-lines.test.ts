// Issue 33, item 8: a participant's rejected lines must not keep the study from producing a result.
// After the deadline a participant (here one the study never registered) drops 19,800 lines beside
// the example: every one is rejected (SYSTEM_UNREGISTERED), and rejects.csv mixes rows whose text
// cells are NULL with rows whose cells hold text, in chunks of 2,048 rows. The display rule that
// writes those cells once assumed DuckDB never hands it a NULL, and `run` — every run, every rerun —
// died with INTERNAL_ERROR. Now the run completes, the lines are listed as rejected, and nobody
// else's score moves.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';

const study = scratchStudies();
const ROGUE_LINES = 19_800;

async function run(root: string): Promise<{ code: number; dir: string; out: string }> {
  const r = await runCli(['run', '--root', root, '--outputs', join(root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
  return { code: r.code, dir: r.json?.dir as string, out: r.stdout + r.stderr };
}

const scores = (dir: string): unknown => (JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as { scores: unknown }).scores;

describe("a participant's rejected lines", () => {
  it('19,800 lines of an unregistered system: run exits 0, every line is a reject, no other score moves', async () => {
    const root = study();
    const before = await run(root);
    expect(before.code, before.out).toBe(0);

    // The honest system's own lines, claimed by a system the study does not register (attempts 1–100, as the schema allows).
    const honest = readFileSync(join(root, 'inputs/submissions/sys-honest.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const rogue: string[] = [];
    for (let i = 0; rogue.length < ROGUE_LINES; i++) {
      const line = JSON.parse(honest[i % honest.length]!) as Record<string, unknown>;
      rogue.push(JSON.stringify({ ...line, system_id: 'rogue', attempt: 1 + (Math.floor(i / honest.length) % 100) }));
    }
    writeFileSync(join(root, 'inputs/submissions/rogue.jsonl'), `${rogue.join('\n')}\n`);

    const after = await run(root);
    expect(after.code, after.out).toBe(0);
    const rejects = readFileSync(join(after.dir, 'rejects.csv'), 'utf8').split('\n');
    const rogueRejects = rejects.filter((l) => l.startsWith('inputs/submissions/rogue.jsonl,'));
    expect(rogueRejects).toHaveLength(ROGUE_LINES);
    expect(rogueRejects.every((l) => l.includes(',SYSTEM_UNREGISTERED,'))).toBe(true);
    expect(scores(after.dir)).toEqual(scores(before.dir));
  }, 300_000);
});
