import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CHAIN_CHECK_CODES,
  CHAIN_CHECKS,
  indexCommitments,
  validateCommitmentLine,
  verifyChain,
  type ChainCommitment,
  type ChainReasonCode,
  type ChainStatus,
} from '../../pipeline/evidence/aer1-chain.ts';
import { parseJson } from '../../pipeline/formats/canonical-json.ts';
import { REASONS } from '../../pipeline/reasons.ts';
import {
  buildChain,
  commitmentFor,
  cutHead,
  cutTail,
  digestsOf,
  patchEntry,
  relink,
  sampleReceipts,
  substituteLast,
  type Aer1Chain,
} from '../support/aer1-builder.ts';

const CLOSES_AT = '2026-11-16T00:00:00Z';
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

function honest(revision = '09', n = 8, job_id = 'job-1') {
  return buildChain({ revision, job_id, receipts: sampleReceipts(n, job_id) });
}

/** Re-commit to an edited chain, so that a row isolates one chain rule from the commitment. */
function committed(chain: Aer1Chain): Case {
  return { doc: chain, commitments: [commitmentFor(chain)] };
}

interface Case {
  doc: unknown;
  commitments: ChainCommitment[];
}
interface Row {
  name: string;
  make: () => Case;
  status: ChainStatus;
  codes: ChainReasonCode[];
}

const run = (c: Case) => verifyChain(c.doc, indexCommitments(c.commitments), CLOSES_AT);

const OTHER_RECEIPT = { tool: 'write_answer', provenance_class: 'LOGGED_BY_AGENT', canonical_bytes: '{"forged":true}', output_hash: 'sha256:' + sha256('forged') };

