// Transparency-log entries (SPEC §6.1): one Sigstore Rekor hashedrekord entry verified offline
// against the pinned log keys and the issuer's pinned submitter keys (docs/proofs.md,
// docs/trust.md). Pure: inputs in, outcome out.
export { verifyTlogEntry, TLOG_CATALOGUE, TLOG_CHECKS, TLOG_CODES } from './rekor-entry.ts';
export type { TlogCheck, TlogCode, TlogEntry, TlogMaterial, TlogVerification } from './rekor-entry.ts';
export { loadTlogKeys, loadTlogSubmitterKeys, logIdOf, parseSpkiPem } from './keys.ts';
export type { PinnedLogKey, PinnedSubmitterKey, TlogKeyPolicy, TlogSubmitterKeyPolicy } from './keys.ts';
export type { CheckOutcome } from '../check-outcome.ts';
