// Whose receipts count against the operator (SPEC §13.4): a receipt names the intake key that
// signed it and, when that key is not the operator's identity key, carries the identity's
// certificate for it (pipeline/evidence/intake/key-certificate.ts). Intake takes both from the
// frozen trust policy (and refuses a pinned intake key the identity did not certify); the receipt
// check takes them from the receipt alone, so a receipt under an intake key that a later freeze
// no longer pins still speaks for the same identity.
import type { KeyObject } from 'node:crypto';
import { agentKeyText, agentPublicKey, sameKey, verifyCanonical } from '../evidence/intake/ed25519.ts';
import { uncertifiedReason, type IntakeKeyCertificate } from '../evidence/intake/key-certificate.ts';
import { receiptPayload, type IntakeReceipt } from '../evidence/intake/records.ts';
import { PreregError } from '../reasons.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';

/** What a receipt carries to show whose it is. */
export interface ReceiptSigner {
  intake_key: string;
  intake_key_certificate?: IntakeKeyCertificate;
}

/**
 * The frozen intake key as receipts name it, with its certificate when it is not the operator key;
 * INTAKE_KEY_UNCERTIFIED (nothing written) when the operator key did not certify it for `studyId`.
 */
export function pinnedReceiptSigner(loaded: LoadedStudy, studyId: string): ReceiptSigner {
  const intake = loaded.intakeKey();
  const identity = loaded.operatorKey().key;
  const text = agentKeyText(intake.key);
  const why = uncertifiedReason(identity, studyId, text, intake.certificate);
  if (why !== null) {
    throw new PreregError(
      'INTAKE_KEY_UNCERTIFIED',
      `${intake.where}: ${why}; certify it with \`prereg trust certify-intake-key\` before the freeze`,
      { file: 'preregistration/trust/policy.json', field: '/intake_key_certificate' },
    );
  }
  return sameKey(intake.key, identity)
    ? { intake_key: text }
    : { intake_key: text, intake_key_certificate: intake.certificate as IntakeKeyCertificate };
}

/**
 * The freeze digests a study whose freeze is `freezeDigest` answers for (SPEC §13.4): that freeze
 * and the freezes it amends (`chain`: each freeze naming its predecessor, kept under
 * preregistration/amendments/, study/freeze-chain.ts), for the audit and the participant's own
 * check alike. A receipt the operator signed under any other freeze of the same study is
 * equivocation.
 */
export function accountedFreezeDigests(freezeDigest: string, chain: readonly string[] = []): ReadonlySet<string> {
  return new Set([freezeDigest, ...chain]);
}

export type SignerFinding = { code: 'INTAKE_RECEIPT_SIGNATURE_INVALID' | 'INTAKE_KEY_UNCERTIFIED'; message: string };

/**
 * Null when `receipt` is the operator's: signed by the intake key it names, that key being
 * `identity` or certified by it for the receipt's study. Otherwise why it proves nothing.
 */
export function receiptSignerFinding(receipt: IntakeReceipt, identity: KeyObject): SignerFinding | null {
  const key = agentPublicKey(receipt.intake_key)!;
  if (!verifyCanonical(key, receiptPayload(receipt), receipt.signature)) {
    return {
      code: 'INTAKE_RECEIPT_SIGNATURE_INVALID',
      message: `the signature does not verify with the intake key it names (${receipt.intake_key}) over the canonical receipt without its signature`,
    };
  }
  const why = uncertifiedReason(identity, receipt.study_id, receipt.intake_key, receipt.intake_key_certificate);
  return why === null ? null : { code: 'INTAKE_KEY_UNCERTIFIED', message: `${why}: the receipt is not shown to be the operator's` };
}
