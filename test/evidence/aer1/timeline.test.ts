// verifyTimeline: one row per rule (a passing and a failing case, each with its exact codes), then
// what it records. Timelines are minted by test/support/aer1-builder.ts, whose digest code is its
// own (and is checked against the reference's vectors in vectors.test.ts).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  indexCommitments,
  TIMELINE_CHECK_CODES,
  TIMELINE_CHECKS,
  verifyTimeline,
  type TimelineReasonCode,
  type TimelineStatus,
} from '../../../pipeline/evidence/aer1/index.ts';
import { parseJson } from '../../../pipeline/formats/canonical-json.ts';
import { REASONS } from '../../../pipeline/reasons.ts';
import {
  buildTimeline,
  commitmentFor,
  cutHead,
  cutTail,
  digestsOf,
  envelope,
  patchEntry,
  relink,
  sampleReceipts,
  substituteLast,
  type Construction,
  type Timeline,
} from '../../support/aer1-builder.ts';
import { CLOSES_AT, commitmentIndex, commitmentLines } from './helpers.ts';

const sha256 = (s: string | Uint8Array) => createHash('sha256').update(s).digest('hex');

function honest(n = 8, job_id = 'job-1', construction: Construction = 'current') {
  return buildTimeline({ job_id, receipts: sampleReceipts(n, job_id), construction });
}

interface Case {
  doc: unknown;
  /** Commitment lines, as objects or raw JSON text. */
  commitments: unknown[];
}
interface Row {
  name: string;
  make: () => Case;
  status: TimelineStatus;
  reason_codes: TimelineReasonCode[];
}

/** Re-commit to an edited timeline, so that a row isolates one rule from the commitment. */
const committed = (t: Timeline, construction: Construction = 'current'): Case => ({
  doc: t,
  commitments: [commitmentFor(t, construction)],
});
const withOwn = (): Case => {
  const { timeline, commitment } = honest();
  return { doc: timeline, commitments: [commitment] };
};
const run = (c: Case) => verifyTimeline(c.doc, commitmentIndex(...c.commitments), CLOSES_AT);

/** A -06 timeline as -06 wrote it: only id, canonical_bytes, prev_digest and close (the builder adds the current members). */
const asWritten06 = (t: Timeline): Timeline =>
  t.map(({ seq: _s, job_id: _j, tool: _t, provenance_class: _p, ...rest }) => rest) as unknown as Timeline;

const OTHER_CALL = { tool: 'write_answer', provenance_class: 'LOGGED BY AGENT', canonical_bytes: '{"forged":true}' };

