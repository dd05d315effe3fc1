// One flipped byte in any input of the study makes the audit of an untouched output directory
// invalid, naming the input file: one fresh copy of the study per input, one emitted run for all.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleStudy } from '../support/cli.ts';
import { audit, emittedStudy, failedRails, flipByte, type EmittedStudy } from './helpers.ts';

let study: EmittedStudy;
beforeAll(async () => {
  study = await emittedStudy();
});
afterAll(() => study?.cleanup());

type Flip = Parameters<typeof flipByte>[1];

/** Audits the emitted directory against a fresh copy of the study with one byte of `file` flipped. */
async function auditWithFlip(file: string, at: Flip) {
  const copy = copyExampleStudy();
  try {
    flipByte(join(copy.root, file), at);
    return await audit(study.dir, copy.root);
  } finally {
    copy.cleanup();
  }
}

// Each flip keeps the file meaningful: a letter inside a string or text, a digit of a digest.
const CASES: Array<{ file: string; at: Flip; rail: string; row?: number; refusal?: string }> = [
  { file: 'inputs/submissions/sys-honest.jsonl', at: { needle: 'le seuil est', index: 3 }, rail: 'inputs' },
  { file: 'inputs/commitments.jsonl', at: { needle: '"witness":"test-witness-log"', index: 12 }, rail: 'inputs' },
  // mp-002 (line 2) now expects R2123-0: the revealed key no longer opens the commitment.
  {
    file: 'inputs/answer-key.jsonl',
    at: { needle: 'R2123-1"]', index: 6 },
    rail: 'inputs',
    row: 2,
    refusal: 'ANSWER_KEY_COMMITMENT_MISMATCH',
  },
  { file: 'corpus/ccag-travaux.md', at: { needle: 'notifications', index: 2 }, rail: 'inputs', refusal: 'CORPUS_DRIFT' },
  // study.json is not a manifest input: freeze.json covers it, so check-anchors names it.
  { file: 'preregistration/study.json', at: { needle: 'grounded answers', index: 0 }, rail: 'anchors', refusal: 'STUDY_DRIFT' },
  { file: 'preregistration/trust/policy.json', at: { needle: 'expired', index: 0 }, rail: 'inputs', refusal: 'TRUST_DRIFT' },
  { file: 'preregistration/freeze.json', at: { needle: '"section5_sha256": "', index: 20 }, rail: 'inputs' },
  { file: 'preregistration/anchors/local-test-tsa.tsr', at: 1000, rail: 'inputs' },
  // The anchor's metadata: its url is the operator's word, but emit recorded its SHA-256.
  { file: 'preregistration/anchors/local-test-tsa.json', at: { needle: '127.0.0.1:', index: 10 }, rail: 'inputs' },
  {
    file: 'preregistration/PREREGISTRATION.md',
    at: { needle: 'external access disabled', after: '## 5.', index: 0 },
    rail: 'inputs',
    refusal: 'SECTION5_DRIFT',
  },
];

describe('a flipped byte in an input of the study', () => {
  for (const c of CASES) {
    it(`${c.file}: invalid, naming ${c.file}`, async () => {
      const { code, report } = await auditWithFlip(c.file, c.at);
      expect(code).toBe(1);
      expect(report.verdict).toBe('invalid');
      expect(
        report.first_difference,
        JSON.stringify(
          report.rails.filter((r) => !r.ok),
          null,
          1,
        ),
      ).toMatchObject({ rail: c.rail, file: c.file, ...(c.row ? { row: c.row } : {}) });
      // The output directory itself is untouched: its own rails still pass.
      expect(failedRails(report)).not.toContain('complete');
      expect(failedRails(report)).not.toContain('schema');
      expect(failedRails(report)).not.toContain('signatures');
      expect(failedRails(report)).not.toContain('digests');
      // A changed input never reproduces the outputs.
      const reproduced = report.rails.find((r) => r.name === 'reproduced')!;
      expect(reproduced.ok).toBe(false);
      if (c.refusal) {
        // The rerun refuses, with the stage's code, naming the input it concerns.
        expect(reproduced.reason_codes).toContain(c.refusal);
        expect(report.reason_codes).toContain(c.refusal);
        expect(report.rerun.refused?.code).toBe(c.refusal);
        expect(reproduced.first_difference?.file).toBe(c.file);
        expect(reproduced.first_difference?.message).not.toContain('prereg-audit-');
      }
    });
  }
});
