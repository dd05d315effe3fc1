// The external commitment to an AER-1 timeline (draft-zambo-aer1-09 §7.3; docs/aer1.md): the
// draft's {job_id, final_entry_digest, entry_count, published_at}, computed by the verifier's own
// reading of the timeline (pipeline/evidence/aer1/), so the commitment is exactly the one a study
// compares the timeline with. Optionally signed by the owner's agent key (SPEC §12.3): Ed25519 over
// the canonical JSON of the commitment without its `signature` member — the only kind of
// commitment, with one sent through intake, that can cancel the owner's own timeline. Pure.
import type { KeyObject } from 'node:crypto';
import { agentKeyText, signCanonical } from '../evidence/intake/ed25519.ts';
import {
  indexCommitments,
  readCommitmentLine,
  TIMELINE_CATALOGUE,
  verifyTimeline,
  type CommitmentDocument,
  type TimelineReasonCode,
} from '../evidence/aer1/index.ts';
import { statusOf } from '../evidence/check-catalogue.ts';
import { parseRfc3339 } from '../formats/rfc3339.ts';
import { PreregError } from '../reasons.ts';

/** A commitment as published: the draft's four members, and the owner's signature when signed. */
export type PublishedCommitment = Pick<CommitmentDocument, 'job_id' | 'final_entry_digest' | 'entry_count' | 'published_at' | 'signature'>;

export interface CommitmentResult {
  commitment: PublishedCommitment;
  /** The timeline's revision construction: `current` (-07/-08/-09) or `06`. */
  construction: 'current' | '06';
  /** `ed25519:…` of the signing key, when signed. */
  signed_by: string | null;
}

/** A broken timeline's codes, which a commitment would only make look anchored. */
const CHAIN = (code: TimelineReasonCode) => statusOf(TIMELINE_CATALOGUE, code) === 'BROKEN';

/**
 * The commitment to `timeline` (parsed JSON: the canonical parser's value, or plain), published at
 * `publishedAt` (RFC 3339). Refuses a timeline that breaks a chain rule (COMMITMENT_TIMELINE_BROKEN,
 * naming the codes). With `key` (Ed25519), adds the owner's signature.
 */
export function commitTimeline(timeline: unknown, publishedAt: string, key?: KeyObject): CommitmentResult {
  if (parseRfc3339(publishedAt) === null)
    throw new PreregError(
      'USAGE',
      `published_at must be an RFC 3339 date-time such as 2027-03-10T12:00:00Z, got ${JSON.stringify(publishedAt)}`,
    );
  const verified = verifyTimeline(timeline, indexCommitments([]), '9999-12-31T23:59:59Z');
  const broken = verified.reason_codes.filter(CHAIN);
  if (broken.length > 0 || verified.job_id === null || verified.final_entry_digest === null || verified.construction === null) {
    throw new PreregError(
      'COMMITMENT_TIMELINE_BROKEN',
      `the timeline breaks ${broken.join(', ') || 'CHAIN_MALFORMED'}${verified.problems.length > 0 ? ` (${verified.problems.slice(0, 3).join('; ')})` : ''}: a commitment to it would anchor nothing`,
      { codes: broken },
    );
  }
  const unsigned = {
    job_id: verified.job_id,
    final_entry_digest: verified.final_entry_digest,
    entry_count: verified.entry_count,
    published_at: publishedAt,
  };
  const commitment: PublishedCommitment = key === undefined ? unsigned : { ...unsigned, signature: signCanonical(key, unsigned) };
  // What a study reads back: the line is well-formed (the reader's own rules).
  const read = readCommitmentLine(commitment, { file: '<commitment>', line: 1, byte_offset: 0, line_sha256: '' });
  if (!read.ok) throw new Error(`commitTimeline built a malformed commitment: ${read.problems.join('; ')}`);
  return { commitment, construction: verified.construction, signed_by: key === undefined ? null : agentKeyText(key) };
}