// One row per rule: the passing case, then each failing case, with the exact code set.
const rows: Row[] = [
  // valid chains
  ...['07', '08', '09'].map((revision): Row => ({
    name: `valid chain, revision ${revision}`,
    make: () => { const { chain, commitment } = honest(revision); return { doc: chain, commitments: [commitment] }; },
    status: 'ANCHORED', codes: [],
  })),
  { name: 'valid one-entry chain', make: () => { const { chain, commitment } = honest('09', 1); return { doc: chain, commitments: [commitment] }; }, status: 'ANCHORED', codes: [] },

  // empty
  { name: 'empty chain', make: () => ({ doc: { format: 'aer-1', revision: '09', entries: [] }, commitments: [] }), status: 'BROKEN', codes: ['CHAIN_EMPTY'] },

  // genesis
  {
    name: 'genesis prev_digest not zeros',
    make: () => committed(relink(patchEntry(honest().chain, 0, { prev_digest: sha256('not a genesis') }))),
    status: 'BROKEN', codes: ['CHAIN_GENESIS_INVALID'],
  },

  // seq
  {
    name: 'seq gap (…4, 6…)',
    make: () => { const c = honest().chain; return committed(relink({ ...c, entries: c.entries.map((e, i) => (i >= 4 ? { ...e, seq: i + 2 } : e)) })); },
    status: 'BROKEN', codes: ['CHAIN_SEQ_GAP'],
  },
  {
    name: 'seq repeat (…3, 3, 5…)',
    make: () => committed(relink(patchEntry(honest().chain, 3, { seq: 3 }))),
    status: 'BROKEN', codes: ['CHAIN_SEQ_GAP'],
  },
  {
    name: 'seq starts at 0',
    make: () => { const c = honest().chain; return committed(relink({ ...c, entries: c.entries.map((e, i) => ({ ...e, seq: i })) })); },
    status: 'BROKEN', codes: ['CHAIN_SEQ_GAP'],
  },

  // job
  {
    name: 'an entry of another job',
    make: () => committed(relink(patchEntry(honest().chain, 5, { job_id: 'job-2' }))),
    status: 'BROKEN', codes: ['CHAIN_JOB_MISMATCH'],
  },

  // close
  {
    name: 'close: false carried explicitly on a middle entry (allowed)',
    make: () => committed(relink(patchEntry(honest().chain, 3, { close: false }))),
    status: 'ANCHORED', codes: [],
  },
  {
    name: 'close: true on a middle entry',
    make: () => committed(relink(patchEntry(honest().chain, 3, { close: true }))),
    status: 'BROKEN', codes: ['CHAIN_CLOSE_MISPLACED'],
  },
  {
    name: 'close missing on the last entry',
    make: () => committed(relink(patchEntry(honest().chain, 7, { close: undefined }))),
    status: 'BROKEN', codes: ['CHAIN_CLOSE_MISPLACED'],
  },
  {
    name: 'close: false on the last entry',
    make: () => committed(relink(patchEntry(honest().chain, 7, { close: false }))),
    status: 'BROKEN', codes: ['CHAIN_CLOSE_MISPLACED'],
  },

  // receipt hash (canonical_bytes is not in the 07–09 digest: links and commitment still hold)
  {
    name: 'receipt bytes replaced, id kept',
    make: () => { const { chain, commitment } = honest(); return { doc: patchEntry(chain, 2, { canonical_bytes: Buffer.from('{"other":1}').toString('base64') }), commitments: [commitment] }; },
    status: 'BROKEN', codes: ['CHAIN_RECEIPT_HASH_MISMATCH'],
  },

  // links
  {
    name: 'a prev_digest pointing two entries back',
    make: () => { const c = honest().chain; return committed(patchEntry(c, 4, { prev_digest: digestsOf(c)[2] })); },
    status: 'BROKEN', codes: ['CHAIN_LINK_BROKEN'],
  },
  {
    name: 'metadata (tool) rewritten on a 09 chain breaks the next link',
    make: () => { const { chain, commitment } = honest(); return { doc: patchEntry(chain, 3, { tool: 'rewritten' }), commitments: [commitment] }; },
    status: 'BROKEN', codes: ['CHAIN_LINK_BROKEN'],
  },

  // revision
  ...['10', '05'].map((revision): Row => ({
    name: `unknown revision "${revision}"`,
    make: () => { const { chain, commitment } = honest(); return { doc: { ...chain, revision }, commitments: [commitment] }; },
    status: 'BROKEN', codes: ['CHAIN_REVISION_UNSUPPORTED'],
  })),

  // revision 06: verified, but its metadata is unbound
  { name: 'revision 06, valid', make: () => { const { chain, commitment } = honest('06'); return { doc: chain, commitments: [commitment] }; }, status: 'METADATA_UNBOUND', codes: [] },
  {
    name: 'revision 06, tool rewritten: no link breaks (the point of METADATA_UNBOUND)',
    make: () => { const { chain, commitment } = honest('06'); return { doc: patchEntry(chain, 3, { tool: 'rewritten', provenance_class: 'OBSERVED_BY_OPERATOR' }), commitments: [commitment] }; },
    status: 'METADATA_UNBOUND', codes: [],
  },
  {
    name: 'revision 06, broken link',
    make: () => { const { chain, commitment } = honest('06'); return { doc: patchEntry(chain, 4, { prev_digest: chain.entries[2]!.id }), commitments: [commitment] }; },
    status: 'BROKEN', codes: ['CHAIN_LINK_BROKEN'],
  },
  {
    name: 'revision 06, receipt bytes replaced',
    make: () => { const { chain, commitment } = honest('06'); return { doc: patchEntry(chain, 1, { canonical_bytes: Buffer.from('x').toString('base64') }), commitments: [commitment] }; },
    status: 'BROKEN', codes: ['CHAIN_RECEIPT_HASH_MISMATCH'],
  },
  {
    name: 'revision 06, no commitment: still METADATA_UNBOUND, the code reported',
    make: () => ({ doc: honest('06').chain, commitments: [] }),
    status: 'METADATA_UNBOUND', codes: ['COMMITMENT_MISSING'],
  },
  {
    name: 'revision 06, tail cut: still METADATA_UNBOUND, the codes reported',
    make: () => { const { chain, commitment } = honest('06'); return { doc: cutTail(chain, 6), commitments: [commitment] }; },
    status: 'METADATA_UNBOUND', codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },

  // commitments
  { name: 'no commitment', make: () => ({ doc: honest().chain, commitments: [] }), status: 'UNANCHORED', codes: ['COMMITMENT_MISSING'] },
  {
    name: 'only a commitment of another job',
    make: () => ({ doc: honest().chain, commitments: [honest('09', 8, 'job-2').commitment] }),
    status: 'UNANCHORED', codes: ['COMMITMENT_MISSING'],
  },
  {
    name: 'tail cut 8 → 6, re-closed and relinked',
    make: () => { const { chain, commitment } = honest(); return { doc: cutTail(chain, 6), commitments: [commitment] }; },
    status: 'UNANCHORED', codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },
  {
    name: 'last entry substituted (count unchanged)',
    make: () => { const { chain, commitment } = honest(); return { doc: substituteLast(chain, OTHER_RECEIPT), commitments: [commitment] }; },
    status: 'UNANCHORED', codes: ['COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },
  {
    name: 'head cut by 2, renumbered from 1, new genesis',
    make: () => { const { chain, commitment } = honest(); return { doc: cutHead(chain, 2), commitments: [commitment] }; },
    status: 'UNANCHORED', codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },
  {
    name: 'commitment embedded in the document, none external: ignored',
    make: () => { const { chain, commitment } = honest(); return { doc: { ...chain, commitment }, commitments: [] }; },
    status: 'UNANCHORED', codes: ['COMMITMENT_MISSING'],
  },
  {
    name: 'commitment embedded in the last entry, none external: ignored',
    make: () => { const { chain, commitment } = honest(); return { doc: patchEntry(chain, 7, { commitment }), commitments: [] }; },
    status: 'UNANCHORED', codes: ['COMMITMENT_MISSING'],
  },
  {
    name: 'commitment embedded in the document, matching external one',
    make: () => { const { chain, commitment } = honest(); return { doc: { ...chain, commitment }, commitments: [commitment] }; },
    status: 'ANCHORED', codes: [],
  },
  {
    name: 'tail cut carrying an embedded commitment to itself: the external one decides',
    make: () => {
      const { chain, commitment } = honest();
      const cut = cutTail(chain, 6);
      return { doc: { ...cut, commitment: commitmentFor(cut) }, commitments: [commitment] };
    },
    status: 'UNANCHORED', codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },
  {
    name: 'commitment published one millisecond before closes_at',
    make: () => { const c = honest().chain; return { doc: c, commitments: [commitmentFor(c, { published_at: '2026-11-15T23:59:59.999Z' })] }; },
    status: 'ANCHORED', codes: [],
  },
  {
    name: 'commitment published at closes_at',
    make: () => { const c = honest().chain; return { doc: c, commitments: [commitmentFor(c, { published_at: CLOSES_AT })] }; },
    status: 'UNANCHORED', codes: ['COMMITMENT_LATE'],
  },
  {
    name: 'commitment published at closes_at, written with a zero fraction',
    make: () => { const c = honest().chain; return { doc: c, commitments: [commitmentFor(c, { published_at: '2026-11-16T00:00:00.000Z' })] }; },
    status: 'UNANCHORED', codes: ['COMMITMENT_LATE'],
  },
  {
    name: 'commitment published after closes_at',
    make: () => { const c = honest().chain; return { doc: c, commitments: [commitmentFor(c, { published_at: '2026-11-20T09:00:00Z' })] }; },
    status: 'UNANCHORED', codes: ['COMMITMENT_LATE'],
  },
  {
    name: 'commitment whose published_at is not a timestamp counts as late',
    make: () => { const c = honest().chain; return { doc: c, commitments: [commitmentFor(c, { published_at: 'yesterday' })] }; },
    status: 'UNANCHORED', codes: ['COMMITMENT_LATE'],
  },

  // several failures at once, all reported
  {
    name: 'genesis, job, close, receipt hash, link broken + count, digest, late',
    make: () => {
      const { chain, commitment } = honest();
      let c = patchEntry(chain, 0, { prev_digest: sha256('x') });
      c = patchEntry(c, 2, { job_id: 'job-2', canonical_bytes: Buffer.from('y').toString('base64') });
      c = patchEntry(c, 4, { close: true });
      c = patchEntry(c, 6, { prev_digest: sha256('z') });
      c = { ...c, entries: c.entries.slice(0, 7) }; // last entry dropped: no close on the new last
      return { doc: c, commitments: [{ ...commitment, published_at: '2026-12-01T00:00:00Z' }] };
    },
    status: 'BROKEN',
    codes: [
      'CHAIN_CLOSE_MISPLACED', 'CHAIN_GENESIS_INVALID', 'CHAIN_JOB_MISMATCH', 'CHAIN_LINK_BROKEN', 'CHAIN_RECEIPT_HASH_MISMATCH',
      'COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH', 'COMMITMENT_LATE',
    ],
  },
];

// Structural problems: CHAIN_MALFORMED (with whatever else can still be decided).
const valid = () => honest();
const malformedRows: Row[] = [
  ...([null, 'aer-1', 42, [], true] as unknown[]).map((doc): Row => ({
    name: `document ${JSON.stringify(doc)}`, make: () => ({ doc, commitments: [] }), status: 'BROKEN', codes: ['CHAIN_MALFORMED'],
  })),
  { name: 'format "aer-2"', make: () => { const { chain, commitment } = valid(); return { doc: { ...chain, format: 'aer-2' }, commitments: [commitment] }; }, status: 'BROKEN', codes: ['CHAIN_MALFORMED'] },
  { name: 'format missing', make: () => { const { chain, commitment } = valid(); const { format: _f, ...doc } = chain; return { doc, commitments: [commitment] }; }, status: 'BROKEN', codes: ['CHAIN_MALFORMED'] },
  { name: 'revision a number', make: () => ({ doc: { ...valid().chain, revision: 9 }, commitments: [] }), status: 'BROKEN', codes: ['CHAIN_MALFORMED'] },
  { name: 'revision missing', make: () => { const { revision: _r, ...doc } = valid().chain; return { doc, commitments: [] }; }, status: 'BROKEN', codes: ['CHAIN_MALFORMED'] },
  { name: 'entries missing', make: () => ({ doc: { format: 'aer-1', revision: '09' }, commitments: [] }), status: 'BROKEN', codes: ['CHAIN_MALFORMED'] },
  { name: 'entries an object', make: () => ({ doc: { format: 'aer-1', revision: '09', entries: {} }, commitments: [] }), status: 'BROKEN', codes: ['CHAIN_MALFORMED'] },
  { name: 'format wrong and entries empty', make: () => ({ doc: { format: 'x', revision: '09', entries: [] }, commitments: [] }), status: 'BROKEN', codes: ['CHAIN_EMPTY', 'CHAIN_MALFORMED'] },
  {
    name: 'an entry that is not an object (link from it undecided)',
    make: () => { const { chain, commitment } = valid(); return { doc: { ...chain, entries: chain.entries.map((e, i) => (i === 3 ? 'entry' : e)) }, commitments: [commitment] }; },
    status: 'BROKEN', codes: ['CHAIN_MALFORMED'],
  },
  ...([
    ['prev_digest missing', 4, { prev_digest: undefined }],
    ['prev_digest upper-case hex', 4, { prev_digest: 'A'.repeat(64) }],
    ['prev_digest 63 hex digits', 4, { prev_digest: 'a'.repeat(63) }],
    ['id with a sha256: prefix', 2, { id: 'sha256:' + 'a'.repeat(64) }],
    ['seq a string', 2, { seq: '3' }],
    ['seq 2.5', 2, { seq: 2.5 }],
    ['seq null', 2, { seq: null }],
    ['job_id a number', 2, { job_id: 7 }],
    ['job_id empty', 2, { job_id: '' }],
    ['tool missing', 2, { tool: undefined }],
    ['provenance_class null', 2, { provenance_class: null }],
    ['output_hash an object', 2, { output_hash: {} }],
    ['canonical_bytes not base64', 2, { canonical_bytes: '!!not base64!!' }],
    ['canonical_bytes unpadded', 2, { canonical_bytes: 'eyJ4IjoxfQ' }],
    ['canonical_bytes url-safe alphabet', 2, { canonical_bytes: '-_-_' }],
    ['canonical_bytes a byte array', 2, { canonical_bytes: [1, 2, 3] }],
    ['close the string "true"', 7, { close: 'true' }],
    ['close null', 7, { close: null }],
  ] as const).map(([name, index, patch]): Row => ({
    name: `entry field: ${name}`,
    make: () => { const { chain, commitment } = valid(); return { doc: patchEntry(chain, index, patch), commitments: [commitment] }; },
    status: 'BROKEN', codes: ['CHAIN_MALFORMED'],
  })),
];

describe('verifyChain: one row per rule', () => {
  it.each([...rows, ...malformedRows])('$name → $status $codes', (row) => {
    const r = run(row.make());
    expect({ status: r.status, codes: r.codes }).toEqual({ status: row.status, codes: row.codes });
    expect(r.codes).toEqual([...new Set(r.codes)].sort());
    // Each failed check reports its code and each code comes from a failed check.
    const failed = CHAIN_CHECKS.filter((c) => r.checks[c] === 'fail');
    expect(failed.includes('structure')).toBe(r.codes.includes('CHAIN_MALFORMED') || r.codes.includes('CHAIN_EMPTY'));
    expect(r.codes.filter((c) => c !== 'CHAIN_MALFORMED' && c !== 'CHAIN_EMPTY'))
      .toEqual(failed.filter((c) => c !== 'structure').map((c) => CHAIN_CHECK_CODES[c]).sort());
  });

  it('every code it can report is in the reason catalogue', () => {
    const all = [...rows, ...malformedRows].flatMap((row) => row.codes);
    for (const code of new Set(all)) expect(REASONS).toHaveProperty(code);
  });
});

describe('verifyChain: what it records', () => {
  it('reports every check, the recomputed digests and the matched commitment of a valid chain', () => {
    const { chain, commitment } = honest('09', 8);
    const r = run({ doc: chain, commitments: [commitment] });
    expect(Object.keys(r.checks)).toEqual([...CHAIN_CHECKS]);
    expect(Object.values(r.checks).every((o) => o === 'pass')).toBe(true);
    expect(r).toMatchObject({ revision: '09', job_id: 'job-1', entry_count: 8, final_entry_digest: commitment.final_entry_digest, commitment, problems: [] });
    expect(r.entries.map((e) => e.digest)).toEqual(digestsOf(chain));
    expect(r.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(r.entries[0]).toMatchObject({ id: chain.entries[0]!.id, tool: 'search_corpus', provenance_class: 'LOGGED_BY_AGENT', output_hash: chain.entries[0]!.output_hash });
    expect(r.provenance_classes).toEqual(['LOGGED_BY_AGENT']);
  });

  it('computes the 07–09 entry digest over the canonical JSON of exactly the eight fields', () => {
    // Written out by hand: Python's json.dumps(sort_keys=True, separators=(",", ":")) with
    // ensure_ascii (é → \u00e9), close false when the entry does not carry it.
    const bytes = Buffer.from('{"receipt":1}');
    const id = createHash('sha256').update(bytes).digest('hex');
    const entry = { prev_digest: '0'.repeat(64), seq: 1, job_id: 'j', id, tool: 'recherche_é', provenance_class: 'P', canonical_bytes: bytes.toString('base64'), output_hash: 'o' };
    const text = `{"close":false,"id":"${id}","job_id":"j","output_hash":"o","prev_digest":"${'0'.repeat(64)}","provenance_class":"P","seq":1,"tool":"recherche_\\u00e9"}`;
    const digest1 = sha256(text);
    const closing = { ...entry, seq: 2, prev_digest: digest1, close: true };
    const r = verifyChain({ format: 'aer-1', revision: '07', entries: [entry, closing] }, indexCommitments([]), CLOSES_AT);
    expect(r.codes).toEqual(['COMMITMENT_MISSING']);
    expect(r.entries[0]!.digest).toBe(digest1);
    expect(r.entries[1]!.digest).toBe(sha256(text.replace('"close":false', '"close":true').replace(`"prev_digest":"${'0'.repeat(64)}"`, `"prev_digest":"${digest1}"`).replace('"seq":1', '"seq":2')));
  });

  it('revision 06: the entry digest is the id', () => {
    const { chain } = honest('06', 3);
    const r = run({ doc: chain, commitments: [] });
    expect(r.entries.map((e) => e.digest)).toEqual(chain.entries.map((e) => e.id));
    expect(r.final_entry_digest).toBe(chain.entries[2]!.id);
  });

  it('gives the same result for the parsed JsonValue (JsonNumber seq, null-prototype objects) as for plain JS', () => {
    const { chain, commitment } = honest('08', 5);
    const plain = run({ doc: chain, commitments: [commitment] });
    const parsed = run({ doc: parseJson(JSON.stringify({ ...chain, commitment })), commitments: [commitment] });
    expect(parsed).toEqual(plain);
    expect(parsed.status).toBe('ANCHORED');
  });

  it('a JsonNumber seq written as a float (1.0) is malformed, as Python would read a float', () => {
    const { chain, commitment } = honest('09', 2);
    const text = JSON.stringify(chain).replace('"seq":1,', '"seq":1.0,');
    expect(run({ doc: parseJson(text), commitments: [commitment] }).codes).toEqual(['CHAIN_MALFORMED']);
  });

  it('an unknown revision evaluates no further rule', () => {
    const r = run({ doc: { ...honest().chain, revision: '10' }, commitments: [honest().commitment] });
    expect(r.checks).toMatchObject({ structure: 'pass', revision: 'fail', genesis: 'skipped', links: 'skipped', commitment_found: 'skipped' });
    expect(r).toMatchObject({ revision: '10', job_id: null, entry_count: 8, entries: [], commitment: null });
  });

  it('a missing commitment skips the comparisons; an empty chain skips the commitment', () => {
    const missing = run({ doc: honest().chain, commitments: [] });
    expect(missing.checks).toMatchObject({ commitment_found: 'fail', commitment_count: 'skipped', commitment_final_digest: 'skipped', commitment_timely: 'skipped' });
    const empty = run({ doc: { format: 'aer-1', revision: '09', entries: [] }, commitments: [] });
    expect(empty.checks).toMatchObject({ structure: 'fail', genesis: 'skipped', seq: 'skipped', commitment_found: 'skipped' });
    expect(empty).toMatchObject({ job_id: null, final_entry_digest: null, entries: [] });
  });

  it('a malformed entry leaves the rules it cannot feed undecided, and still reports the others', () => {
    const { chain, commitment } = honest();
    const doc = patchEntry(patchEntry(chain, 3, { prev_digest: 'bad' }), 6, { job_id: 'job-9' });
    const r = run({ doc, commitments: [commitment] });
    expect(r.codes).toEqual(['CHAIN_JOB_MISMATCH', 'CHAIN_LINK_BROKEN', 'CHAIN_MALFORMED']);
    expect(r.checks).toMatchObject({ structure: 'fail', job: 'fail', seq: 'pass', links: 'fail' });
    expect(r.entries).toEqual([]);
    expect(r.problems.some((p) => p.includes('entries[3].prev_digest'))).toBe(true);
  });

  it('reports the tail cut by its count, and the substitution by its final digest only', () => {
    const { chain, commitment } = honest('09', 8);
    const cut = run({ doc: cutTail(chain, 6), commitments: [commitment] });
    expect(cut.codes).toContain('COMMITMENT_COUNT_MISMATCH');
    expect(cut.checks).toMatchObject({ genesis: 'pass', seq: 'pass', close: 'pass', links: 'pass', commitment_count: 'fail' });
    expect(cut.entry_count).toBe(6);
    const swapped = run({ doc: substituteLast(chain, OTHER_RECEIPT), commitments: [commitment] });
    expect(swapped.checks).toMatchObject({ commitment_count: 'pass', commitment_final_digest: 'fail', links: 'pass' });
    const head = run({ doc: cutHead(chain, 2), commitments: [commitment] });
    expect(head.checks).toMatchObject({ genesis: 'pass', seq: 'pass', links: 'pass' });
  });

  it('several candidates: the one matching everything, else the digest, else the first', () => {
    const { chain, commitment } = honest();
    const wrong = { ...commitment, final_entry_digest: sha256('wrong'), entry_count: 3 };
    const late = { ...commitment, published_at: '2026-12-01T00:00:00Z' };
    const r1 = run({ doc: chain, commitments: [wrong, late, commitment] });
    expect(r1).toMatchObject({ status: 'ANCHORED', commitment });
    const r2 = run({ doc: chain, commitments: [wrong, late] });
    expect(r2).toMatchObject({ status: 'UNANCHORED', codes: ['COMMITMENT_LATE'], commitment: late });
    const wrong2 = { ...wrong, witness: 'second' };
    const r3 = run({ doc: chain, commitments: [wrong, wrong2] });
    expect(r3).toMatchObject({ codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'], commitment: wrong });
  });

  it('reports provenance classes, never trusting them', () => {
    const receipts = sampleReceipts(3).map((r, i) => ({ ...r, provenance_class: i === 1 ? 'OBSERVED_BY_OPERATOR' : 'LOGGED_BY_AGENT' }));
    const { chain, commitment } = buildChain({ revision: '09', job_id: 'j', receipts });
    const r = run({ doc: chain, commitments: [commitment] });
    expect(r.provenance_classes).toEqual(['LOGGED_BY_AGENT', 'OBSERVED_BY_OPERATOR']);
  });

  it('throws for a closesAt that is not an ISO-8601 UTC timestamp (a caller bug)', () => {
    expect(() => verifyChain(honest().chain, indexCommitments([]), '2026-11-16')).toThrow(TypeError);
  });
});

describe('commitments', () => {
  const good = honest().commitment;

  it('indexes by job id, keeping file order', () => {
    const other = honest('09', 2, 'job-2').commitment;
    const again = { ...good, witness: 'second' };
    const index = indexCommitments([good, other, again]);
    expect(index.get('job-1')).toEqual([good, again]);
    expect(index.get('job-2')).toEqual([other]);
    expect(index.get('job-3')).toBeUndefined();
  });

  it.each<[string, unknown, number]>([
    ['a valid line', good, 0],
    ['a valid line as a parsed JsonValue', parseJson(JSON.stringify(good)), 0],
    ['a fractional published_at', { ...good, published_at: '2026-11-15T12:00:00.123456Z' }, 0],
    ['not an object', [good], 1],
    ['job_id missing', { ...good, job_id: undefined }, 1],
    ['job_id empty', { ...good, job_id: '' }, 1],
    ['final_entry_digest with a prefix', { ...good, final_entry_digest: 'sha256:' + good.final_entry_digest }, 1],
    ['entry_count 0', { ...good, entry_count: 0 }, 1],
    ['entry_count 2.5', { ...good, entry_count: 2.5 }, 1],
    ['entry_count a string', { ...good, entry_count: '8' }, 1],
    ['published_at with an offset', { ...good, published_at: '2026-11-15T12:00:00+01:00' }, 1],
    ['published_at 30 February', { ...good, published_at: '2026-02-30T12:00:00Z' }, 1],
    ['published_at hour 24', { ...good, published_at: '2026-11-15T24:00:00Z' }, 1],
    ['retrieved_at missing', { ...good, retrieved_at: undefined }, 1],
    ['witness empty', { ...good, witness: '' }, 1],
    ['retrieved_via a number', { ...good, retrieved_via: 3 }, 1],
    ['an unknown field', { ...good, publised_at: good.published_at }, 1],
    ['two problems', { ...good, entry_count: -1, witness: null }, 2],
  ])('%s', (_name, value, count) => {
    const clean = value !== null && typeof value === 'object' && !Array.isArray(value) && !(Object.getPrototypeOf(value) === null)
      ? Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined))
      : value;
    const problems = validateCommitmentLine(clean);
    expect(problems, problems.join('; ')).toHaveLength(count);
  });
});
