// Batch-anchored proofs (proof-spec 3.x) carry one token per batch: every proof of a batch of 64
// brings the same TimeStampResp over the same root. The token's verification depends only on
// (token bytes, expected digest, pinned TSA material) — the chain is checked at the token's own
// genTime, never at "now" — so its outcome is computed once per distinct pair and reused; what
// depends on the proof (genTime against the proof's timestamp, the window) is still checked per
// proof by the caller. A token that differs by one byte is another key and is verified afresh.
import { verifyTimestampToken, type TimestampVerification, type TsaTrust } from './rfc3161.ts';

/** Outcomes kept per TSA material; past this many distinct tokens the memo starts over (bounded memory). */
const MAX_REMEMBERED = 4096;

const remembered = new WeakMap<TsaTrust, Map<string, Promise<TimestampVerification>>>();
let verifications = 0;

/** verifyTimestampToken, computed once per distinct (token bytes, expected digest) under `trust`. */
export function verifyTimestampTokenOnce(token: Uint8Array, expectedDigest: Uint8Array, trust: TsaTrust): Promise<TimestampVerification> {
  let memo = remembered.get(trust);
  if (!memo) remembered.set(trust, (memo = new Map()));
  // The exact bytes are the key (no digest of them to trust): base64 of the token, then the imprint.
  const key = `${Buffer.from(expectedDigest).toString('hex')}:${Buffer.from(token).toString('base64')}`;
  let outcome = memo.get(key);
  if (!outcome) {
    if (memo.size >= MAX_REMEMBERED) memo.clear();
    verifications++;
    outcome = verifyTimestampToken(token, expectedDigest, trust);
    memo.set(key, outcome);
  }
  // Each caller gets its own copy: a result is handed on (rows, JSON), never shared by reference.
  return outcome.then((o) => structuredClone(o));
}

/** How many tokens this thread has actually verified (not reused) so far: the bench reports it. */
export function timestampVerificationCount(): number {
  return verifications;
}
