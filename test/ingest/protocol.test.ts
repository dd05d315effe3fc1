// The measurement protocol enforced at ingest (SPEC §12.5, issue 22): the example study registers
// its systems and declares three attempts per item; a fourth attempt, and a line of a system it
// did not register, are rejects with their file and line — never scored, never pooled into a
// hypothesis — and validate gives the participant the same verdict before it submits.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, scratchStudies } from '../support/cli.ts';

const study = scratchStudies();

describe('prereg ingest applies the frozen protocol', () => {
  it('rejects ATTEMPT_OUT_OF_PROTOCOL and SYSTEM_UNREGISTERED lines, line-numbered; validate agrees', async () => {
    const root = study();
    const honest = join(root, 'inputs/submissions/sys-honest.jsonl');
    const lines = readFileSync(honest, 'utf8').trimEnd().split('\n');
    const fourth = lines[0]!.replace(/"attempt":1,/, '"attempt":4,');
    expect(fourth).not.toBe(lines[0]);
    appendFileSync(honest, `${fourth}\n`);
    writeFileSync(
      join(root, 'inputs/submissions/ghost.jsonl'),
      `${lines[1]!.replace('"system_id":"sys-honest"', '"system_id":"ghost"')}\n`,
    );

    const r = await runCli(['ingest', '--root', root, '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.json.totals.rejects_by_code).toMatchObject({ ATTEMPT_OUT_OF_PROTOCOL: 1, SYSTEM_UNREGISTERED: 1 });
    const v = await runCli(['validate', honest, join(root, 'inputs/submissions/ghost.jsonl'), '--root', root, '--json']);
    expect(v.code).toBe(1);
    const where = (v.json.rejects as Array<{ file: string; line_no: number; reason_code: string }>).map((x) => [
      x.file.split('/').pop(),
      x.line_no,
      x.reason_code,
    ]);
    expect(where).toEqual([
      ['sys-honest.jsonl', lines.length + 1, 'ATTEMPT_OUT_OF_PROTOCOL'],
      ['ghost.jsonl', 1, 'SYSTEM_UNREGISTERED'],
    ]);
  });
});