const rows: Row[] = [
  // valid timelines: bare arrays (the current construction), and the envelope declaring 07–09
  { name: 'valid bare timeline', make: withOwn, status: 'ANCHORED', reason_codes: [] },
  {
    name: 'valid one-entry timeline',
    make: () => {
      const { timeline, commitment } = honest(1);
      return { doc: timeline, commitments: [commitment] };
    },
    status: 'ANCHORED',
    reason_codes: [],
  },
  ...['07', '08', '09'].map(
    (revision): Row => ({
      name: `valid timeline in the envelope, revision ${revision}`,
      make: () => {
        const { timeline, commitment } = honest();
        return { doc: envelope(revision, timeline), commitments: [commitment] };
      },
      status: 'ANCHORED',
      reason_codes: [],
    }),
  ),
  {
    name: 'an output_hash member on an entry is never read (a wrong one changes nothing)',
    make: () => committed(patchEntry(honest().timeline, 7, { output_hash: `sha256:${sha256('lie')}` })),
    status: 'ANCHORED',
    reason_codes: [],
  },
  {
    name: 'an id is an identifier: any non-empty string, relinked',
    make: () => committed(relink(patchEntry(honest().timeline, 2, { id: 'sha256:' + 'a'.repeat(64) }))),
    status: 'ANCHORED',
    reason_codes: [],
  },

  // empty
  { name: 'empty bare timeline', make: () => ({ doc: [], commitments: [] }), status: 'BROKEN', reason_codes: ['CHAIN_EMPTY'] },
  { name: 'empty envelope', make: () => ({ doc: envelope('09', []), commitments: [] }), status: 'BROKEN', reason_codes: ['CHAIN_EMPTY'] },

  // genesis
  {
    name: 'genesis prev_digest not zeros',
    make: () => committed(relink(patchEntry(honest().timeline, 0, { prev_digest: sha256('not a genesis') }))),
    status: 'BROKEN',
    reason_codes: ['CHAIN_GENESIS_INVALID'],
  },

  // seq
  {
    name: 'seq gap (…4, 6…)',
    make: () => committed(relink(honest().timeline.map((e, i) => (i >= 4 ? { ...e, seq: i + 2 } : e)))),
    status: 'BROKEN',
    reason_codes: ['CHAIN_SEQ_GAP'],
  },
  {
    name: 'seq repeat (…3, 3, 5…)',
    make: () => committed(relink(patchEntry(honest().timeline, 3, { seq: 3 }))),
    status: 'BROKEN',
    reason_codes: ['CHAIN_SEQ_GAP'],
  },
  {
    name: 'seq starts at 0',
    make: () => committed(relink(honest().timeline.map((e, i) => ({ ...e, seq: i })))),
    status: 'BROKEN',
    reason_codes: ['CHAIN_SEQ_GAP'],
  },

  // job
  {
    name: 'an entry of another job',
    make: () => committed(relink(patchEntry(honest().timeline, 5, { job_id: 'job-2' }))),
    status: 'BROKEN',
    reason_codes: ['CHAIN_JOB_MISMATCH'],
  },

  // close
  {
    name: 'close: false carried on a middle entry (allowed)',
    make: () => committed(relink(patchEntry(honest().timeline, 3, { close: false }))),
    status: 'ANCHORED',
    reason_codes: [],
  },
  {
    name: 'close: true on a middle entry',
    make: () => committed(relink(patchEntry(honest().timeline, 3, { close: true }))),
    status: 'BROKEN',
    reason_codes: ['CHAIN_CLOSE_MISPLACED'],
  },
  {
    name: 'close missing on the last entry',
    make: () => committed(relink(patchEntry(honest().timeline, 7, { close: undefined }))),
    status: 'BROKEN',
    reason_codes: ['CHAIN_CLOSE_MISPLACED'],
  },
  {
    name: 'close: false on the last entry',
    make: () => committed(relink(patchEntry(honest().timeline, 7, { close: false }))),
    status: 'BROKEN',
    reason_codes: ['CHAIN_CLOSE_MISPLACED'],
  },

  // links: the current digest binds the output commitment and the metadata
  {
    name: 'a prev_digest pointing two entries back',
    make: () => {
      const t = honest().timeline;
      return committed(patchEntry(t, 4, { prev_digest: digestsOf(t)[2] }));
    },
    status: 'BROKEN',
    reason_codes: ['CHAIN_LINK_BROKEN'],
  },
  {
    name: "a middle entry's bytes replaced: the next link breaks",
    make: () => {
      const { timeline, commitment } = honest();
      return {
        doc: patchEntry(timeline, 2, { canonical_bytes: Buffer.from('{"other":1}').toString('base64') }),
        commitments: [commitment],
      };
    },
    status: 'BROKEN',
    reason_codes: ['CHAIN_LINK_BROKEN'],
  },
  {
    name: 'metadata (tool) rewritten: the next link breaks',
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: patchEntry(timeline, 3, { tool: 'rewritten' }), commitments: [commitment] };
    },
    status: 'BROKEN',
    reason_codes: ['CHAIN_LINK_BROKEN'],
  },
  {
    name: "the last entry's bytes replaced: no link to break, only the commitment catches it",
    make: () => {
      const { timeline, commitment } = honest();
      return {
        doc: patchEntry(timeline, 7, { canonical_bytes: Buffer.from('{"other":1}').toString('base64') }),
        commitments: [commitment],
      };
    },
    status: 'UNANCHORED',
    reason_codes: ['COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },

  // revision
  ...['10', '05', '6', '9', ''].map(
    (revision): Row => ({
      name: `envelope revision ${JSON.stringify(revision)}: unsupported`,
      make: () => {
        const { timeline, commitment } = honest();
        return { doc: envelope(revision, timeline), commitments: [commitment] };
      },
      status: 'BROKEN',
      reason_codes: ['CHAIN_REVISION_UNSUPPORTED'],
    }),
  ),

  // -06: the digest is SHA-256 of the bytes; checked, but the metadata is bound by nothing
  {
    name: 'revision 06 in the envelope, valid',
    make: () => {
      const { timeline, commitment } = honest(8, 'job-1', '06');
      return { doc: envelope('06', timeline), commitments: [commitment] };
    },
    status: 'METADATA_UNBOUND',
    reason_codes: [],
  },
  {
    name: 'revision 06, tool and class rewritten: no link breaks (the point of METADATA_UNBOUND)',
    make: () => {
      const { timeline, commitment } = honest(8, 'job-1', '06');
      return {
        doc: envelope('06', patchEntry(timeline, 3, { tool: 'rewritten', provenance_class: 'OBSERVED VIA GATEWAY' })),
        commitments: [commitment],
      };
    },
    status: 'METADATA_UNBOUND',
    reason_codes: [],
  },
  {
    name: "revision 06, a middle entry's bytes replaced: the next link breaks",
    make: () => {
      const { timeline, commitment } = honest(8, 'job-1', '06');
      return {
        doc: envelope('06', patchEntry(timeline, 1, { canonical_bytes: Buffer.from('x').toString('base64') })),
        commitments: [commitment],
      };
    },
    status: 'BROKEN',
    reason_codes: ['CHAIN_LINK_BROKEN'],
  },
  {
    name: 'revision 06, no commitment: still METADATA_UNBOUND, the code reported',
    make: () => ({ doc: envelope('06', honest(8, 'job-1', '06').timeline), commitments: [] }),
    status: 'METADATA_UNBOUND',
    reason_codes: ['COMMITMENT_MISSING'],
  },
  {
    name: 'revision 06, tail cut: still METADATA_UNBOUND, the codes reported',
    make: () => {
      const { timeline, commitment } = honest(8, 'job-1', '06');
      return { doc: envelope('06', cutTail(timeline, 6, '06')), commitments: [commitment] };
    },
    status: 'METADATA_UNBOUND',
    reason_codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },
  {
    name: 'a -06 timeline given bare fails its links under the current construction',
    make: () => {
      const { timeline, commitment } = honest(8, 'job-1', '06');
      return { doc: timeline, commitments: [commitment] };
    },
    status: 'BROKEN',
    reason_codes: ['CHAIN_LINK_BROKEN', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },
  // -06 as it was written: only id, canonical_bytes, prev_digest and the last entry's close
  {
    name: 'a bare array of -06-written entries (no seq, job_id, tool, provenance_class) is read as -06: METADATA_UNBOUND',
    make: () => ({ doc: asWritten06(honest(4, 'job-1', '06').timeline), commitments: [] }),
    status: 'METADATA_UNBOUND',
    reason_codes: [],
  },
  {
    name: 'the same in the envelope declaring 06',
    make: () => ({ doc: envelope('06', asWritten06(honest(4, 'job-1', '06').timeline)), commitments: [] }),
    status: 'METADATA_UNBOUND',
    reason_codes: [],
  },
  {
    name: '-06-written, a link broken (bytes of entry 2 replaced) → CHAIN_LINK_BROKEN',
    make: () => ({
      doc: asWritten06(patchEntry(honest(4, 'job-1', '06').timeline, 1, { canonical_bytes: Buffer.from('x').toString('base64') })),
      commitments: [],
    }),
    status: 'BROKEN',
    reason_codes: ['CHAIN_LINK_BROKEN'],
  },
  {
    name: '-06-written, the last entry not closed → CHAIN_CLOSE_MISPLACED',
    make: () => ({ doc: asWritten06(honest(4, 'job-1', '06').timeline).map(({ close: _c, ...e }) => e), commitments: [] }),
    status: 'BROKEN',
    reason_codes: ['CHAIN_CLOSE_MISPLACED'],
  },
  {
    name: '-06-written, a bad genesis → CHAIN_GENESIS_INVALID',
    make: () => ({ doc: asWritten06(patchEntry(honest(4, 'job-1', '06').timeline, 0, { prev_digest: 'f'.repeat(64) })), commitments: [] }),
    status: 'BROKEN',
    reason_codes: ['CHAIN_GENESIS_INVALID'],
  },
  {
    name: '-06-written, an id missing → CHAIN_MALFORMED (id stays required)',
    make: () => ({
      doc: asWritten06(honest(3, 'job-1', '06').timeline).map((e, i) => {
        if (i !== 1) return e;
        const { id: _id, ...rest } = e;
        return rest;
      }),
      commitments: [],
    }),
    status: 'BROKEN',
    reason_codes: ['CHAIN_MALFORMED'],
  },
  {
    name: 'a bare array where one entry carries tool is read as today: the others lack the members → CHAIN_MALFORMED',
    make: () => ({ doc: patchEntry(asWritten06(honest(3, 'job-1', '06').timeline), 1, { tool: 'search' }), commitments: [] }),
    status: 'BROKEN',
    reason_codes: ['CHAIN_MALFORMED'],
  },
  {
    name: 'the envelope 06, seq on some entries only → CHAIN_MALFORMED (on every entry or on none)',
    make: () => ({
      doc: envelope(
        '06',
        asWritten06(honest(3, 'job-1', '06').timeline).map((e, i) => (i === 0 ? { ...e, seq: 1 } : e)),
      ),
      commitments: [],
    }),
    status: 'BROKEN',
    reason_codes: ['CHAIN_MALFORMED'],
  },
  {
    name: 'the envelope 06, a tool present but empty → CHAIN_MALFORMED (a present member is checked)',
    make: () => ({ doc: envelope('06', patchEntry(asWritten06(honest(3, 'job-1', '06').timeline), 2, { tool: '' })), commitments: [] }),
    status: 'BROKEN',
    reason_codes: ['CHAIN_MALFORMED'],
  },
  {
    name: 'the envelope 06, seq on every entry with a gap → CHAIN_SEQ_GAP (the rule runs when the members are there)',
    make: () => ({
      doc: envelope(
        '06',
        asWritten06(honest(3, 'job-1', '06').timeline).map((e, i) => ({ ...e, seq: i === 2 ? 4 : i + 1 })),
      ),
      commitments: [],
    }),
    status: 'BROKEN',
    reason_codes: ['CHAIN_SEQ_GAP'],
  },
  {
    name: 'a current timeline declared 06 fails its links',
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: envelope('06', timeline), commitments: [commitment] };
    },
    status: 'BROKEN',
    reason_codes: ['CHAIN_LINK_BROKEN', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },

  // commitments
  {
    name: 'no commitment',
    make: () => ({ doc: honest().timeline, commitments: [] }),
    status: 'UNANCHORED',
    reason_codes: ['COMMITMENT_MISSING'],
  },
  {
    name: 'only a commitment of another job',
    make: () => ({ doc: honest().timeline, commitments: [honest(8, 'job-2').commitment] }),
    status: 'UNANCHORED',
    reason_codes: ['COMMITMENT_MISSING'],
  },
  {
    name: 'tail cut 8 → 6, re-closed and relinked',
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: cutTail(timeline, 6), commitments: [commitment] };
    },
    status: 'UNANCHORED',
    reason_codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },
  {
    name: 'last entry substituted and relinked: the count still matches',
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: substituteLast(timeline, OTHER_CALL), commitments: [commitment] };
    },
    status: 'UNANCHORED',
    reason_codes: ['COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },
  {
    name: 'head cut by 2, renumbered from 1, new genesis',
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: cutHead(timeline, 2), commitments: [commitment] };
    },
    status: 'UNANCHORED',
    reason_codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },
  {
    name: 'a commitment in the envelope, none external: ignored',
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: { ...envelope('09', timeline), commitment }, commitments: [] };
    },
    status: 'UNANCHORED',
    reason_codes: ['COMMITMENT_MISSING'],
  },
  {
    name: 'a commitment in the last entry, none external: ignored',
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: patchEntry(timeline, 7, { commitment }), commitments: [] };
    },
    status: 'UNANCHORED',
    reason_codes: ['COMMITMENT_MISSING'],
  },
  {
    name: 'tail cut carrying a commitment to itself: the external one decides',
    make: () => {
      const { timeline, commitment } = honest();
      const cut = cutTail(timeline, 6);
      return { doc: { ...envelope('09', cut), commitment: commitmentFor(cut) }, commitments: [commitment] };
    },
    status: 'UNANCHORED',
    reason_codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
  },
  ...(
    [
      ['one millisecond before closes_at', '2026-11-15T23:59:59.999Z', 'ANCHORED', []],
      ['one nanosecond before closes_at', '2026-11-15T23:59:59.999999999Z', 'ANCHORED', []],
      ['at closes_at', CLOSES_AT, 'UNANCHORED', ['COMMITMENT_LATE']],
      ['at closes_at, written with a zero fraction', '2026-11-16T00:00:00.000Z', 'UNANCHORED', ['COMMITMENT_LATE']],
      ['at closes_at, written in +01:00', '2026-11-16T01:00:00+01:00', 'UNANCHORED', ['COMMITMENT_LATE']],
      ['before closes_at, written in -01:00 (23:30Z)', '2026-11-15T22:30:00-01:00', 'ANCHORED', []],
      ['written 00:30+01:00, which is 23:30Z, before closes_at', '2026-11-16T00:30:00+01:00', 'ANCHORED', []],
      ['after closes_at', '2026-11-20T09:00:00Z', 'UNANCHORED', ['COMMITMENT_LATE']],
    ] as const
  ).map(
    ([name, published_at, status, reason_codes]): Row => ({
      name: `commitment published ${name}`,
      make: () => {
        const t = honest().timeline;
        return { doc: t, commitments: [commitmentFor(t, 'current', { published_at })] };
      },
      status,
      reason_codes: [...reason_codes],
    }),
  ),
  {
    name: "the job's only commitment is malformed (entry_count 8.0)",
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: timeline, commitments: [JSON.stringify(commitment).replace('"entry_count":8', '"entry_count":8.0')] };
    },
    status: 'UNANCHORED',
    reason_codes: ['COMMITMENT_MALFORMED'],
  },
  {
    name: "the job's only commitment is malformed (published_at not a date)",
    make: () => {
      const t = honest().timeline;
      return { doc: t, commitments: [commitmentFor(t, 'current', { published_at: 'yesterday' })] };
    },
    status: 'UNANCHORED',
    reason_codes: ['COMMITMENT_MALFORMED'],
  },
  {
    name: 'a malformed and a well-formed commitment that anchors: the well-formed one counts',
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: timeline, commitments: [{ ...commitment, entry_count: '8' }, commitment] };
    },
    status: 'ANCHORED',
    reason_codes: [],
  },
  {
    name: 'a malformed and a well-formed commitment that does not anchor: both reported',
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: cutTail(timeline, 6), commitments: [{ ...commitment, entry_count: '8' }, commitment] };
    },
    status: 'UNANCHORED',
    reason_codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH', 'COMMITMENT_MALFORMED'],
  },
  {
    name: 'a malformed line naming no job does not concern this timeline',
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: timeline, commitments: ['{"nothing": true}', 'not json', commitment] };
    },
    status: 'ANCHORED',
    reason_codes: [],
  },

  // several failures at once, all reported
  {
    name: 'genesis, job, close, link broken + count, digest, late',
    make: () => {
      const { timeline, commitment } = honest();
      let t = patchEntry(timeline, 0, { prev_digest: sha256('x') });
      t = patchEntry(t, 2, { job_id: 'job-2' });
      t = patchEntry(t, 4, { close: true });
      t = patchEntry(t, 6, { prev_digest: sha256('z') });
      t = t.slice(0, 7); // last entry dropped: no close on the new last
      return { doc: t, commitments: [{ ...commitment, published_at: '2026-12-01T00:00:00Z' }] };
    },
    status: 'BROKEN',
    reason_codes: [
      'CHAIN_CLOSE_MISPLACED',
      'CHAIN_GENESIS_INVALID',
      'CHAIN_JOB_MISMATCH',
      'CHAIN_LINK_BROKEN',
      'COMMITMENT_COUNT_MISMATCH',
      'COMMITMENT_FINAL_DIGEST_MISMATCH',
      'COMMITMENT_LATE',
    ],
  },
];

