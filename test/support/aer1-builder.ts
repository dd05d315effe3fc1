// Builds AER-1 timelines in the shape draft-zambo-aer1-09 writes them — bare JSON arrays of
// entries {id, seq, job_id, tool, provenance_class, canonical_bytes, prev_digest, close?}, with
// prereg's envelope only where a revision is declared — their external commitments, and the
// attacks the verifier must catch. Every digest and link is recomputed here by code, never a
// hand-edited hash; the reference's own vectors (test/fixtures/real/aer1) check this code.
//
// The entry digest is written out here on purpose rather than imported from the verifier, so a
// mistake in one does not hide in the other. All helpers return new values (no mutation).
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../pipeline/formats/canonical-json.ts';
import type { ChainCommitment } from '../../pipeline/evidence/aer1/index.ts';

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
  [extra: string]: unknown;
}

/** A timeline as the draft writes it: a bare array. */
export type Timeline = TimelineEntry[];

/** prereg's envelope, declaring the construction a timeline was built with. */
export interface Envelope {
  format: 'aer-1';
  revision: string;
  entries: TimelineEntry[];
  [extra: string]: unknown;
}

/** -07/-08/-09 ("current") or -06: how entry digests are computed. */
export type Construction = 'current' | '06';

/** The commitment fields a test may want to set; the rest is computed from the timeline. */
export type CommitmentWitness = Partial<Pick<ChainCommitment, 'published_at' | 'witness' | 'retrieved_via' | 'retrieved_at' | 'job_id'>>;

export const DEFAULT_WITNESS = {
  published_at: '2026-11-15T12:00:00Z',
  witness: 'test-witness-log',
  retrieved_via: 'https://witness.example/aer1/commitments',
  retrieved_at: '2026-11-16T00:30:00Z',
} as const;

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
  return sha256(canonicalJson({
    close: e.close ?? false, id: e.id, job_id: e.job_id, output_hash: outputCommitmentOf(e),
    prev_digest: e.prev_digest, provenance_class: e.provenance_class, seq: e.seq, tool: e.tool,
  }));
}

/** A valid timeline of the receipts, closed on its last entry, and the commitment to it. */
export function buildTimeline(opts: {
  job_id: string;
  receipts: readonly ReceiptInput[];
  construction?: Construction;
  witness?: CommitmentWitness;
}): { timeline: Timeline; commitment: ChainCommitment } {
  const construction = opts.construction ?? 'current';
  const entries = opts.receipts.map((r, i) => entryOf(r, opts.job_id, i + 1));
  const timeline = relink(closeLast(entries), construction, true);
  return { timeline, commitment: commitmentFor(timeline, construction, opts.witness) };
}

/** prereg's envelope around `entries`, declaring `revision`. */
export function envelope(revision: string, entries: Timeline): Envelope {
  return { format: 'aer-1', revision, entries };
}

/** The commitment an honest owner would publish for this timeline (entry 1's job id). */
export function commitmentFor(timeline: Timeline, construction: Construction = 'current', witness: CommitmentWitness = {}): ChainCommitment {
  const digests = digestsOf(timeline, construction);
  return {
    job_id: timeline[0]?.job_id ?? '',
    final_entry_digest: digests[digests.length - 1] ?? GENESIS_PREV,
    entry_count: timeline.length,
    ...DEFAULT_WITNESS,
    ...witness,
  };
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

/** A raw edit of entry `index` (0-based), nothing recomputed; `undefined` removes a member. */
export function patchEntry(timeline: Timeline, index: number, patch: Record<string, unknown>): Timeline {
  if (!timeline[index]) throw new RangeError(`no entry ${index}`);
  return timeline.map((e, i) => {
    if (i !== index) return e;
    const out: Record<string, unknown> = { ...e, ...patch };
    for (const [k, v] of Object.entries(patch)) if (v === undefined) delete out[k];
    return out as TimelineEntry;
  });
}

/** Attack: keep the first n entries, close the new last one, relink — internally valid. */
export function cutTail(timeline: Timeline, n: number, construction: Construction = 'current'): Timeline {
  if (n < 1 || n > timeline.length) throw new RangeError(`cannot keep ${n} of ${timeline.length} entries`);
  return relink(closeLast(timeline.slice(0, n)), construction);
}

/** Attack: replace the last entry by another call, relink — the count is unchanged. */
export function substituteLast(timeline: Timeline, receipt: ReceiptInput, construction: Construction = 'current'): Timeline {
  const last = timeline[timeline.length - 1];
  if (!last) throw new RangeError('empty timeline');
  return relink(closeLast([...timeline.slice(0, -1), entryOf(receipt, last.job_id, last.seq)]), construction);
}

/** Attack: drop the k first entries, renumber from 1, make entry 1 a genesis, relink. */
export function cutHead(timeline: Timeline, k: number, construction: Construction = 'current'): Timeline {
  if (k < 0 || k >= timeline.length) throw new RangeError(`cannot drop ${k} of ${timeline.length} entries`);
  return relink(timeline.slice(k).map((e, i) => ({ ...e, seq: i + 1 })), construction, true);
}

/** n distinct, deterministic tool calls (canonical JSON bytes), e.g. for a job. */
export function sampleReceipts(n: number, label = 'job', provenance_class = 'LOGGED BY AGENT'): ReceiptInput[] {
  return Array.from({ length: n }, (_, i) => {
    const tool = i % 2 === 0 ? 'search_corpus' : 'read_passage';
    return { tool, provenance_class, canonical_bytes: canonicalJson({ call: i + 1, job: label, tool, output: `${label} output ${i + 1}` }) };
  });
}

function entryOf(r: ReceiptInput, job_id: string, seq: number): TimelineEntry {
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
function closeLast(entries: readonly TimelineEntry[]): TimelineEntry[] {
  return entries.map((e, i) => {
    const { close: _close, ...rest } = e;
    return i === entries.length - 1 ? { ...rest, close: true } : (rest as TimelineEntry);
  });
}
