// Amendments before, not after (SPEC §13.3, issue 35 point 3): `freeze --replace --reason TEXT` is a
// new freeze naming the one it replaces; the replaced freeze and its anchors are kept under
// preregistration/amendments/<n>/, and every freeze of the chain must be anchored before the
// window first announced opened. Who gains by breaking it: the operator, changing the plan once
// submissions are coming in (or after seeing them) and calling it an amendment. What the operator
// may use here: every file of the study and a TSA of its own choosing the date (the example's
// TEST-ONLY TSA key), as in refreeze.test.ts.
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AuditReport } from '../../pipeline/audit/rails.ts';
import { EXAMPLE_ANCHOR_GEN_TIME } from '../../scripts/rebuild-example.ts';
import { auditorFlags, publishedFreezeDigest } from '../support/auditor.ts';
import { runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { amend, AMENDMENT_REASON } from '../support/amendment.ts';

const study = scratchStudies();
const REASON = AMENDMENT_REASON;

describe('freeze --replace', () => {
  it('without --reason (or --reason alone) is a usage error (exit 2), writing nothing', async () => {
    const root = study();
    const freeze = readFileSync(join(root, 'preregistration/freeze.json'));
    for (const args of [['--replace'], ['--replace', '--reason', ' '], ['--reason', 'why']]) {
      const r = await runCli(['freeze', ...args, '--root', root, '--json']);
      expect([args, r.code, r.json.code]).toEqual([args, 2, 'USAGE']);
    }
    expect(readFileSync(join(root, 'preregistration/freeze.json'))).toEqual(freeze);
    expect(existsSync(join(root, 'preregistration/amendments'))).toBe(false);
  });
});

describe('an amendment before opens_at', () => {
  it('names the freeze it replaces and why; the old freeze and its anchors are kept; check-anchors lists the chain and passes', async () => {
    const root = study();
    const oldFreeze = readFileSync(join(root, 'preregistration/freeze.json'));
    const oldToken = readFileSync(join(root, 'preregistration/anchors/local-test-tsa.tsr'));
    const { before, after } = await amend(root, EXAMPLE_ANCHOR_GEN_TIME);
    const record = JSON.parse(readFileSync(join(root, 'preregistration/freeze.json'), 'utf8'));
    expect(record.amends).toEqual({ freeze_digest: before, reason: REASON });
    expect(readFileSync(join(root, 'preregistration/amendments/1/freeze.json'))).toEqual(oldFreeze);
    expect(readFileSync(join(root, 'preregistration/amendments/1/anchors/local-test-tsa.tsr'))).toEqual(oldToken);

    const r = await runCli(['check-anchors', '--root', root, '--json']);
    expect([r.code, r.json.reason_codes]).toEqual([0, []]);
    expect(
      r.json.chain.map(
        (c: { n: number | null; freeze_digest: string; amends: unknown; witnesses: Array<{ ok: boolean; file: string }> }) => [
          c.n,
          c.freeze_digest,
          c.amends,
          c.witnesses.map((w) => [w.ok, w.file]),
        ],
      ),
    ).toEqual([
      [1, before, null, [[true, 'preregistration/amendments/1/anchors/local-test-tsa.tsr']]],
      [null, after, { freeze_digest: before, reason: REASON }, [[true, 'preregistration/anchors/local-test-tsa.tsr']]],
    ]);
    const text = await runCli(['check-anchors', '--root', root]);
    expect(text.stdout).toContain('amendments: 1 (the chain of freezes, oldest first)');
    expect(text.stdout).toContain(`amends ${before.slice(0, 12)}…: ${JSON.stringify(REASON)}`);
  }, 60_000);

  it('a kept freeze removed or edited breaks the chain (FREEZE_CHAIN_BROKEN, exit 1)', async () => {
    const root = study();
    await amend(root, EXAMPLE_ANCHOR_GEN_TIME);
    const kept = join(root, 'preregistration/amendments/1/freeze.json');
    const text = readFileSync(kept, 'utf8');
    writeFileSync(kept, text.replace(/"version": "[^"]+"/, '"version": "0.0.1"'));
    const edited = await runCli(['check-anchors', '--root', root, '--json']);
    expect([edited.code, edited.json.reason_codes]).toEqual([1, expect.arrayContaining(['FREEZE_CHAIN_BROKEN'])]);
    rmSync(join(root, 'preregistration/amendments'), { recursive: true });
    const removed = await runCli(['check-anchors', '--root', root, '--json']);
    expect([removed.code, removed.json.reason_codes]).toEqual([1, ['FREEZE_CHAIN_BROKEN']]);
    expect(removed.json.findings[0]).toMatchObject({ file: 'preregistration/freeze.json', field: 'amends' });
  }, 60_000);
});

describe('an amendment after opens_at is refused', () => {
  it('anchored once the window opened: check-anchors AMENDMENT_AFTER_OPEN (exit 1), and the audit of the run on it is INVALID', async () => {
    const root = study();
    await amend(root, '2026-11-05T12:00:00Z');
    const r = await runCli(['check-anchors', '--root', root, '--json']);
    expect([r.code, r.json.reason_codes]).toEqual([1, ['AMENDMENT_AFTER_OPEN', 'ANCHOR_INSUFFICIENT']]);
    expect(r.json.findings[0]).toMatchObject({ code: 'AMENDMENT_AFTER_OPEN', file: 'preregistration/anchors/local-test-tsa.tsr' });

    const run = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The report names the amendment, what it replaced and why, beside its failing witness.
    const report = readFileSync(join(run.json.dir as string, 'report.md'), 'utf8');
    expect(report).toContain('The plan was amended 1 time(s) before the window opened');
    expect(report).toContain(REASON);
    const a = await runCli(['audit', run.json.dir as string, '--root', root, ...auditorFlags(publishedFreezeDigest(root)), '--json']);
    const audited = a.json as AuditReport;
    expect([a.code, audited.verdict]).toEqual([1, 'invalid']);
    expect(audited.rails.find((x) => x.name === 'anchors')!.reason_codes).toContain('AMENDMENT_AFTER_OPEN');
  }, 180_000);

  it('postponing opens_at in the amendment does not make it timely: the earliest opens_at of the chain counts', async () => {
    const root = study();
    const studyPath = join(root, 'preregistration/study.json');
    writeFileSync(
      studyPath,
      readFileSync(studyPath, 'utf8').replace('"opens_at": "2026-11-02T00:00:00Z"', '"opens_at": "2026-11-10T00:00:00Z"'),
    );
    await amend(root, '2026-11-05T12:00:00Z');
    const r = await runCli(['check-anchors', '--root', root, '--json']);
    expect([r.code, r.json.reason_codes]).toEqual([1, ['AMENDMENT_AFTER_OPEN', 'ANCHOR_INSUFFICIENT']]);
  }, 60_000);
});
