// `prereg trust certify-intake-key` and the freeze's rule behind it (SPEC §13.4): an intake key
// other than the operator key speaks for the operator only with the operator key's certificate.
// Who gains by breaking it: the operator, who could pin a fresh intake key in a second freeze and
// disown the receipts the first one signed. So the certificate binds the study, never a freeze,
// only the operator key makes one, and freeze refuses an intake key that has none.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentKeyText } from '../../pipeline/evidence/intake/ed25519.ts';
import { uncertifiedReason } from '../../pipeline/evidence/intake/key-certificate.ts';
import { runCli, scratchStudies } from '../support/cli.ts';
import { OPERATOR_KEY, snapshot } from '../support/intake-study.ts';

const study = scratchStudies();
const POLICY = 'preregistration/trust/policy.json';

function newIntakeKey(root: string): { file: string; text: string } {
  const { publicKey } = generateKeyPairSync('ed25519');
  const file = join(root, 'preregistration/trust/operator/intake.pub.pem');
  writeFileSync(file, publicKey.export({ format: 'pem', type: 'spki' }));
  return { file, text: agentKeyText(publicKey) };
}

const policyOf = (root: string) => JSON.parse(readFileSync(join(root, POLICY), 'utf8'));

describe("an intake key is the operator's only when the operator key certifies it", () => {
  it('freeze refuses an intake_public_key without a certificate (INTAKE_KEY_UNCERTIFIED, exit 3), writing nothing', async () => {
    const root = study();
    newIntakeKey(root);
    const policy = policyOf(root);
    policy.intake_public_key = 'operator/intake.pub.pem';
    writeFileSync(join(root, POLICY), JSON.stringify(policy, null, 2));
    const frozen = readFileSync(join(root, 'preregistration/freeze.json'), 'utf8');
    const r = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json']);
    expect([r.code, r.json.code]).toEqual([3, 'INTAKE_KEY_UNCERTIFIED']);
    expect(r.json.message).toContain('carries no certificate');
    expect(readFileSync(join(root, 'preregistration/freeze.json'), 'utf8')).toBe(frozen);
  });

  it('certify-intake-key writes the certificate beside the key and pins both; the study then freezes', async () => {
    const root = study();
    const key = newIntakeKey(root);
    const r = await runCli(['trust', 'certify-intake-key', key.file, '--operator-key', OPERATOR_KEY, '--root', root, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const policy = policyOf(root);
    expect([policy.intake_public_key, policy.intake_key_certificate]).toEqual(['operator/intake.pub.pem', 'operator/intake.pub.cert.json']);
    // The member order is the schema's: the certificate right after the key it certifies.
    const members = Object.keys(policy);
    expect(members.indexOf('intake_key_certificate')).toBe(members.indexOf('intake_public_key') + 1);
    const certificate = JSON.parse(readFileSync(join(root, 'preregistration/trust/operator/intake.pub.cert.json'), 'utf8'));
    expect(certificate).toMatchObject({
      format: 'prereg.intake-key-certificate/1',
      study_id: 'example-procurement-2026',
      intake_key: key.text,
    });
    // Checked with the operator's public key as published, not with the module's own view of the study.
    const identity = readFileSync(join(root, 'preregistration/trust/operator/TEST-ONLY-operator.pub.pem'));
    expect(uncertifiedReason(createPublicKey(identity), 'example-procurement-2026', key.text, certificate)).toBeNull();
    const frozen = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json']);
    expect(frozen.code, frozen.stdout + frozen.stderr).toBe(0);
  });

  it("refuses, writing nothing: a key that is not the operator's (OPERATOR_KEY_MISMATCH), a key file outside the trust directory (TRUST_POLICY_INVALID)", async () => {
    const root = study();
    const key = newIntakeKey(root);
    const before = snapshot(join(root, 'preregistration'));
    const stranger = join(root, '..', `stranger-${Date.now()}.key.pem`);
    writeFileSync(stranger, generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }));
    const mismatch = await runCli(['trust', 'certify-intake-key', key.file, '--operator-key', stranger, '--root', root, '--json']);
    expect([mismatch.code, JSON.parse(mismatch.stderr || mismatch.stdout).code]).toEqual([3, 'OPERATOR_KEY_MISMATCH']);
    const outside = join(root, 'outside.pub.pem');
    writeFileSync(outside, readFileSync(key.file));
    const escaped = await runCli(['trust', 'certify-intake-key', outside, '--operator-key', OPERATOR_KEY, '--root', root, '--json']);
    expect([escaped.code, JSON.parse(escaped.stderr || escaped.stdout).code]).toEqual([3, 'TRUST_POLICY_INVALID']);
    expect(snapshot(join(root, 'preregistration'))).toEqual(before);
    expect(existsSync(join(root, 'preregistration/trust/operator/intake.pub.cert.json'))).toBe(false);
  });
});
