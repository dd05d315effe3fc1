// The deviations log (SPEC §13.3, docs/deviations.md): inputs/deviations.jsonl, one
// prereg.deviation/1 entry a line (schemas/deviation.schema.json). Pure: the shape, what the
// operator's signature covers, what the digest is taken over, and the chain read line by line.
//
//   entry     {format, study_id, freeze_digest, seq, prev, intake:{entries, head}, text, signature, token}
//   signature = Ed25519 by the pinned operator_public_key over the canonical entry without
//              `signature` and `token` (base64url, no padding)
//   digest    = SHA-256(canonical entry without `token`), hex: what the next entry's `prev` names
//              (64 zeros for seq 0) and what `token` (an RFC 3161 TimeStampResp, DER, base64) dates.
import { canonicalJson } from '../../formats/canonical-json.ts';
import { sha256Hex } from '../../formats/hash.ts';
import { schemaProblems } from '../../formats/schemas.ts';
import { LinkedChain } from '../intake/log.ts';

export const DEVIATION_FORMAT = 'prereg.deviation/1';

export interface DeviationEntry {
  format: typeof DEVIATION_FORMAT;
  study_id: string;
  freeze_digest: string;
  seq: number;
  prev: string;
  /** inputs/intake.jsonl when the entry was signed: its number of entries and the last one's digest. */
  intake: { entries: number; head: string };
  text: string;
  signature: string;
  token: string;
}

/** What the operator signs: the entry without its signature and token. */
export function deviationPayload(
  e: Omit<DeviationEntry, 'signature' | 'token'> & { signature?: string; token?: string },
): Record<string, unknown> {
  const { signature: _signature, token: _token, ...signed } = e;
  return signed;
}

/** SHA-256(canonical entry without `token`), hex: the chain's link and what the token dates. */
export function deviationDigest(e: Omit<DeviationEntry, 'token'> & { token?: string }): string {
  const { token: _token, ...rest } = e;
  return sha256Hex(canonicalJson(rest));
}

/** What is wrong with a value read as a deviation entry; empty: it is one. */
export function deviationProblems(value: unknown): string[] {
  return schemaProblems('deviation', value);
}

/** The deviations log read so far: a chain by seq and prev, as the intake log is. */
export class DeviationChain extends LinkedChain<DeviationEntry> {
  constructor() {
    super(deviationProblems, deviationDigest);
  }
}
