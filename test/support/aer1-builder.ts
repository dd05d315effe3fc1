// AER-1 timelines for the tests: the pipeline's builder (pipeline/dev/aer1-timeline.ts, written
// independently of the verifier), prereg's envelope where a revision is declared, the external
// commitments an honest owner publishes, and the attacks the verifier must catch. Every digest
// and link is recomputed by code, never a hand-edited hash. No mutation.
import type { ChainCommitment } from '../../pipeline/evidence/aer1/index.ts';
import {
  closeLast,
  digestsOf,
  entryOf,
  GENESIS_PREV,
  relink,
  timelineOf,
  type Construction,
  type ReceiptInput,
  type Timeline,
  type TimelineEntry,
} from '../../pipeline/dev/aer1-timeline.ts';
import { canonicalJson } from '../../pipeline/formats/canonical-json.ts';

export { digestsOf, entryDigest, GENESIS_PREV, outputCommitmentOf, relink } from '../../pipeline/dev/aer1-timeline.ts';
export type { Construction, ReceiptInput, Timeline, TimelineEntry } from '../../pipeline/dev/aer1-timeline.ts';

/** prereg's envelope, declaring the construction a timeline was built with. */
export interface Envelope {
  format: 'aer-1';
  revision: string;
  entries: TimelineEntry[];
  [extra: string]: unknown;
}

/** The commitment fields a test may want to set; the rest is computed from the timeline. */
export type CommitmentWitness = Partial<Pick<ChainCommitment, 'published_at' | 'witness' | 'retrieved_via' | 'retrieved_at' | 'job_id'>>;

export const DEFAULT_WITNESS = {
  published_at: '2026-11-15T12:00:00Z',
  witness: 'test-witness-log',
  retrieved_via: 'https://witness.example/aer1/commitments',
  retrieved_at: '2026-11-16T00:30:00Z',
} as const;

/** A valid timeline of the receipts, closed on its last entry, and the commitment to it. */
export function buildTimeline(opts: {
  job_id: string;
  receipts: readonly ReceiptInput[];
  construction?: Construction;
  witness?: CommitmentWitness;
}): { timeline: Timeline; commitment: ChainCommitment } {
  const construction = opts.construction ?? 'current';
  const timeline = timelineOf(opts.job_id, opts.receipts, construction);
  return { timeline, commitment: commitmentFor(timeline, construction, opts.witness) };
}

/** prereg's envelope around `entries`, declaring `revision`. */
export function envelope(revision: string, entries: Timeline): Envelope {
  return { format: 'aer-1', revision, entries };
}

/** The commitment an honest owner would publish for this timeline (entry 1's job id). */
export function commitmentFor(
  timeline: Timeline,
  construction: Construction = 'current',
  witness: CommitmentWitness = {},
): ChainCommitment {
  const digests = digestsOf(timeline, construction);
  return {
    job_id: timeline[0]?.job_id ?? '',
    final_entry_digest: digests[digests.length - 1] ?? GENESIS_PREV,
    entry_count: timeline.length,
    ...DEFAULT_WITNESS,
    ...witness,
  };
}

/** A raw edit of entry `index` (0-based), nothing recomputed; `undefined` removes a member. */
export function patchEntry(timeline: Timeline, index: number, patch: Record<string, unknown>): Timeline {
  if (!timeline[index]) throw new RangeError(`no entry ${index}`);
  return timeline.map((e, i) => {
    if (i !== index) return e;
    const out: Record<string, unknown> = { ...e, ...patch };
    for (const [k, v] of Object.entries(patch)) if (v === undefined) delete out[k];
    // An attack's entry need not have the entry's shape (a member removed, one of another type).
    return out as unknown as TimelineEntry;
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
  return relink(
    timeline.slice(k).map((e, i) => ({ ...e, seq: i + 1 })),
    construction,
    true,
  );
}

/** n distinct, deterministic tool calls (canonical JSON bytes), e.g. for a job. */
export function sampleReceipts(n: number, label = 'job', provenance_class = 'LOGGED BY AGENT'): ReceiptInput[] {
  return Array.from({ length: n }, (_, i) => {
    const tool = i % 2 === 0 ? 'search_corpus' : 'read_passage';
    return {
      tool,
      provenance_class,
      canonical_bytes: canonicalJson({ call: i + 1, job: label, tool, output: `${label} output ${i + 1}` }),
    };
  });
}
