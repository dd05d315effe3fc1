// Builds AER-1 chain documents (SPEC §5.2) and their external commitments for tests and for the
// example study's generated submissions, and the attacks the verifier must catch. Every digest
// and link is recomputed here by code — never a hand-edited hash.
//
// The entry digest is written out here on purpose rather than imported from the verifier, so a
// mistake in one does not hide in the other. All helpers return new documents (no mutation).
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../pipeline/formats/canonical-json.ts';
import type { ChainCommitment } from '../../pipeline/evidence/aer1-chain.ts';

export const GENESIS_PREV = '0'.repeat(64);

export interface ReceiptInput {
  tool: string;
  provenance_class: string;
  /** The receipt's canonical bytes; a string is taken as UTF-8 text. */
  canonical_bytes: Buffer | string;
  output_hash: string;
}

export interface Aer1Entry {
  prev_digest: string;
  seq: number;
  job_id: string;
  id: string;
  tool: string;
  provenance_class: string;
  /** base64 of the receipt's canonical bytes */
  canonical_bytes: string;
  output_hash: string;
  close?: boolean;
  [extra: string]: unknown;
}

export interface Aer1Chain {
  format: 'aer-1';
  revision: string;
  entries: Aer1Entry[];
  [extra: string]: unknown;
}

/** The commitment fields a test may want to set; the rest is computed from the chain. */
export type CommitmentWitness = Partial<Pick<ChainCommitment, 'published_at' | 'witness' | 'retrieved_via' | 'retrieved_at' | 'job_id'>>;

export const DEFAULT_WITNESS = {
  published_at: '2026-11-15T12:00:00Z',
  witness: 'test-witness-log',
  retrieved_via: 'https://witness.example/aer1/commitments',
  retrieved_at: '2026-11-16T00:30:00Z',
} as const;

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/**
 * The entry digest. Revisions 07–09: SHA-256 of the canonical JSON of
 * {close, id, job_id, output_hash, prev_digest, provenance_class, seq, tool} (close false when
 * absent). Revision 06: the id (the digest covered only the receipt's bytes).
 */
export function entryDigest(revision: string, e: Aer1Entry): string {
  if (revision === '06') return e.id;
  return sha256(canonicalJson({
    close: e.close ?? false, id: e.id, job_id: e.job_id, output_hash: e.output_hash,
    prev_digest: e.prev_digest, provenance_class: e.provenance_class, seq: e.seq, tool: e.tool,
  }));
}

/** A valid chain of the receipts, closed on its last entry, and the commitment to it. */
export function buildChain(opts: {
  revision: string;
  job_id: string;
  receipts: readonly ReceiptInput[];
  witness?: CommitmentWitness;
}): { chain: Aer1Chain; commitment: ChainCommitment } {
  const entries = opts.receipts.map((r, i) => entryOf(r, opts.job_id, i + 1));
  const chain = relink({ format: 'aer-1', revision: opts.revision, entries: closeLast(entries) }, true);
  return { chain, commitment: commitmentFor(chain, opts.witness) };
}

/** The commitment an honest owner would publish for this chain (entry 1's job id). */
export function commitmentFor(chain: Aer1Chain, witness: CommitmentWitness = {}): ChainCommitment {
  const entries = chain.entries;
  const last = entries[entries.length - 1];
  return {
    job_id: entries[0]?.job_id ?? '',
    final_entry_digest: last ? digestsOf(chain)[entries.length - 1]! : GENESIS_PREV,
    entry_count: entries.length,
    ...DEFAULT_WITNESS,
    ...witness,
  };
}

/** The recomputed digest of every entry, in order. */
export function digestsOf(chain: Aer1Chain): string[] {
  return chain.entries.map((e) => entryDigest(chain.revision, e));
}

/**
 * Recompute each entry's prev_digest from the entry before it, in order (entry 1's is set to
 * 64 zeros only with `genesis`). seq, job_id and close are left as they are.
 */