// Structural problems: CHAIN_MALFORMED (with whatever else can still be decided).
const malformedRows: Row[] = [
  ...([null, 'aer-1', 42, true, {}, { entries: [] }] as unknown[]).map(
    (doc): Row => ({
      name: `document ${JSON.stringify(doc)}`,
      make: () => ({ doc, commitments: [] }),
      status: 'BROKEN',
      reason_codes: ['CHAIN_MALFORMED'],
    }),
  ),
  {
    name: 'an object with format "aer-2"',
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: { ...envelope('09', timeline), format: 'aer-2' }, commitments: [commitment] };
    },
    status: 'BROKEN',
    reason_codes: ['CHAIN_MALFORMED'],
  },
  {
    name: 'envelope revision a number',
    make: () => ({ doc: { ...envelope('09', honest().timeline), revision: 9 }, commitments: [] }),
    status: 'BROKEN',
    reason_codes: ['CHAIN_MALFORMED'],
  },
  {
    name: 'envelope without revision',
    make: () => ({ doc: { format: 'aer-1', entries: honest().timeline }, commitments: [] }),
    status: 'BROKEN',
    reason_codes: ['CHAIN_MALFORMED'],
  },
  {
    name: 'envelope without entries',
    make: () => ({ doc: { format: 'aer-1', revision: '09' }, commitments: [] }),
    status: 'BROKEN',
    reason_codes: ['CHAIN_MALFORMED'],
  },
  {
    name: 'envelope entries an object',
    make: () => ({ doc: { format: 'aer-1', revision: '09', entries: {} }, commitments: [] }),
    status: 'BROKEN',
    reason_codes: ['CHAIN_MALFORMED'],
  },
  {
    name: 'an entry that is not an object (the link from it undecided)',
    make: () => {
      const { timeline, commitment } = honest();
      return { doc: timeline.map((e, i) => (i === 3 ? 'entry' : e)), commitments: [commitment] };
    },
    status: 'BROKEN',
    reason_codes: ['CHAIN_MALFORMED'],
  },
  ...(
    [
      ['id missing', 2, { id: undefined }],
      ['id empty', 2, { id: '' }],
      ['id a number', 2, { id: 7 }],
      ['seq a string', 2, { seq: '3' }],
      ['seq 2.5', 2, { seq: 2.5 }],
      ['seq null', 2, { seq: null }],
      ['seq true', 0, { seq: true }],
      ['job_id a number', 2, { job_id: 7 }],
      ['job_id empty', 2, { job_id: '' }],
      ['tool missing', 2, { tool: undefined }],
      ['tool empty', 2, { tool: '' }],
      ['provenance_class null', 2, { provenance_class: null }],
      ['provenance_class with underscores', 2, { provenance_class: 'LOGGED_BY_AGENT' }],
      ['provenance_class in lower case', 2, { provenance_class: 'executed by zambo' }],
      ['provenance_class EXECUTED BY with no name', 2, { provenance_class: 'EXECUTED BY ' }],
      ['provenance_class EXECUTED BY a lower-case name', 2, { provenance_class: 'EXECUTED BY zambo' }],
      ['provenance_class unknown', 2, { provenance_class: 'OBSERVED BY OPERATOR' }],
      ['canonical_bytes not base64', 2, { canonical_bytes: '!!not base64!!' }],
      ['canonical_bytes unpadded', 2, { canonical_bytes: 'eyJ4IjoxfQ' }],
      ['canonical_bytes url-safe alphabet', 2, { canonical_bytes: '-_-_' }],
      ['canonical_bytes with a newline', 2, { canonical_bytes: 'eyJ4\nIjoxfQ==' }],
      ['canonical_bytes a byte array', 2, { canonical_bytes: [1, 2, 3] }],
      ['prev_digest missing', 4, { prev_digest: undefined }],
      ['prev_digest upper-case hex', 4, { prev_digest: 'A'.repeat(64) }],
      ['prev_digest 63 hex digits', 4, { prev_digest: 'a'.repeat(63) }],
      ['prev_digest with a sha256: prefix', 4, { prev_digest: 'sha256:' + 'a'.repeat(64) }],
      ['close the string "true"', 7, { close: 'true' }],
      ['close null', 7, { close: null }],
      ['close 1', 7, { close: 1 }],
    ] as const
  ).map(
    ([name, index, patch]): Row => ({
      name: `entry member: ${name}`,
      make: () => {
        const { timeline, commitment } = honest();
        return { doc: patchEntry(timeline, index, patch), commitments: [commitment] };
      },
      status: 'BROKEN',
      reason_codes: ['CHAIN_MALFORMED'],
    }),
  ),
];

