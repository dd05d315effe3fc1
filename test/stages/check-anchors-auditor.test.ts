// check-anchors with the auditor's flags (SPEC §12.1): --tsa-root judges the anchors under the
// caller's roots only, --expect-freeze compares the digest, --min-witnesses raises the count;
// no anchor is never a pass, whatever study.json's anchors.min_witnesses says.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDITOR_TSA_ROOT, exampleFreezeDigest } from '../support/auditor.ts';
import { runCli, scratchStudies } from '../support/cli.ts';
import { testPkiPaths } from '../support/tsa/pkijs-tsa.ts';

const study = scratchStudies();
const check = (root: string, ...flags: string[]) => runCli(['check-anchors', '--root', root, ...flags, '--json']);

describe("check-anchors with the auditor's flags", () => {
  it("without --tsa-root uses the study's own roots and says so; with the auditor's root, counts it", async () => {
    const root = study();
    const own = await check(root);
    expect([own.code, own.json.roots, own.json.independent_witnesses]).toEqual([0, 'study', 1]);
    const text = await runCli(['check-anchors', '--root', root]);
    expect(text.stdout).toContain("roots: the study's own (preregistration/trust/): an auditor passes its own with --tsa-root");
    const audited = await check(root, '--tsa-root', AUDITOR_TSA_ROOT, '--expect-freeze', exampleFreezeDigest().toUpperCase());
    expect([audited.code, audited.json.roots, audited.json.independent_witnesses, audited.json.reason_codes]).toEqual([
      0,
      'auditor',
      1,
      [],
    ]);
  });

  it("a witness only the study's roots confirm is listed, not counted: ANCHOR_INSUFFICIENT, exit 1", async () => {
    const root = study();
    const r = await check(root, '--tsa-root', testPkiPaths('unpinned-root').cert);
    expect([r.code, r.json.reason_codes, r.json.independent_witnesses, r.json.study_only_witnesses]).toEqual([
      1,
      ['ANCHOR_INSUFFICIENT'],
      0,
      ['local-test-tsa'],
    ]);
    expect(r.json.witnesses[0]).toMatchObject({ ok: true, trusted_by: 'study' });
    expect(r.json.findings[0].message).toContain("1 more (local-test-tsa) verify only under the study's own roots");
  });

  it('another freeze digest than the one expected: FREEZE_DIGEST_UNEXPECTED, exit 1; a malformed one is usage (2)', async () => {
    const root = study();
    const r = await check(root, '--expect-freeze', '0'.repeat(64));
    expect([r.code, r.json.reason_codes]).toEqual([1, ['FREEZE_DIGEST_UNEXPECTED']]);
    const bad = await check(root, '--expect-freeze', 'not-hex');
    expect([bad.code, bad.json.code]).toEqual([2, 'USAGE']);
  });

  it('--min-witnesses above the anchors there are: ANCHOR_INSUFFICIENT', async () => {
    const root = study();
    const r = await check(root, '--min-witnesses', '2');
    expect([r.code, r.json.reason_codes, r.json.min_witnesses]).toEqual([1, ['ANCHOR_INSUFFICIENT'], 2]);
  });

  it('no anchor fails even when study.json asks for none (min_witnesses 0)', async () => {
    const root = study();
    const studyFile = join(root, 'preregistration/study.json');
    writeFileSync(studyFile, readFileSync(studyFile, 'utf8').replace('"min_witnesses": 1', '"min_witnesses": 0'));
    rmSync(join(root, 'preregistration/anchors'), { recursive: true, force: true });
    const frozen = await runCli([
      'freeze',
      '--replace',
      '--reason',
      'test refreeze',
      '--root',
      root,
      '--secret-file',
      join(root, 'inputs/answer-key.secret'),
      '--json',
    ]);
    expect(frozen.code, frozen.stdout).toBe(0);
    const r = await check(root);
    expect([r.code, r.json.reason_codes, r.json.min_witnesses]).toEqual([1, ['ANCHOR_INSUFFICIENT'], 1]);
  });
});
