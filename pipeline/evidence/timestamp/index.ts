// RFC 3161 timestamp tokens (SPEC §4.4, §6.1 step 5, §12.7): verify one token of any TSA over given bytes or a given imprint
// and the pinned TSA material. Pure: inputs in, outcome out (docs/preregistration.md,
// docs/trust.md). rfc3161.ts decides; token.ts reads a token by byte range; tst-info.ts,
// cms-signer-info.ts and ess-cert-id.ts decode and check its parts.
export {
  loadTsaTrust,
  verifyTimestampToken,
  TIMESTAMP_CATALOGUE,
  TIMESTAMP_CHECKS,
  TIMESTAMP_CHECK_CODES,
  TSA_TRUST_GAP,
} from './rfc3161.ts';
export { replyRefusal } from './request-match.ts';
export { verifyTimestampTokenOnce, timestampVerificationCount } from './verified-once.ts';
export type { TimestampCheck, TimestampOptions, TimestampSubject, TimestampVerification, TsaReasonCode, TsaTrust } from './rfc3161.ts';