describe('verifyTimeline: one row per rule', () => {
  it.each([...rows, ...malformedRows])('$name → $status $codes', (row) => {
    const r = run(row.make());
    expect({ status: r.status, reason_codes: r.reason_codes }, r.problems.join('\n')).toEqual({
      status: row.status,
      reason_codes: row.reason_codes,
    });
    expect(r.reason_codes).toEqual([...new Set(r.reason_codes)].sort());
    // Each failed check reports its code and each code comes from a failed check.
    const failed = TIMELINE_CHECKS.filter((c) => r.checks[c] === 'fail');
    expect(failed.includes('structure')).toBe(r.reason_codes.includes('CHAIN_MALFORMED') || r.reason_codes.includes('CHAIN_EMPTY'));
    expect(r.reason_codes.filter((c) => c !== 'CHAIN_MALFORMED' && c !== 'CHAIN_EMPTY')).toEqual(
      failed
        .filter((c) => c !== 'structure')
        .map((c) => TIMELINE_CHECK_CODES[c])
        .sort(),
    );
  });

  it('every code it can report is in the reason catalogue', () => {
    for (const code of new Set([...rows, ...malformedRows].flatMap((row) => row.reason_codes))) expect(REASONS).toHaveProperty(code);
    for (const code of Object.values(TIMELINE_CHECK_CODES)) expect(REASONS).toHaveProperty(code);
  });
});

