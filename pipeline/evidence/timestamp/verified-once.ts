// Batch-anchored proofs (proof-spec 3.x) carry one token per batch: every proof of a batch of 64
// brings the same TimeStampResp over the same root. The token's verification depends only on
// (token bytes, expected digest, pinned TSA material) — the chain is checked at the token's own
// genTime, never at "now" — so its outcome is computed once per distinct pair and reused; what
// depends on the proof (genTime against the proof's timestamp, the window) is still checked per
// proof by the caller. A token that differs by one byte is another key and is verified afresh.
// The keys are the token's base64 text as the proof serves it and the digest's hex: decoding 4 KB
// of base64 and encoding it again for every proof of a batch cost more than the lookup. Two texts
// of the same bytes (other padding, say) are two keys: verified twice, to the same outcome.
import type { SignatureCheck } from '../signature-check.ts';
import { verifyTimestampToken, type TimestampVerification, type TsaTrust } from './rfc3161.ts';

/** Outcomes kept per TSA material; past this many distinct tokens the memo starts over (bounded memory). */
const MAX_REMEMBERED = 4096;

/**
 * Per TSA material: outcomes by token text, then by digest. Two levels, not one key joining them:
 * a joined key is a new 4 KB string to flatten and hash at every lookup, where the token text, a
 * string of the parsed proof, keeps its hash once computed.
 */
const remembered = new WeakMap<TsaTrust, { size: number; byToken: Map<string, Map<string, Promise<TimestampVerification>>> }>();
let verifications = 0;

/**
 * verifyTimestampToken, computed once per distinct (token text, expected digest) under `trust`.
 * Every caller gets the same outcome: read it, copy what it keeps (a structured clone per proof
 * cost more than the lookup it follows).
 */
export function verifyTimestampTokenOnce(
  tokenBase64: string,
  expectedDigestHex: string,
  trust: TsaTrust,
  signatures?: SignatureCheck,
): Promise<Readonly<TimestampVerification>> {
  let memo = remembered.get(trust);
  if (!memo) remembered.set(trust, (memo = { size: 0, byToken: new Map() }));
  let byDigest = memo.byToken.get(tokenBase64);
  let outcome = byDigest?.get(expectedDigestHex);
  if (!outcome) {
    if (memo.size >= MAX_REMEMBERED) {
      memo.byToken.clear();
      memo.size = 0;
      byDigest = undefined;
    }
    if (!byDigest) memo.byToken.set(tokenBase64, (byDigest = new Map()));
    verifications++;
    outcome = verifyTimestampToken(Buffer.from(tokenBase64, 'base64'), Buffer.from(expectedDigestHex, 'hex'), trust, { signatures });
    byDigest.set(expectedDigestHex, outcome);
    memo.size++;
  }
  return outcome;
}

/** How many tokens this thread has actually verified (not reused) so far: the bench reports it. */
export function timestampVerificationCount(): number {
  return verifications;
}
