// One flipped byte in any file of an emitted output directory makes the audit invalid, and the
// audit names that file: one fresh copy of the directory per file, one emitted run for all.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audit, copyTree, emittedStudy, failedRails, flipByte, scratchDir, type EmittedStudy } from './helpers.ts';

let study: EmittedStudy;
const tmp = scratchDir('prereg-audit-outputs-');

beforeAll(async () => {
  study = await emittedStudy();
});
afterAll(() => {
  study?.cleanup();
  tmp.cleanup();
});

type Flip = Parameters<typeof flipByte>[1];

/** A copy of the emitted directory with one byte of `file` flipped, audited. */
async function auditWithFlip(file: string, at: (bytes: Buffer) => Flip) {
  const copy = copyTree(study.dir, join(tmp.path, file));
  const path = join(copy, file);
  flipByte(path, at(readFileSync(path)));
  return audit(copy, study.root);
}

const middle = (bytes: Buffer): Flip => Math.floor(bytes.length / 2);

// For each file: where to flip, and the rails that must fail besides naming the file.
type Report = Awaited<ReturnType<typeof audit>>['report'];
const railOf = (report: Report, name: string) => report.rails.find((r) => r.name === name)!;

const CASES: Array<{ file: string; at: (bytes: Buffer) => Flip; rails: string[]; also?: (report: Report) => void }> = [
  // A letter inside a string: the file still parses, only its bytes changed.
  {
    file: 'results.json',
    at: () => ({ needle: 'copycat', index: 5 }),
    rails: ['schema', 'reproduced', 'digests', 'decisions'],
    // The first system's (copycat, in code-point order) first assertion class now names another system: table and row named.
    also: (report) => {
      expect(railOf(report, 'decisions').first_difference).toMatchObject({ file: 'results.json', table: 'assertion_classes', row: 1 });
      expect(railOf(report, 'reproduced').first_difference).toMatchObject({ file: 'results.json', row: 1 });
    },
  },
  { file: 'scores.csv', at: () => ({ needle: 'sys-honest', index: 5 }), rails: ['schema', 'reproduced'] },
  { file: 'assertions.parquet', at: middle, rails: ['schema', 'reproduced'] },
  { file: 'proof_checks.parquet', at: middle, rails: ['schema', 'reproduced'] },
  { file: 'chain_checks.parquet', at: middle, rails: ['schema', 'reproduced'] },
  { file: 'rejects.csv', at: () => ({ needle: 'submissions', index: 3 }), rails: ['schema', 'reproduced'] },
  { file: 'report.md', at: () => ({ needle: 'sys-honest', index: 5 }), rails: ['schema', 'reproduced'] },
  { file: 'report.html', at: () => ({ needle: 'sys-honest', index: 5 }), rails: ['schema', 'reproduced'] },
  // A hex digit of an input digest: still canonical JSON with every field, but not the signed bytes.
  {
    file: 'manifest.json',
    at: () => ({ needle: '"corpus_root":"', index: 15 }),
    rails: ['schema', 'signatures', 'inputs', 'reproduced', 'digests'],
  },
  // A hex digit of the third line's hash.
  {
    file: 'SHA256SUMS',
    at: (b) => b.indexOf('\n', b.indexOf('\n') + 1) + 1,
    rails: ['schema', 'reproduced'],
    also: (report) => {
      expect(railOf(report, 'schema').first_difference).toMatchObject({ file: 'SHA256SUMS', row: 3 });
      expect(railOf(report, 'reproduced').first_difference).toMatchObject({ file: 'SHA256SUMS', row: 3 });
    },
  },
  { file: 'manifest.sig', at: () => 10, rails: ['signatures'] },
  { file: 'manifest.p7s', at: (b) => b.length - 20, rails: ['signatures'] },
];

describe('a flipped byte in an output file', () => {
  for (const c of CASES) {
    it(`${c.file}: invalid, naming ${c.file}`, async () => {
      const { code, report } = await auditWithFlip(c.file, c.at);
      expect(code).toBe(1);
      expect(report.verdict).toBe('invalid');
      expect(
        report.first_difference?.file,
        JSON.stringify(
          report.rails.filter((r) => !r.ok),
          null,
          1,
        ),
      ).toBe(c.file);
      expect(failedRails(report)).toEqual(c.rails);
      for (const rail of report.rails.filter((r) => !r.ok)) {
        expect(report.reason_codes).toContain(rail.code);
        // Every failing rail names the file that was changed.
        expect(rail.first_difference?.file, rail.name).toBe(c.file);
      }
      c.also?.(report);
    });
  }

  it('names the first differing line of a text file', async () => {
    const { report } = await auditWithFlip('report.md', () => ({ needle: '## ', after: '## Scores', index: 3 }));
    const reproduced = railOf(report, 'reproduced');
    const expected =
      readFileSync(join(study.dir, 'report.md'), 'utf8')
        .split('\n')
        .findIndex((l) => l.startsWith('## Scores')) + 1;
    expect(reproduced.first_difference).toMatchObject({ file: 'report.md', row: expected });
  });
});
