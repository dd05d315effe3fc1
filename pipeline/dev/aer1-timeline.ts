// Builds AER-1 timelines in the shape draft-zambo-aer1-09 writes them — bare JSON arrays of
// entries {id, seq, job_id, tool, provenance_class, canonical_bytes, prev_digest, close?} — for
// the rehearsal's `prereg dev issue` (a TEST-ONLY timeline of the call it serves), the tests and
// the script that rebuilds the example study. Every digest and link is computed by code.
//
// The entry digest is written out here on purpose rather than imported from the verifier
// (pipeline/evidence/aer1/entry.ts), so a mistake in one does not hide in the other; the
// reference's own vectors (test/fixtures/real/aer1) check both. Returns new values (no mutation).
import { createHash } from 'node:crypto';
import { canonicalJson } from '../formats/canonical-json.ts';

export const GENESIS_PREV = '0'.repeat(64);

/** What one tool call leaves: its tool, its provenance class and its canonical output bytes. */
export interface ReceiptInput {
  tool: string;
  provenance_class: string;
  /** The call's canonical bytes; a string is taken as UTF-8 text. */
  canonical_bytes: Buffer | string;
}

export interface TimelineEntry {
  id: string;
  seq: number;
  job_id: string;
  tool: string;
  provenance_class: string;
  /** base64 of the call's canonical bytes */
  canonical_bytes: string;
  prev_digest: string;
  close?: boolean;
}

/** A timeline as the draft writes it: a bare array. */
export type Timeline = TimelineEntry[];

/** -07/-08/-09 ("current") or -06: how entry digests are computed. */
export type Construction = 'current' | '06';

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** SHA-256 (hex) of the entry's decoded canonical_bytes. */
export function outputCommitmentOf(e: TimelineEntry): string {
  return sha256(Buffer.from(e.canonical_bytes, 'base64'));
}

/**
 * The entry digest. Current: SHA-256 of the canonical JSON of {close, id, job_id, output_hash,
 * prev_digest, provenance_class, seq, tool}, output_hash the output commitment, close false when
 * absent. 06: SHA-256 of the decoded bytes alone.
 */
export function entryDigest(e: TimelineEntry, construction: Construction = 'current'): string {
  if (construction === '06') return outputCommitmentOf(e);
  return sha256(
    canonicalJson({
      close: e.close ?? false,
      id: e.id,
      job_id: e.job_id,
      output_hash: outputCommitmentOf(e),
      prev_digest: e.prev_digest,
      provenance_class: e.provenance_class,
      seq: e.seq,
      tool: e.tool,
    }),
  );
}

/** A valid timeline of the receipts, closed on its last entry. */
export function timelineOf(job_id: string, receipts: readonly ReceiptInput[], construction: Construction = 'current'): Timeline {
  return relink(closeLast(receipts.map((r, i) => entryOf(r, job_id, i + 1))), construction, true);
}

/** The recomputed digest of every entry, in order. */
export function digestsOf(timeline: Timeline, construction: Construction = 'current'): string[] {
  return timeline.map((e) => entryDigest(e, construction));
}

/**
 * Recompute each entry's prev_digest from the entry before it, in order (entry 1's is set to
 * 64 zeros only with `genesis`). seq, job_id and close are left as they are.
 */
export function relink(timeline: Timeline, construction: Construction = 'current', genesis = false): Timeline {
  const out: Timeline = [];
  let prev: string | null = null;
  for (const [i, e] of timeline.entries()) {
    const linked: TimelineEntry = { ...e, prev_digest: i === 0 ? (genesis ? GENESIS_PREV : e.prev_digest) : prev! };
    out.push(linked);
    prev = entryDigest(linked, construction);
  }
  return out;
}

/** Entry `seq` of job `job_id` for one call, not yet linked (relink sets prev_digest). */
export function entryOf(r: ReceiptInput, job_id: string, seq: number): TimelineEntry {
  const bytes = typeof r.canonical_bytes === 'string' ? Buffer.from(r.canonical_bytes, 'utf8') : r.canonical_bytes;
  return {
    id: `r-${job_id}-${seq - 1}`, // the conformance kit's naming: an identifier, not a hash
    seq,
    job_id,
    tool: r.tool,
    provenance_class: r.provenance_class,
    canonical_bytes: bytes.toString('base64'),
    prev_digest: GENESIS_PREV, // set by relink
  };
}

/** Exactly the last entry carries close: true; the others carry no close member. */
export function closeLast(entries: readonly TimelineEntry[]): TimelineEntry[] {
  return entries.map((e, i) => {
    const { close: _close, ...rest } = e;
    return i === entries.length - 1 ? { ...rest, close: true } : (rest as TimelineEntry);
  });
}
