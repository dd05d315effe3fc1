// The deviations log (SPEC §13.3, issue 35 point 3), played through the CLI on copies of the
// committed, sealed example. Who gains by breaking it: the operator, who holds the operator key
// and every file of the study, and would like a deviation it recorded to disappear once the
// results are out (removed, reordered, edited), or to look older than it is (backdated before the
// submissions were seen). What the operator cannot touch: the TSA's clock (the local test TSA's
// genTime is set by the test, as a real TSA's is not the operator's), and the auditor's material
// (test/fixtures/example-auditor/), made before the attack.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../pipeline/audit/rails.ts';
import { deviationDigest } from '../../pipeline/evidence/deviations/records.ts';
import { studyLayout } from '../../pipeline/layout.ts';
import { requestTimestamp } from '../../pipeline/net/tsa-client.ts';
import { AUDITOR_OPERATOR_KEY, auditorFlags, EXAMPLE_AUDITOR_DIR, sealedExampleFreezeDigest } from '../support/auditor.ts';
import { copyExampleStudy, copySealedExampleStudy, runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { DURING_WINDOW, OPERATOR_KEY, testTsaFixture } from '../support/intake-study.ts';

const RECEIPTS = ['copycat', 'sys-honest', 'sys-tampered', 'sys-truncated'].map((s) =>
  join(EXAMPLE_AUDITOR_DIR, 'receipts', `${s}.receipt.json`),
);
/** After the example's seal (2026-11-16T00:05:00Z): the submissions are in the operator's hands. */
const AFTER_SEAL = '2026-11-20T10:00:00Z';
const LATER = '2026-11-21T10:00:00Z';
/** Before the example's freeze anchor (2026-11-01T09:00:00Z). */
const BEFORE_FREEZE = '2026-10-15T00:00:00Z';
const DURING_TEXT = 'Item q-017 was served from a mirror for six hours because the seller was down; the protocol asked for the seller.';
const AFTER_TEXT = 'The refusal pattern missed a phrasing two systems used; it was NOT changed: the scores below use the frozen pattern.';

const ok = (r: { code: number; stdout: string; stderr: string }) => expect(r.code, r.stdout + r.stderr).toBe(0);

const fixture = testTsaFixture();
const scratch = scratchStudies(copySealedExampleStudy);
let outputsRoot: string;
beforeAll(() => void (outputsRoot = mkdtempSync(join(tmpdir(), 'prereg-deviation-outputs-'))));
afterAll(() => rmSync(outputsRoot, { recursive: true, force: true }));

function record(root: string, at: string, text: string, key = OPERATOR_KEY) {
  const { tsa } = fixture;
  tsa.at(at);
  return runCli(['deviation', '--text', text, '--operator-key', key, ...tsa.args, '--retries', '0', '--root', root, '--json']);
}

async function run(root: string): Promise<{ dir: string; json: any }> {
  const outputs = mkdtempSync(join(outputsRoot, 'run-'));
  const r = await runCli(['run', '--root', root, '--outputs', outputs, ...TEST_OPERATOR_ARGS, '--json']);
  ok(r);
  return { dir: r.json.dir as string, json: r.json };
}

async function audit(dir: string, root: string): Promise<{ code: number; report: AuditReport }> {
  const r = await runCli([
    'audit',
    dir,
    '--root',
    root,
    ...auditorFlags(sealedExampleFreezeDigest()),
    '--operator-key',
    AUDITOR_OPERATOR_KEY,
    ...RECEIPTS.flatMap((x) => ['--receipt', x]),
    '--json',
  ]);
  return { code: r.code, report: r.json as AuditReport };
}

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const logLines = (root: string) => readFileSync(studyLayout(root).deviations, 'utf8').split('\n').slice(0, -1);
const writeLog = (root: string, lines: string[]) => writeFileSync(studyLayout(root).deviations, lines.map((l) => `${l}\n`).join(''));

describe('prereg deviation: recorded, reported, audited', () => {
  it('a deviation recorded on a copy of the example shows in its report and survives the audit, and one removed from the log is INVALID', async () => {
    const root = scratch();
    const during = await record(root, DURING_WINDOW, DURING_TEXT);
    ok(during);
    expect([during.json.seq, during.json.gen_time, during.json.intake.entries]).toEqual([0, DURING_WINDOW, 5]); // the sealed example's five intake entries
    ok(await record(root, AFTER_SEAL, AFTER_TEXT));
    expect(logLines(root)).toHaveLength(2);

    const { dir } = await run(root);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.inputs.deviations_sha256).toBe(sha256(studyLayout(root).deviations));
    // Right after the finding, each deviation with its date; only the one after the seal is marked.
    const report = readFileSync(join(dir, 'report.md'), 'utf8');
    const sections = [...report.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(sections.slice(0, 2)).toEqual(['Finding', 'Deviations from the plan']);
    const deviations = report.slice(report.indexOf('## Deviations from the plan'), report.indexOf(`## ${sections[2]}`));
    const items = deviations.split('\n').filter((l) => l.startsWith('- '));
    expect(items).toHaveLength(2);
    expect(items[0]).toContain(DURING_WINDOW);
    expect(items[0]).toContain('Item q-017 was served from a mirror');
    expect(items[0]).not.toContain('after the submissions were seen');
    expect(items[1]).toContain(AFTER_SEAL);
    expect(items[1]).toContain('after the submissions were seen');
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('after the submissions were seen');

    const valid = await audit(dir, root);
    expect([valid.code, valid.report.verdict], JSON.stringify(valid.report.rails.filter((r) => !r.ok))).toEqual([0, 'valid']);

    // The operator removes the deviation it regrets (the first): the chain breaks, and the log is not the one the outputs were made from.
    const [first, second] = logLines(root);
    writeLog(root, [second!]);
    const removed = await audit(dir, root);
    expect([removed.code, removed.report.verdict]).toEqual([1, 'invalid']);
    expect(removed.report.reason_codes).toEqual(
      expect.arrayContaining(['AUDIT_INPUT_CHANGED', 'DEVIATION_LOG_INVALID', 'DEVIATION_LOG_CHANGED']),
    );
    expect(removed.report.first_difference).toMatchObject({ rail: 'inputs', file: 'inputs/deviations.jsonl' });

    // The last one removed leaves a chain that holds: the digest the manifest recorded catches it.
    writeLog(root, [first!]);
    const cut = await audit(dir, root);
    expect([cut.code, cut.report.verdict]).toEqual([1, 'invalid']);
    expect(cut.report.reason_codes).toEqual(expect.arrayContaining(['DEVIATION_LOG_CHANGED']));
    expect(cut.report.reason_codes).not.toContain('DEVIATION_LOG_INVALID');

    // Reordered, and edited: each its own code.
    writeLog(root, [second!, first!]);
    expect((await audit(dir, root)).report.reason_codes).toEqual(
      expect.arrayContaining(['DEVIATION_LOG_INVALID', 'DEVIATION_LOG_CHANGED']),
    );
    writeLog(root, [first!, second!.replace('it was NOT changed', 'it was changed')]);
    const edited = await audit(dir, root);
    expect(edited.report.verdict).toBe('invalid');
    expect(edited.report.reason_codes).toEqual(expect.arrayContaining(['DEVIATION_SIGNATURE_INVALID', 'DEVIATION_LOG_CHANGED']));

    // Emit will not report a log that does not check (the edited one): run refuses, writing nothing.
    const refused = await runCli(['run', '--root', root, '--outputs', join(outputsRoot, 'never'), ...TEST_OPERATOR_ARGS, '--json']);
    expect([refused.code, refused.json.code]).toEqual([1, 'DEVIATION_SIGNATURE_INVALID']);
    expect(existsSync(join(outputsRoot, 'never'))).toBe(false);
  }, 300_000);

  it('a deviation changes nothing computed: scores.csv and the decisions are byte-identical with and without it', async () => {
    const plain = await run(scratch());
    const root = scratch();
    ok(await record(root, AFTER_SEAL, AFTER_TEXT));
    const withDeviation = await run(root);
    expect(withDeviation.json.run_id).not.toBe(plain.json.run_id);
    expect(readFileSync(join(withDeviation.dir, 'scores.csv'))).toEqual(readFileSync(join(plain.dir, 'scores.csv')));
    expect(withDeviation.json.decision_digest).toBe(plain.json.decision_digest);
    const results = (dir: string) => {
      const { run_id: _runId, ...rest } = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8'));
      return rest;
    };
    expect(results(withDeviation.dir)).toEqual(results(plain.dir));
  }, 300_000);

  it('backdating: a token dated before the freeze is refused (nothing written), and a backdated entry planted in the log is INVALID', async () => {
    const root = scratch();
    const early = await record(root, BEFORE_FREEZE, DURING_TEXT);
    expect([early.code, early.json.code]).toEqual([1, 'DEVIATION_BEFORE_FREEZE']);
    expect(existsSync(studyLayout(root).deviations)).toBe(false);

    // An honest entry, re-dated: the token is not signed over (the digest leaves it out), so the
    // operator swaps in a token dated before the freeze. The signature and the chain still hold.
    ok(await record(root, LATER, AFTER_TEXT));
    const { dir } = await run(root);
    const [line] = logLines(root);
    const entry = JSON.parse(line!);
    fixture.tsa.at(BEFORE_FREEZE);
    const backdated = await requestTimestamp(fixture.tsa.url, Buffer.from(deviationDigest(entry), 'hex'), {
      timeoutMs: 10_000,
      retries: 0,
    });
    writeLog(root, [JSON.stringify({ ...entry, token: Buffer.from(backdated).toString('base64') })]);
    const a = await audit(dir, root);
    expect([a.code, a.report.verdict]).toEqual([1, 'invalid']);
    expect(a.report.reason_codes).toEqual(expect.arrayContaining(['DEVIATION_BEFORE_FREEZE', 'DEVIATION_LOG_CHANGED']));
    expect(a.report.reason_codes).not.toContain('DEVIATION_SIGNATURE_INVALID');
    // And no run reports it.
    const refused = await runCli(['run', '--root', root, '--outputs', join(outputsRoot, 'never'), ...TEST_OPERATOR_ARGS, '--json']);
    expect([refused.code, refused.json.code]).toEqual([1, 'DEVIATION_BEFORE_FREEZE']);
  }, 300_000);

  it('a log carried over from another freeze of the study is refused by run and fails the audit (DEVIATION_FREEZE_MISMATCH)', async () => {
    // The example's working copy (test/support/example-working-copy.ts) is the same study frozen again, with no intake log.
    const sealed = scratch();
    ok(await record(sealed, AFTER_SEAL, AFTER_TEXT));
    const other = copyExampleStudy();
    try {
      const { dir } = await run(other.root);
      writeLog(other.root, logLines(sealed));
      const refused = await runCli(['run', '--root', other.root, '--outputs', join(outputsRoot, 'never'), ...TEST_OPERATOR_ARGS, '--json']);
      expect([refused.code, refused.json.code]).toEqual([1, 'DEVIATION_FREEZE_MISMATCH']);
      const a = await runCli(['audit', dir, '--root', other.root, ...auditorFlags(), '--json']);
      expect([a.code, a.json.verdict]).toEqual([1, 'invalid']);
      expect(a.json.reason_codes).toEqual(
        expect.arrayContaining(['DEVIATION_FREEZE_MISMATCH', 'DEVIATION_INTAKE_MISMATCH', 'DEVIATION_LOG_CHANGED']),
      );
    } finally {
      other.cleanup();
    }
  }, 300_000);

  it('refuses another key than the pinned operator key, and a missing text, writing nothing', async () => {
    const root = scratch();
    const other = join(outputsRoot, 'other.key.pem');
    writeFileSync(other, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const wrong = await record(root, AFTER_SEAL, AFTER_TEXT, other);
    expect([wrong.code, wrong.json.code]).toEqual([3, 'OPERATOR_KEY_MISMATCH']);
    const empty = await record(root, AFTER_SEAL, '   ');
    expect([empty.code, empty.json.code]).toEqual([2, 'USAGE']);
    expect(existsSync(studyLayout(root).deviations)).toBe(false);
  }, 120_000);
});