describe('verifyTimeline: what it records', () => {
  it('reports every check, the recomputed digests, the computed output commitments and the matched commitment', () => {
    const { timeline, commitment } = honest(8);
    const r = run({ doc: timeline, commitments: [commitment] });
    expect(Object.keys(r.checks)).toEqual([...TIMELINE_CHECKS]);
    expect(Object.values(r.checks).every((o) => o === 'pass')).toBe(true);
    expect(r).toMatchObject({
      form: 'array',
      revision: null,
      construction: 'current',
      job_id: 'job-1',
      entry_count: 8,
      final_entry_digest: commitment.final_entry_digest,
      commitment,
      problems: [],
    });
    expect(r.entries.map((e) => e.digest)).toEqual(digestsOf(timeline));
    expect(r.entries.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(r.entries.map((e) => e.output_commitment)).toEqual(timeline.map((e) => sha256(Buffer.from(e.canonical_bytes, 'base64'))));
    expect(r.entries[0]).toMatchObject({ id: 'r-job-1-0', tool: 'search_corpus', provenance_class: 'LOGGED BY AGENT' });
    expect(r.provenance_classes).toEqual(['LOGGED BY AGENT']);
  });

  it('computes the current entry digest over the Python-canonical JSON of exactly the eight members', () => {
    // Written out by hand as Python's json.dumps(sort_keys=True, separators=(",", ":")) writes it:
    // ensure_ascii (é → \u00e9, U+007F → \u007f, newline → \n), close false when absent, the output
    // commitment in bare hex.
    const bytes = Buffer.from('{"receipt":1}');
    const out = sha256(bytes);
    const zeros = '0'.repeat(64);
    const entry = {
      id: 'a\nb',
      seq: 1,
      job_id: 'j',
      tool: 'recherche_é\u007f',
      provenance_class: 'EXECUTED BY ZAMBO',
      canonical_bytes: bytes.toString('base64'),
      prev_digest: zeros,
    };
    const text1 = `{"close":false,"id":"a\\nb","job_id":"j","output_hash":"${out}","prev_digest":"${zeros}","provenance_class":"EXECUTED BY ZAMBO","seq":1,"tool":"recherche_\\u00e9\\u007f"}`;
    const d1 = sha256(text1);
    const closing = { ...entry, id: 'c', seq: 2, prev_digest: d1, close: true };
    const text2 = `{"close":true,"id":"c","job_id":"j","output_hash":"${out}","prev_digest":"${d1}","provenance_class":"EXECUTED BY ZAMBO","seq":2,"tool":"recherche_\\u00e9\\u007f"}`;
    const r = verifyTimeline([entry, closing], commitmentIndex(), CLOSES_AT);
    expect(r.reason_codes).toEqual(['COMMITMENT_MISSING']);
    expect(r.entries.map((e) => e.digest)).toEqual([d1, sha256(text2)]);
  });

  it('revision 06: the entry digest is the SHA-256 of the bytes alone', () => {
    const { timeline } = honest(3, 'job-1', '06');
    const r = run({ doc: envelope('06', timeline), commitments: [] });
    expect(r).toMatchObject({ form: 'envelope', revision: '06', construction: '06' });
    expect(r.entries.map((e) => e.digest)).toEqual(timeline.map((e) => sha256(Buffer.from(e.canonical_bytes, 'base64'))));
    expect(r.final_entry_digest).toBe(r.entries[2]!.output_commitment);
  });

  it('a -06-written timeline: entries numbered by position, tool and class null, no job, the commitment checks skipped', () => {
    const { timeline } = honest(3, 'job-1', '06');
    const r = run({ doc: asWritten06(timeline), commitments: [] });
    expect(r).toMatchObject({
      form: 'array',
      revision: null,
      construction: '06',
      job_id: null,
      status: 'METADATA_UNBOUND',
      entry_count: 3,
    });
    expect(r.entries.map((e) => [e.seq, e.id, e.tool, e.provenance_class])).toEqual(timeline.map((e, i) => [i + 1, e.id, null, null]));
    expect(r.entries.map((e) => e.digest)).toEqual(timeline.map((e) => sha256(Buffer.from(e.canonical_bytes, 'base64'))));
    expect([r.checks.seq, r.checks.job, r.checks.commitment_found]).toEqual(['skipped', 'skipped', 'skipped']);
  });

  it('gives the same result for the parsed JsonValue (JsonNumber seq, null-prototype objects) as for plain JS', () => {
    const { timeline, commitment } = honest(5);
    const plain = run({ doc: timeline, commitments: [commitment] });
    const parsed = run({ doc: parseJson(JSON.stringify(timeline)), commitments: [commitment] });
    expect(parsed).toEqual(plain);
    expect(parsed.status).toBe('ANCHORED');
  });

  it.each([
    ['2.0', 'ANCHORED'],
    ['2e0', 'ANCHORED'],
    ['20E-1', 'ANCHORED'],
    ['2.5', 'BROKEN'],
    ['true', 'BROKEN'],
    ['"2"', 'BROKEN'],
  ])('seq written %s: an integer-valued float is that integer, digested as 2 → %s', (lexeme, status) => {
    const { timeline, commitment } = honest(3);
    const text = JSON.stringify(timeline).replace('"seq":2,', `"seq":${lexeme},`);
    expect(text).toContain(`"seq":${lexeme},`);
    const r = run({ doc: parseJson(text), commitments: [commitment] });
    expect(r.status).toBe(status);
    if (status === 'BROKEN') expect(r.reason_codes).toEqual(['CHAIN_MALFORMED']);
  });

  it('an unsupported revision evaluates no further rule', () => {
    const r = run({ doc: envelope('10', honest().timeline), commitments: [honest().commitment] });
    expect(r.checks).toMatchObject({
      structure: 'pass',
      revision: 'fail',
      genesis: 'skipped',
      links: 'skipped',
      commitment_found: 'skipped',
    });
    expect(r).toMatchObject({
      form: 'envelope',
      revision: '10',
      construction: null,
      job_id: null,
      entry_count: 8,
      entries: [],
      commitment: null,
    });
  });

  it('a missing commitment skips the comparisons; an empty timeline skips the commitment', () => {
    const missing = run({ doc: honest().timeline, commitments: [] });
    expect(missing.checks).toMatchObject({
      commitment_found: 'fail',
      commitment_wellformed: 'skipped',
      commitment_count: 'skipped',
      commitment_final_digest: 'skipped',
      commitment_timely: 'skipped',
    });
    const empty = run({ doc: [], commitments: [] });
    expect(empty.checks).toMatchObject({ structure: 'fail', genesis: 'skipped', seq: 'skipped', commitment_found: 'skipped' });
    expect(empty).toMatchObject({ job_id: null, final_entry_digest: null, entries: [] });
  });

  it("a malformed commitment is named by file and line among the timeline's problems", () => {
    const { timeline, commitment } = honest();
    const r = run({
      doc: timeline,
      commitments: ['{}', { ...commitment, final_entry_digest: commitment.final_entry_digest.toUpperCase() }],
    });
    expect(r.checks).toMatchObject({ commitment_found: 'pass', commitment_wellformed: 'fail', commitment_count: 'skipped' });
    expect(r.problems.some((p) => p.startsWith('inputs/commitments.jsonl:2: ') && p.includes('final_entry_digest'))).toBe(true);
  });

  it('a malformed entry leaves the rules it cannot feed undecided, and still reports the others', () => {
    const { timeline, commitment } = honest();
    const doc = patchEntry(patchEntry(timeline, 3, { prev_digest: 'bad' }), 6, { job_id: 'job-9' });
    const r = run({ doc, commitments: [commitment] });
    expect(r.reason_codes).toEqual(['CHAIN_JOB_MISMATCH', 'CHAIN_LINK_BROKEN', 'CHAIN_MALFORMED']);
    expect(r.checks).toMatchObject({ structure: 'fail', job: 'fail', seq: 'pass', links: 'fail' });
    expect(r.entries).toEqual([]);
    expect(r.problems.some((p) => p.includes('entries[3].prev_digest'))).toBe(true);
  });

  it('reports a tail cut by its count, a substitution by its final digest only, a head cut by both', () => {
    const { timeline, commitment } = honest(8);
    const cut = run({ doc: cutTail(timeline, 6), commitments: [commitment] });
    expect(cut.checks).toMatchObject({ genesis: 'pass', seq: 'pass', close: 'pass', links: 'pass', commitment_count: 'fail' });
    expect(cut.entry_count).toBe(6);
    const swapped = run({ doc: substituteLast(timeline, OTHER_CALL), commitments: [commitment] });
    expect(swapped.checks).toMatchObject({ commitment_count: 'pass', commitment_final_digest: 'fail', links: 'pass' });
    const head = run({ doc: cutHead(timeline, 2), commitments: [commitment] });
    expect(head.checks).toMatchObject({
      genesis: 'pass',
      seq: 'pass',
      links: 'pass',
      commitment_count: 'fail',
      commitment_final_digest: 'fail',
    });
  });

  it('several candidates: the one matching everything, else the digest, else the first', () => {
    const { timeline, commitment } = honest();
    const wrong = { ...commitment, final_entry_digest: sha256('wrong'), entry_count: 3 };
    const late = { ...commitment, published_at: '2026-12-01T00:00:00Z' };
    // The same commitment collected twice, or once late as well: no conflict, anchored.
    expect(run({ doc: timeline, commitments: [late, commitment, { ...commitment, witness: 'second' }] })).toMatchObject({
      status: 'ANCHORED',
      reason_codes: [],
      commitment,
    });
    // The candidates other than the best that bind no owner and differ are COMMITMENT_FOREIGN (informational).
    expect(run({ doc: timeline, commitments: [wrong, late] })).toMatchObject({
      status: 'UNANCHORED',
      reason_codes: ['COMMITMENT_FOREIGN', 'COMMITMENT_LATE'],
      informational_codes: ['COMMITMENT_FOREIGN'],
      commitment: late,
    });
    const wrong2 = { ...wrong, witness: 'second' };
    expect(run({ doc: timeline, commitments: [wrong, wrong2] })).toMatchObject({
      reason_codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH', 'COMMITMENT_FOREIGN'],
      commitment: wrong,
    });
  });

  it('a job committed two ways before closes_at, binding no owner (outside a study): anchored by the matching one, the other COMMITMENT_FOREIGN', () => {
    const { timeline, commitment } = honest();
    const { commitment: cut } = buildTimeline({ job_id: commitment.job_id, receipts: sampleReceipts(3) });
    for (const commitments of [
      [cut, commitment],
      [commitment, cut],
    ]) {
      const r = run({ doc: timeline, commitments });
      expect(r).toMatchObject({
        status: 'ANCHORED',
        reason_codes: ['COMMITMENT_FOREIGN'],
        informational_codes: ['COMMITMENT_FOREIGN'],
        commitment,
      });
      expect(r.checks).toMatchObject({
        commitment_consistent: 'pass',
        commitment_count: 'pass',
        commitment_final_digest: 'pass',
        commitment_timely: 'pass',
      });
    }
    // The owner's own two ways: test/evidence/aer1/owner-commitments.test.ts.
  });

  it('reports provenance classes, never trusting them', () => {
    const receipts = sampleReceipts(3).map((r, i) => ({ ...r, provenance_class: i === 1 ? 'EXECUTED BY GATEWAY-7' : 'LOGGED BY AGENT' }));
    const { timeline, commitment } = buildTimeline({ job_id: 'j', receipts });
    const r = run({ doc: timeline, commitments: [commitment] });
    expect(r.status).toBe('ANCHORED');
    expect(r.provenance_classes).toEqual(['EXECUTED BY GATEWAY-7', 'LOGGED BY AGENT']);
  });

  it('throws for a closesAt that is not RFC 3339 (a caller bug)', () => {
    expect(() => verifyTimeline(honest().timeline, commitmentIndex(), '2026-11-16')).toThrow(TypeError);
  });
});

describe("when a commitment was published: the witness's date counts (issue 35 point 4)", () => {
  const WINDOW = { opens_at: '2026-11-02T00:00:00Z', closes_at: CLOSES_AT };
  /** The honest timeline's commitment with these times, its file dated by `witnessedAt` (an intake entry at line 3). */
  const judged = (times: { published_at: string; retrieved_at?: string | null }, witnessedAt?: string, extra: unknown[] = []) => {
    const t = honest().timeline;
    const lines = commitmentLines(...extra, commitmentFor(t, 'current', { retrieved_at: null, ...times })).map((l) => ({
      ...l,
      intake_owner: 'sys-a',
      ...(witnessedAt !== undefined ? { witnessed: { by: 'inputs/intake.jsonl:3', at: witnessedAt } } : {}),
    }));
    return verifyTimeline(t, indexCommitments(lines), WINDOW, 'sys-a');
  };

  it.each([
    ['at opens_at exactly', '2026-11-02T00:00:00Z', undefined, 'ANCHORED', []],
    ['one second before opens_at', '2026-11-01T23:59:59Z', undefined, 'UNANCHORED', ['COMMITMENT_TIME_IMPLAUSIBLE']],
    ['backdated to 2001', '2001-01-01T00:00:00Z', '2026-11-10T12:00:00Z', 'UNANCHORED', ['COMMITMENT_TIME_IMPLAUSIBLE']],
    ['at its witnessed date exactly', '2026-11-10T12:00:00Z', '2026-11-10T12:00:00Z', 'ANCHORED', []],
    ['one second after its witnessed date', '2026-11-10T12:00:01Z', '2026-11-10T12:00:00Z', 'UNANCHORED', ['COMMITMENT_TIME_IMPLAUSIBLE']],
    [
      'after its witnessed date, written in +01:00 (12:30Z)',
      '2026-11-10T13:30:00+01:00',
      '2026-11-10T12:00:00Z',
      'UNANCHORED',
      ['COMMITMENT_TIME_IMPLAUSIBLE'],
    ],
    [
      'late and after its witness: COMMITMENT_LATE alone',
      '2026-11-20T00:00:00Z',
      '2026-11-16T00:10:00Z',
      'UNANCHORED',
      ['COMMITMENT_LATE'],
    ],
  ] as const)('published_at %s: %s', (_name, published_at, witnessedAt, status, codes) => {
    const r = judged({ published_at }, witnessedAt);
    expect([r.status, r.reason_codes]).toEqual([status, codes]);
    expect(r.commitment_provenance).toEqual({
      route: 'intake',
      witnessed_by: witnessedAt === undefined ? null : 'inputs/intake.jsonl:3',
      witnessed_at: witnessedAt ?? null,
    });
  });

  it('retrieved_at before published_at is refused; equal is not', () => {
    expect(judged({ published_at: '2026-11-10T00:00:00Z', retrieved_at: '2026-11-09T23:59:59.999Z' }).reason_codes).toEqual([
      'COMMITMENT_TIME_IMPLAUSIBLE',
    ]);
    expect(judged({ published_at: '2026-11-10T00:00:00Z', retrieved_at: '2026-11-10T00:00:00Z' }).status).toBe('ANCHORED');
  });

  it('a backdated copy of a commitment hides nothing: the plausibly dated one, later in the file, anchors', () => {
    const t = honest().timeline;
    const r = judged({ published_at: '2026-11-10T00:00:00Z' }, '2026-11-10T12:00:00Z', [
      commitmentFor(t, 'current', { published_at: '2001-01-01T00:00:00Z', retrieved_at: null }),
    ]);
    expect([r.status, r.reason_codes, r.commitment?.published_at]).toEqual(['ANCHORED', [], '2026-11-10T00:00:00Z']);
  });

  it("closes_at alone (no lower bound), as before: 2001 is no study window's problem", () => {
    const t = honest().timeline;
    const r = verifyTimeline(
      t,
      commitmentIndex(commitmentFor(t, 'current', { published_at: '2001-01-01T00:00:00Z', retrieved_at: null })),
      CLOSES_AT,
    );
    expect([r.status, r.commitment_provenance]).toEqual(['ANCHORED', { route: 'operator', witnessed_by: null, witnessed_at: null }]);
  });
});
