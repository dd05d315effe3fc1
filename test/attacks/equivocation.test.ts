// The operator's equivocation (SPEC §13.4, issue 33 item 1), replayed from the CLI on the committed,
// sealed example: after the deadline it edits the answer key, freezes again, anchors the new freeze
// with a backdated token (the example's committed TEST-ONLY TSA key), registers a system of its
// own, takes only that system in and seals. What the operator is allowed here: every file of the
// study, its own keys (the operator key, a fresh intake key it certifies), and the TEST-ONLY TSA
// key. What it cannot touch: the auditor's material (test/fixtures/example-auditor/: the TSA root,
// the issuer keys, the operator's public key, the four participants' receipts), made before the
// attack. The audit is given the receipts and NO --expect-freeze: the receipts alone must catch it.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../pipeline/audit/rails.ts';
import { studyLayout } from '../../pipeline/layout.ts';
import { agentKeyRegistration } from '../../pipeline/participant/agent-key.ts';
import { signCanonical, agentKeyText } from '../../pipeline/evidence/intake/ed25519.ts';
import { EXAMPLE_ANCHOR_GEN_TIME } from '../../scripts/rebuild-example.ts';
import {
  AUDITOR_ISSUER_KEYS,
  AUDITOR_OPERATOR_KEY,
  AUDITOR_TSA_ROOT,
  EXAMPLE_AUDITOR_DIR,
  sealedExampleFreezeDigest,
} from '../support/auditor.ts';
import { copySealedExampleStudy, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { AFTER_CLOSE, DURING_WINDOW, OPERATOR_KEY, startTestTsa, type TestTsa } from '../support/intake-study.ts';
import { startTsaServer } from '../support/tsa/http-tsa.ts';
import { loadTestSigner } from '../support/tsa/pkijs-tsa.ts';

const GENUINE_RECEIPTS = ['copycat', 'sys-honest', 'sys-tampered', 'sys-truncated'].map((s) =>
  join(EXAMPLE_AUDITOR_DIR, 'receipts', `${s}.receipt.json`),
);
const ok = (r: { code: number; stdout: string; stderr: string }) => expect(r.code, r.stdout + r.stderr).toBe(0);

let tsa: TestTsa;
let cleanups: Array<() => void> = [];
beforeAll(async () => {
  tsa = await startTestTsa();
});
afterAll(async () => tsa.close());
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function scratch(): { root: string; staging: string } {
  const s = copySealedExampleStudy();
  const staging = mkdtempSync(join(tmpdir(), 'prereg-operator-'));
  cleanups.push(s.cleanup, () => rmSync(staging, { recursive: true, force: true }));
  return { root: s.root, staging };
}

/**
 * The attack. `rotate`: the second freeze pins a fresh intake key, certified by the same operator
 * key (`trust certify-intake-key`), and the operator's own entry is received under it.
 */
async function equivocate(rotate: boolean, amend = false): Promise<{ root: string; dir: string; ownReceipt: string }> {
  const { root, staging } = scratch();
  const layout = studyLayout(root);
  // Three positive items of the key now expect another article.
  let edited = 0;
  writeFileSync(
    layout.answerKey,
    readFileSync(layout.answerKey, 'utf8')
      .split('\n')
      .map((line) => {
        if (edited >= 3 || !line.includes('"kind": "positive"')) return line;
        edited += 1;
        return line.replace(/"expected_refs": \["[^"]+"\]/, '"expected_refs": ["R2123-1"]');
      })
      .join('\n'),
  );
  expect(edited).toBe(3);
  // A system of its own, registered with a key the operator holds; its file is sys-honest's, renamed.
  const own = generateKeyPairSync('ed25519').privateKey;
  const ownKey = join(staging, 'own.key.pem');
  writeFileSync(ownKey, own.export({ format: 'pem', type: 'pkcs8' }));
  const studyPath = join(root, 'preregistration/study.json');
  const study = JSON.parse(readFileSync(studyPath, 'utf8'));
  const honest = study.systems.find((s: { system_id: string }) => s.system_id === 'sys-honest');
  study.systems.push({
    ...honest,
    system_id: 'sys-operator',
    buyer_fingerprints: honest.buyer_fingerprints.map((f: string) => f.replace(/^./, (c) => (c === '0' ? '1' : '0'))),
    agent_keys: [agentKeyRegistration(own, study.study_id, 'sys-operator')],
  });
  writeFileSync(studyPath, `${JSON.stringify(study, null, 2)}\n`);
  const ownFile = join(staging, 'sys-operator.jsonl');
  writeFileSync(
    ownFile,
    readFileSync(join(root, 'inputs/submissions/sys-honest.jsonl'), 'utf8')
      .replaceAll('"system_id": "sys-honest"', '"system_id": "sys-operator"')
      .replaceAll('"system_id":"sys-honest"', '"system_id":"sys-operator"'),
  );
  let intakeKey = OPERATOR_KEY;
  if (rotate) {
    const intake = generateKeyPairSync('ed25519');
    intakeKey = join(staging, 'intake.key.pem');
    writeFileSync(intakeKey, intake.privateKey.export({ format: 'pem', type: 'pkcs8' }));
    writeFileSync(join(layout.trust, 'operator/intake.pub.pem'), intake.publicKey.export({ format: 'pem', type: 'spki' }));
    ok(
      await runCli([
        'trust',
        'certify-intake-key',
        join(layout.trust, 'operator/intake.pub.pem'),
        '--operator-key',
        OPERATOR_KEY,
        '--root',
        root,
        '--json',
      ]),
    );
  }
  // The whole intake goes; the study is frozen and anchored again, "before opens_at".
  for (const f of ['inputs/intake.jsonl', 'inputs/seal.json']) rmSync(join(root, f));
  for (const d of ['inputs/anchors', 'inputs/submissions', 'inputs/commitments', 'preregistration/anchors'])
    rmSync(join(root, d), { recursive: true, force: true });
  if (amend) {
    // Declared as an amendment of the published freeze: the chain accounts for the genuine receipts.
    ok(
      await runCli([
        'freeze',
        '--replace',
        '--reason',
        'a better answer key',
        '--root',
        root,
        '--secret-file',
        layout.answerKeySecret,
        '--json',
      ]),
    );
  } else {
    // A freeze of its own, not an amendment of the published one: nothing chains it to that freeze.
    rmSync(layout.freeze);
    ok(await runCli(['freeze', '--root', root, '--secret-file', layout.answerKeySecret, '--json']));
  }
  const backdated = await startTsaServer({ backend: 'pkijs', signer: await loadTestSigner('tsa'), genTime: EXAMPLE_ANCHOR_GEN_TIME });
  try {
    ok(await runCli(['anchor', '--root', root, '--tsa', `backdated=${backdated.url}`, '--json']));
  } finally {
    await backdated.close();
  }
  // Only its own system is taken in, then sealed.
  ok(await runCli(['submission', 'sign', ownFile, '--key', ownKey, '--system', 'sys-operator', '--root', root, '--json']));
  tsa.at(DURING_WINDOW);
  ok(
    await runCli([
      'intake',
      `${ownFile}.intake.json`,
      '--operator-key',
      intakeKey,
      ...tsa.args,
      '--retries',
      '0',
      '--root',
      root,
      '--json',
    ]),
  );
  tsa.at(AFTER_CLOSE);
  ok(await runCli(['seal', ...tsa.args, '--retries', '0', '--root', root, '--json']));
  const run = await runCli(['run', '--root', root, '--outputs', join(root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
  ok(run);
  return { root, dir: run.json.dir as string, ownReceipt: `${ownFile}.intake.receipt.json` };
}

async function audit(dir: string, root: string, flags: readonly string[]): Promise<{ code: number; report: AuditReport }> {
  const r = await runCli([
    'audit',
    dir,
    '--root',
    root,
    '--tsa-root',
    AUDITOR_TSA_ROOT,
    '--issuer-keys',
    AUDITOR_ISSUER_KEYS,
    ...flags,
    '--json',
  ]);
  return { code: r.code, report: r.json as AuditReport };
}

const receiptFlags = (files: readonly string[]) => files.flatMap((f) => ['--receipt', f]);
const intakeRail = (r: AuditReport) => r.rails.find((x) => x.name === 'intake')!;

describe('a receipt under another freeze is evidence of equivocation', () => {
  it('re-freeze, own system only, sealed: the genuine receipts alone (no --expect-freeze) make the audit INVALID, naming both digests', async () => {
    const { root, dir, ownReceipt } = await equivocate(false);
    const published = sealedExampleFreezeDigest();
    const refrozen = JSON.parse(readFileSync(join(root, 'inputs/seal.json'), 'utf8')).freeze_digest as string;
    expect(refrozen).not.toBe(published);
    for (const flags of [[], ['--operator-key', AUDITOR_OPERATOR_KEY]]) {
      // The auditor holds every participant's receipt: the four genuine ones and the operator's own system's.
      const a = await audit(dir, root, [...flags, ...receiptFlags([...GENUINE_RECEIPTS, ownReceipt])]);
      expect([a.code, a.report.verdict], JSON.stringify(a.report.rails.filter((r) => !r.ok))).toEqual([1, 'invalid']);
      const rail = intakeRail(a.report);
      expect([rail.ok, rail.reason_codes]).toEqual([false, ['INTAKE_RECEIPT_EQUIVOCATION']]);
      expect(rail.differences!.map((d) => d.file)).toEqual(GENUINE_RECEIPTS);
      const said = JSON.stringify(rail.differences);
      expect(said).toContain(published);
      expect(said).toContain(refrozen);
    }
    // The participant, checking its own receipt against the published seal, sees it too.
    const mine = await runCli(['intake', '--verify-receipt', GENUINE_RECEIPTS[1]!, '--root', root, '--json']);
    expect([mine.code, mine.json.reason_codes]).toEqual([1, ['INTAKE_RECEIPT_EQUIVOCATION']]);
  }, 300_000);

  it('the same with the intake key rotated in the second freeze (certified by the same operator key): INVALID', async () => {
    const { root, dir, ownReceipt } = await equivocate(true);
    const a = await audit(dir, root, ['--operator-key', AUDITOR_OPERATOR_KEY, ...receiptFlags([...GENUINE_RECEIPTS, ownReceipt])]);
    expect([a.code, a.report.verdict]).toEqual([1, 'invalid']);
    const rail = intakeRail(a.report);
    expect([rail.ok, rail.reason_codes]).toEqual([false, ['INTAKE_RECEIPT_EQUIVOCATION']]);
    expect(rail.differences!.map((d) => d.file)).toEqual(GENUINE_RECEIPTS);
    // The operator's own receipt names the new intake key and carries the operator's certificate for it.
    const own = JSON.parse(readFileSync(ownReceipt, 'utf8'));
    expect(own.intake_key_certificate.format).toBe('prereg.intake-key-certificate/1');
    expect(own.intake_key).toBe(own.intake_key_certificate.intake_key);
  }, 300_000);
});

describe('a receipt under an earlier freeze of the amendment chain', () => {
  it('is accounted for (not equivocation), but the entries the new seal dropped are still INVALID (INTAKE_RECEIPT_NOT_SEALED)', async () => {
    const { root, dir, ownReceipt } = await equivocate(false, true);
    const published = sealedExampleFreezeDigest();
    expect(JSON.parse(readFileSync(join(root, 'preregistration/freeze.json'), 'utf8')).amends.freeze_digest).toBe(published);
    const a = await audit(dir, root, ['--operator-key', AUDITOR_OPERATOR_KEY, ...receiptFlags([...GENUINE_RECEIPTS, ownReceipt])]);
    expect([a.code, a.report.verdict]).toEqual([1, 'invalid']);
    const rail = intakeRail(a.report);
    expect([rail.ok, rail.reason_codes]).toEqual([false, ['INTAKE_RECEIPT_NOT_SEALED']]);
    expect(rail.differences!.map((d) => d.file)).toEqual(GENUINE_RECEIPTS);
    const mine = await runCli(['intake', '--verify-receipt', GENUINE_RECEIPTS[1]!, '--root', root, '--json']);
    expect([mine.code, mine.json.reason_codes]).toEqual([1, ['INTAKE_RECEIPT_NOT_SEALED']]);
  }, 300_000);
});

describe('a receipt the operator did not sign proves nothing', () => {
  it('the genuine example with its receipts is VALID; forged receipts under another freeze (bad signature, uncertified key, certificate by another key) change nothing', async () => {
    const { root, staging } = scratch();
    const run = await runCli(['run', '--root', root, '--outputs', join(root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
    ok(run);
    const dir = run.json.dir as string;
    const other = 'f'.repeat(64);
    const genuine = JSON.parse(readFileSync(GENUINE_RECEIPTS[1]!, 'utf8'));
    const forge = (name: string, body: Record<string, unknown>) => {
      const file = join(staging, `${name}.receipt.json`);
      writeFileSync(file, JSON.stringify(body));
      return file;
    };
    // 1. A genuine receipt whose freeze_digest a participant rewrote: the operator's signature no longer holds.
    const badSignature = forge('bad-signature', { ...genuine, freeze_digest: other });
    // 2. A participant's own key, signing a receipt under another freeze, with no certificate.
    const mine = generateKeyPairSync('ed25519').privateKey;
    const { signature: _s, intake_key_certificate: _c, ...rest } = genuine;
    const body = { ...rest, freeze_digest: other, intake_key: agentKeyText(mine) };
    const uncertified = forge('uncertified', { ...body, signature: signCanonical(mine, body) });
    // 3. The same, with a "certificate" signed by the participant's own key.
    const certificate = { format: 'prereg.intake-key-certificate/1', study_id: genuine.study_id, intake_key: agentKeyText(mine) };
    const withCert = { ...body, intake_key_certificate: { ...certificate, signature: signCanonical(mine, certificate) } };
    const selfCertified = forge('self-certified', { ...withCert, signature: signCanonical(mine, withCert) });
    const forged = [badSignature, uncertified, selfCertified];

    const a = await audit(dir, root, ['--operator-key', AUDITOR_OPERATOR_KEY, ...receiptFlags([...GENUINE_RECEIPTS, ...forged])]);
    expect([a.code, a.report.verdict], JSON.stringify(a.report.rails.filter((r) => !r.ok))).toEqual([0, 'valid']);
    const rail = intakeRail(a.report);
    expect(rail.detail).toContain(`${badSignature}: INTAKE_RECEIPT_SIGNATURE_INVALID (proves nothing against the operator)`);
    expect(rail.detail).toContain(`${uncertified}: INTAKE_KEY_UNCERTIFIED (proves nothing against the operator)`);
    expect(rail.detail).toContain(`${selfCertified}: INTAKE_KEY_UNCERTIFIED (proves nothing against the operator)`);
    expect(rail.detail).toContain('4 of 7 receipt(s) sealed');
  }, 300_000);
});
