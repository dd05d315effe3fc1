// "The operator key is pinned and is Ed25519" is one rule (pipeline/study/operator-key.ts), and
// freeze's plan check, run's preflight, emit and the audit's signatures rail all apply it: a
// policy pinning an ECDSA key is refused by each, with OPERATOR_KEY_UNPINNED naming the file.
// An operator who pins a key prereg cannot check would sign outputs nobody could verify.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pinnedOperatorKeyOf } from '../../pipeline/audit/signatures.ts';
import type { TrustPolicy } from '../../pipeline/formats/trust-policy.ts';
import { studyLayout } from '../../pipeline/layout.ts';
import { runProblems } from '../../pipeline/run/preflight.ts';
import { loadStudyFiles } from '../../pipeline/study/loaded-study.ts';
import { pinnedOperatorKey } from '../../pipeline/study/operator-key.ts';
import { copyExampleStudy, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';

const ecdsaPem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }) as string;
let root: string;
let cleanup: () => void;
beforeAll(() => ({ root, cleanup } = copyExampleStudy()));
afterAll(() => cleanup());
const trustDir = () => join(root, 'preregistration/trust');
const policy = (): TrustPolicy => JSON.parse(readFileSync(join(trustDir(), 'policy.json'), 'utf8')) as TrustPolicy;

describe('pinnedOperatorKey', () => {
  it("reads the example's pinned Ed25519 key and names its file", () => {
    const pinned = pinnedOperatorKey(trustDir(), policy());
    expect(pinned.key.asymmetricKeyType).toBe('ed25519');
    expect(pinned.file).toBe('preregistration/trust/operator/TEST-ONLY-operator.pub.pem');
  });

  it.each<[string, (p: TrustPolicy) => TrustPolicy, string, RegExp]>([
    [
      'no operator_public_key',
      ({ operator_public_key: _, ...p }) => p as TrustPolicy,
      'OPERATOR_KEY_UNPINNED',
      /pins no operator_public_key/,
    ],
    [
      'a certificate, not a key',
      (p) => ({ ...p, operator_public_key: 'tsa-roots/TEST-ONLY-tsa-root.cert.pem' }),
      'OPERATOR_KEY_UNPINNED',
      /tsa-roots\/TEST-ONLY-tsa-root.cert.pem is (not a PEM public key|rsa key|an unknown key|ec key)/,
    ],
    [
      'an ECDSA key',
      (p) => ({ ...p, operator_public_key: 'operator/ecdsa.pub.pem' }),
      'OPERATOR_KEY_UNPINNED',
      /operator\/ecdsa.pub.pem is ec key, not Ed25519/,
    ],
    [
      'a path outside the trust directory',
      (p) => ({ ...p, operator_public_key: '../study.json' }),
      'TRUST_POLICY_INVALID',
      /outside the trust directory/,
    ],
  ])('refuses %s', (_, edit, code, message) => {
    writeFileSync(join(trustDir(), 'operator/ecdsa.pub.pem'), ecdsaPem);
    expect(() => pinnedOperatorKey(trustDir(), edit(policy()))).toThrow(
      expect.objectContaining({ code, message: expect.stringMatching(message) }),
    );
  });
});

describe('every stage that signs or checks applies it', () => {
  it("an ECDSA key pinned: freeze's plan check, run's preflight, emit and the audit's signatures rail each refuse it (emit: the trust directory drifted from the freeze first)", async () => {
    writeFileSync(join(trustDir(), 'operator/ecdsa.pub.pem'), ecdsaPem);
    const original = readFileSync(join(trustDir(), 'policy.json'), 'utf8');
    writeFileSync(join(trustDir(), 'policy.json'), JSON.stringify({ ...policy(), operator_public_key: 'operator/ecdsa.pub.pem' }, null, 2));
    try {
      const layout = studyLayout(root);
      const flags = Object.fromEntries([0, 2, 4].map((i) => [TEST_OPERATOR_ARGS[i]!.slice(2), TEST_OPERATOR_ARGS[i + 1]!]));
      expect(runProblems(loadStudyFiles(layout), flags, {}).map((p) => p.code)).toContain('OPERATOR_KEY_UNPINNED');
      const audit = pinnedOperatorKeyOf(loadStudyFiles(layout));
      expect(audit).toMatchObject({ code: 'OPERATOR_KEY_UNPINNED', problem: { file: 'preregistration/trust/operator/ecdsa.pub.pem' } });
      const freeze = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json']);
      expect(freeze.code).not.toBe(0);
      expect(freeze.stdout + freeze.stderr).toContain('OPERATOR_KEY_UNPINNED');
      const emit = await runCli(['emit', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
      // emit meets the drifted trust directory first: a frozen study cannot pin a key freeze refused.
      expect(emit.json).toMatchObject({ ok: false, code: 'TRUST_DRIFT' });
    } finally {
      writeFileSync(join(trustDir(), 'policy.json'), original);
    }
  });
});
