// The operator's identity and the intake keys it certifies (SPEC §13.4, docs/trust.md). The
// identity is the operator's long-term Ed25519 key (the trust policy's operator_public_key, which
// an auditor obtains out of band: `audit --operator-key`). Every other key that signs intake
// receipts carries a certificate by that identity over canonical
//   {format: "prereg.intake-key-certificate/1", study_id, intake_key}
// (intake_key as `ed25519:<base64url>`). It is bound to the study, not to a freeze: an
// intake key rotated in a second freeze is still the same identity's, so its receipts still count
// against it. Pure: keys and values in, a reason out.
import type { KeyObject } from 'node:crypto';
import { isRecord } from '../../formats/canonical-json.ts';
import { agentKeyText, agentPublicKey, sameKey, signCanonical, verifyCanonical } from './ed25519.ts';

export const INTAKE_KEY_CERTIFICATE_FORMAT = 'prereg.intake-key-certificate/1';

export interface IntakeKeyCertificate {
  format: typeof INTAKE_KEY_CERTIFICATE_FORMAT;
  study_id: string;
  /** `ed25519:<base64url of the 32 raw bytes>`. */
  intake_key: string;
  /** Ed25519 by the operator's identity key over the canonical certificate without `signature` (base64url). */
  signature: string;
}

const CERTIFICATE_MEMBERS = ['format', 'study_id', 'intake_key', 'signature'];

function payload(studyId: string, intakeKeyText: string): Omit<IntakeKeyCertificate, 'signature'> {
  return { format: INTAKE_KEY_CERTIFICATE_FORMAT, study_id: studyId, intake_key: intakeKeyText };
}

/** The identity's certificate for `intakeKey` in study `studyId`. */
export function certifyIntakeKey(identity: KeyObject, studyId: string, intakeKey: KeyObject): IntakeKeyCertificate {
  const body = payload(studyId, agentKeyText(intakeKey));
  return { ...body, signature: signCanonical(identity, body) };
}

/**
 * Why the key `intakeKeyText` does not speak for `identity` in study `studyId` (null: it does). It
 * does when it is the identity itself, or when `certificate` is the identity's certificate for
 * exactly that key and study.
 */
export function uncertifiedReason(identity: KeyObject, studyId: string, intakeKeyText: unknown, certificate: unknown): string | null {
  const key = typeof intakeKeyText === 'string' ? agentPublicKey(intakeKeyText) : undefined;
  if (key === undefined) return `the intake key ${JSON.stringify(intakeKeyText)} is not an ed25519:<base64url> public key`;
  if (sameKey(key, identity)) return null;
  if (certificate === undefined)
    return `the intake key ${intakeKeyText as string} is not the operator's key and carries no certificate by it`;
  if (
    !isRecord(certificate) ||
    Object.keys(certificate).some((k) => !CERTIFICATE_MEMBERS.includes(k)) ||
    certificate.format !== INTAKE_KEY_CERTIFICATE_FORMAT
  ) {
    return `the certificate is not a ${INTAKE_KEY_CERTIFICATE_FORMAT} with members ${CERTIFICATE_MEMBERS.join(', ')}`;
  }
  if (certificate.study_id !== studyId || certificate.intake_key !== intakeKeyText) {
    return `the certificate is for key ${String(certificate.intake_key)} in study ${JSON.stringify(certificate.study_id)}, not for ${intakeKeyText as string} in ${JSON.stringify(studyId)}`;
  }
  if (!verifyCanonical(identity, payload(studyId, intakeKeyText as string), certificate.signature)) {
    return `the certificate of ${intakeKeyText as string} is not signed by the operator's key`;
  }
  return null;
}