export function relink(chain: Aer1Chain, genesis = false): Aer1Chain {
  const entries: Aer1Entry[] = [];
  let prev: string | null = null;
  for (const [i, e] of chain.entries.entries()) {
    const linked: Aer1Entry = { ...e, prev_digest: i === 0 ? (genesis ? GENESIS_PREV : e.prev_digest) : prev! };
    entries.push(linked);
    prev = entryDigest(chain.revision, linked);
  }
  return { ...chain, entries };
}

/** A raw edit of entry `index` (0-based), nothing recomputed; `undefined` removes a field. */
export function patchEntry(chain: Aer1Chain, index: number, patch: Record<string, unknown>): Aer1Chain {
  if (!chain.entries[index]) throw new RangeError(`no entry ${index}`);
  const entries = chain.entries.map((e, i) => {
    if (i !== index) return e;
    const out: Record<string, unknown> = { ...e, ...patch };
    for (const [k, v] of Object.entries(patch)) if (v === undefined) delete out[k];
    return out as Aer1Entry;
  });
  return { ...chain, entries };
}

/** Attack: keep the first n entries, close the new last one, recompute — internally valid. */
export function cutTail(chain: Aer1Chain, n: number): Aer1Chain {
  if (n < 1 || n > chain.entries.length) throw new RangeError(`cannot keep ${n} of ${chain.entries.length} entries`);
  return relink({ ...chain, entries: closeLast(chain.entries.slice(0, n)) });
}

/** Attack: replace the last entry by another receipt, recompute — the count is unchanged. */
export function substituteLast(chain: Aer1Chain, receipt: ReceiptInput): Aer1Chain {
  const last = chain.entries[chain.entries.length - 1];
  if (!last) throw new RangeError('empty chain');
  const entries = [...chain.entries.slice(0, -1), entryOf(receipt, last.job_id, last.seq)];
  return relink({ ...chain, entries: closeLast(entries) });
}

/** Attack: drop the k first entries, renumber from 1, make entry 1 a genesis, relink. */
export function cutHead(chain: Aer1Chain, k: number): Aer1Chain {
  if (k < 0 || k >= chain.entries.length) throw new RangeError(`cannot drop ${k} of ${chain.entries.length} entries`);
  const entries = chain.entries.slice(k).map((e, i) => ({ ...e, seq: i + 1 }));
  return relink({ ...chain, entries }, true);
}

/** n distinct, deterministic receipts (canonical JSON bytes), e.g. for a job's tool calls. */
export function sampleReceipts(n: number, label = 'job', provenance_class = 'LOGGED_BY_AGENT'): ReceiptInput[] {
  return Array.from({ length: n }, (_, i) => {
    const output = `${label} output ${i + 1}`;
    const tool = i % 2 === 0 ? 'search_corpus' : 'read_passage';
    return {
      tool,
      provenance_class,
      canonical_bytes: canonicalJson({ call: i + 1, job: label, tool, output_hash: `sha256:${sha256(output)}` }),
      output_hash: `sha256:${sha256(output)}`,
    };
  });
}

function entryOf(r: ReceiptInput, job_id: string, seq: number): Aer1Entry {
  const bytes = typeof r.canonical_bytes === 'string' ? Buffer.from(r.canonical_bytes, 'utf8') : r.canonical_bytes;
  return {
    prev_digest: GENESIS_PREV, // set by relink
    seq,
    job_id,
    id: sha256(bytes),
    tool: r.tool,
    provenance_class: r.provenance_class,
    canonical_bytes: bytes.toString('base64'),
    output_hash: r.output_hash,
  };
}

/** Exactly the last entry carries close: true; the others carry no close key. */
function closeLast(entries: readonly Aer1Entry[]): Aer1Entry[] {
  return entries.map((e, i) => {
    const { close: _close, ...rest } = e;
    return i === entries.length - 1 ? { ...rest, close: true } : (rest as Aer1Entry);
  });
}
