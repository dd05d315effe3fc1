// The operator identity's certificate for an intake key (SPEC §13.4): one row per rule, each a
// case that speaks for the identity and one that does not. Keys are fresh Ed25519 keys; the
// expected verdicts are written here, never computed by the module.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { agentKeyText, signCanonical } from '../../../pipeline/evidence/intake/ed25519.ts';
import { certifyIntakeKey, uncertifiedReason } from '../../../pipeline/evidence/intake/key-certificate.ts';

const identity = generateKeyPairSync('ed25519');
const intake = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const STUDY = 'example-procurement-2026';
const intakeText = agentKeyText(intake.publicKey);
const genuine = certifyIntakeKey(identity.privateKey, STUDY, intake.publicKey);

describe('uncertifiedReason: does an intake key speak for the operator identity in a study?', () => {
  const cases: Array<[string, string, unknown, unknown, RegExp | null]> = [
    ['the identity key itself, no certificate', STUDY, agentKeyText(identity.publicKey), undefined, null],
    ['a certified intake key', STUDY, intakeText, genuine, null],
    ['a certified key, rotated into a second freeze (the certificate names no freeze)', STUDY, intakeText, { ...genuine }, null],
    ['no certificate', STUDY, intakeText, undefined, /carries no certificate/],
    [
      'a certificate for another study',
      'another-study',
      intakeText,
      genuine,
      /in study "example-procurement-2026", not for .* in "another-study"/,
    ],
    ['a certificate for another key', STUDY, agentKeyText(other.publicKey), genuine, /the certificate is for key/],
    [
      'a certificate signed by another key',
      STUDY,
      intakeText,
      certifyIntakeKey(other.privateKey, STUDY, intake.publicKey),
      /not signed by the operator's key/,
    ],
    [
      'a certificate signed by the intake key itself',
      STUDY,
      intakeText,
      { ...genuine, signature: signCanonical(intake.privateKey, { format: genuine.format, study_id: STUDY, intake_key: intakeText }) },
      /not signed by the operator's key/,
    ],
    [
      'a certificate with an extra member',
      STUDY,
      intakeText,
      { ...genuine, valid_until: null },
      /is not a prereg.intake-key-certificate\/1/,
    ],
    [
      'a certificate of another format',
      STUDY,
      intakeText,
      { ...genuine, format: 'prereg.intake-key-certificate/2' },
      /is not a prereg.intake-key-certificate\/1/,
    ],
    ['a key that is not ed25519:<base64url>', STUDY, 'ed25519:short', genuine, /is not an ed25519:<base64url> public key/],
  ];
  it.each(cases)('%s', (_what, study, key, certificate, expected) => {
    const why = uncertifiedReason(identity.publicKey, study, key, certificate);
    if (expected === null) expect(why).toBeNull();
    else expect(why).toMatch(expected);
  });
});
