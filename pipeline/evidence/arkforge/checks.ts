// The checks of an ArkForge proof and the codes they report (SPEC §6.1 tables), shared by the
// orchestrator (verify-item.ts) and the per-version modules (versions/).
import { TLOG_CATALOGUE, type TlogCode } from '../tlog/index.ts';
import type { CheckOutcome } from '../check-outcome.ts';
import { checkCatalogue, worstStatus } from '../check-catalogue.ts';

export type ProofStatus = 'VERIFIED' | 'TAMPERED' | 'UNTRUSTED' | 'MALFORMED';

/**
 * The checks, in the order they are recorded (one column each in proof_checks). Each witness is
 * its own check: the chain hash (values, or the root of the commitments), the committed set, the
 * openings, the binding of the bodies through openings (3.x), the identity block, the issuer's
 * signature and key, the batch inclusion proof, the RFC 3161 token, the transparency-log entry
 * and the time.
 */
export const PROOF_CHECKS = [
  'structure',
  'request_hash',
  'response_hash',
  'chain',
  'commitments',
  'disclosures',
  'body_binding',
  'identity',
  'signature',
  'key',
  'batch',
  'tsa',
  'tlog',
  'time',
] as const;
export type ProofCheck = (typeof PROOF_CHECKS)[number];
export type { CheckOutcome };

/**
 * The transparency-log verifier's codes (tlog/rekor-entry.ts), all on the one `tlog` check, each
 * with the status the log's own catalogue gives it (SPEC §6.1).
 */
const PROOF_TLOG_CODES = Object.fromEntries(
  Object.entries(TLOG_CATALOGUE.codes).map(([code, { status }]) => [code, { check: 'tlog', status }]),
) as { readonly [C in TlogCode]: { readonly check: 'tlog'; readonly status: (typeof TLOG_CATALOGUE.codes)[C]['status'] } };

/**
 * Every code this verifier reports, with the one check that reports it and the status it implies
 * (SPEC §6.1 tables), statuses first match wins: MALFORMED > TAMPERED > UNTRUSTED > VERIFIED.
 * `status: null` marks a code that is always informational: recorded in reason_codes (and
 * informational_codes), never changing the status. PROOF_BATCH_PENDING is UNTRUSTED when the
 * policy requires a token and informational otherwise: the verifier decides per proof and lists
 * it in informational_codes when it does not count.
 */
export const PROOF_CATALOGUE = checkCatalogue(PROOF_CHECKS, ['MALFORMED', 'TAMPERED', 'UNTRUSTED'], {
  PROOF_MALFORMED: { check: 'structure', status: 'MALFORMED' },
  PROOF_REQUEST_HASH_MISMATCH: { check: 'request_hash', status: 'TAMPERED' },
  PROOF_RESPONSE_HASH_MISMATCH: { check: 'response_hash', status: 'TAMPERED' },
  PROOF_SPEC_VERSION_UNKNOWN: { check: 'chain', status: 'MALFORMED' },
  PROOF_CHAIN_MISMATCH: { check: 'chain', status: 'TAMPERED' },
  PROOF_PREIMAGE_REDACTED: { check: 'chain', status: 'UNTRUSTED' },
  PROOF_COMMITMENT_ROOT_MISMATCH: { check: 'chain', status: 'TAMPERED' },
  PROOF_COMMITMENT_SET_MISMATCH: { check: 'commitments', status: 'TAMPERED' },
  PROOF_DISCLOSURE_MISMATCH: { check: 'disclosures', status: 'TAMPERED' },
  PROOF_SERVED_VALUE_MISMATCH: { check: 'disclosures', status: 'TAMPERED' },
  PROOF_BODY_UNBOUND: { check: 'body_binding', status: 'UNTRUSTED' },
  PROOF_IDENTITY_INCOMPLETE: { check: 'identity', status: 'MALFORMED' },
  PROOF_IDENTITY_INVALID: { check: 'identity', status: 'MALFORMED' },
  PROOF_IDENTITY_UNANCHORED: { check: 'identity', status: null },
  PROOF_SIGNATURE_MISSING: { check: 'signature', status: 'UNTRUSTED' },
  PROOF_SIGNATURE_INVALID: { check: 'signature', status: 'TAMPERED' },
  PROOF_KEY_UNTRUSTED: { check: 'key', status: 'UNTRUSTED' },
  PROOF_BATCH_INDEX_OUT_OF_RANGE: { check: 'batch', status: 'TAMPERED' },
  PROOF_BATCH_PATH_LENGTH: { check: 'batch', status: 'TAMPERED' },
  PROOF_BATCH_PATH_INVALID: { check: 'batch', status: 'TAMPERED' },
  PROOF_BATCH_PENDING: { check: 'batch', status: 'UNTRUSTED' },
  PROOF_TSA_MISSING: { check: 'tsa', status: 'UNTRUSTED' },
  PROOF_TSA_INVALID: { check: 'tsa', status: 'UNTRUSTED' },
  PROOF_TSA_UNTRUSTED: { check: 'tsa', status: 'UNTRUSTED' },
  ...PROOF_TLOG_CODES,
  PROOF_TIME_OUTSIDE_WINDOW: { check: 'time', status: 'UNTRUSTED' },
});
export const PROOF_CODES = PROOF_CATALOGUE.codes;
export type ProofCode = keyof typeof PROOF_CODES;

/** Parse refusals that make a proof MALFORMED before it reaches the verifier (SPEC §6.1 table). */
export type ProofParseCode = 'JSON_DUPLICATE_KEY' | 'JSON_NUMBER_INVALID';

/** One failed rule, as a module reports it: the check it belongs to, its code, what was wrong. */
export interface Finding {
  check: ProofCheck;
  code: ProofCode;
  problem: string;
  /** Recorded without changing the status (the check stays 'skipped'). */
  informational?: true;
  /** The check could not be decided (it stays 'skipped'), and the code counts for the status. */
  undecided?: true;
}

/**
 * The status the codes imply, first match wins: MALFORMED > TAMPERED > UNTRUSTED > VERIFIED.
 * Always-informational codes (status null) do not count; pass only the codes that count (the
 * verifier leaves out those it reported as informational). A parse refusal is MALFORMED.
 */
export function proofStatus(codes: readonly (ProofCode | ProofParseCode)[]): ProofStatus {
  if (codes.some((code) => code === 'JSON_DUPLICATE_KEY' || code === 'JSON_NUMBER_INVALID')) return 'MALFORMED';
  return worstStatus(PROOF_CATALOGUE, codes as readonly ProofCode[], 'VERIFIED');
}
