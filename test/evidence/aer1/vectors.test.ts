// The real vectors (test/fixtures/real/aer1, PROVENANCE.md there): the ten conformance vectors
// whose verdicts draft-zambo-aer1-09's own reference runner produced, and the conformance kit's
// valid timeline job-7a1f with its published commitment. Each must come out as the reference
// says; attacks derived from job-7a1f here must be caught with the codes SPEC §5.2 names.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyReceipt, verifyTimeline } from '../../../pipeline/evidence/aer1/index.ts';
import { canonicalJson, parseJson, type JsonValue } from '../../../pipeline/formats/canonical-json.ts';
import { PROJECT_ROOT } from '../../support/cli.ts';
import { cutHead, cutTail, envelope, relink, substituteLast, type Timeline } from '../../support/aer1-builder.ts';
import { commitmentIndex } from './helpers.ts';

const DIR = join(PROJECT_ROOT, 'test/fixtures/real/aer1');
const read = (name: string): JsonValue => parseJson(readFileSync(join(DIR, name), 'utf8'));

interface Vector {
  kind: 'receipt' | 'chain' | 'commitment';
  name: string;
  receipt?: JsonValue;
  timeline?: JsonValue;
  commitment?: JsonValue;
  expected_verdict: 'valid' | 'invalid';
}
// Parsed with the canonical parser, so `5.0` stays a float lexeme as the reference reads it.
const vectors = (read('reference-vectors.json') as unknown as { vectors: Vector[] }).vectors;

/** The kit's commitment to job-7a1f (PROVENANCE.md), with the organizer's witness members. */
const WITNESS = {
  witness: 'aer1 conformance kit',
  retrieved_via: 'test/fixtures/real/aer1/PROVENANCE.md',
  retrieved_at: '2026-10-02T00:00:00Z',
};
const KIT_COMMITMENT = {
  job_id: 'job-7a1f',
  final_entry_digest: '79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0',
  entry_count: 5,
  published_at: '2026-10-01T18:30:00Z',
  ...WITNESS,
};
/** The kit's commitment is dated 2026-10-01; a study closing after it. */
const KIT_CLOSES_AT = '2026-10-02T00:00:00Z';

/** A commitments line with the vector's own members as written (number lexemes kept), plus the witness. */
function lineOf(commitment: JsonValue): string {
  return canonicalJson({ ...(commitment as Record<string, JsonValue>), ...WITNESS });
}

describe('the ten reference-verdict vectors come out as the reference runner says', () => {
  it('holds six receipts, three timelines and one commitment', () => {
    expect(vectors.map((v) => v.kind)).toEqual([
      'receipt',
      'receipt',
      'receipt',
      'receipt',
      'receipt',
      'receipt',
      'chain',
      'chain',
      'chain',
      'commitment',
    ]);
  });

  // The codes each invalid vector must give, as SPEC §5.2 names them (hand-written here).
  const EXPECTED: Record<string, { status: string; reason_codes: string[] }> = {
    'x-base64-unpadded': { status: 'NONCONFORMANT', reason_codes: ['RECEIPT_MALFORMED'] },
    'x-feb29-non-leap': { status: 'NONCONFORMANT', reason_codes: ['RECEIPT_MALFORMED'] },
    'x-feb29-leap': { status: 'CONFORMANT', reason_codes: [] },
    'x-feb29-1900': { status: 'NONCONFORMANT', reason_codes: ['RECEIPT_MALFORMED'] },
    'x-fraction-one-digit': { status: 'CONFORMANT', reason_codes: [] },
    'x-tool-empty-name': { status: 'NONCONFORMANT', reason_codes: ['RECEIPT_MALFORMED'] },
    // Timelines: valid = no CHAIN_* code (no commitment is given: UNANCHORED), invalid = BROKEN.
    'x-genesis-single': { status: 'BROKEN', reason_codes: ['CHAIN_GENESIS_INVALID', 'COMMITMENT_MISSING'] },
    'x-encoding-reference': { status: 'UNANCHORED', reason_codes: ['COMMITMENT_MISSING'] },
    'x-encoding-draft-literal': { status: 'BROKEN', reason_codes: ['CHAIN_LINK_BROKEN', 'COMMITMENT_MISSING'] },
    // The commitment writes entry_count 5.0: malformed, so the (valid) timeline is UNANCHORED.
    'x-entry-count-float': { status: 'UNANCHORED', reason_codes: ['COMMITMENT_MALFORMED'] },
  };

  it.each(vectors.map((v) => [v.name, v] as const))('%s', (name, v) => {
    const want = EXPECTED[name]!;
    if (v.kind === 'receipt') {
      const r = verifyReceipt(v.receipt);
      expect({ status: r.status, reason_codes: r.reason_codes }, r.problems.join('; ')).toEqual(want);
      expect(r.status === 'CONFORMANT').toBe(v.expected_verdict === 'valid');
      return;
    }
    const commitments = v.kind === 'commitment' ? [lineOf(v.commitment!)] : [];
    const r = verifyTimeline(v.timeline, commitmentIndex(...commitments), KIT_CLOSES_AT);
    expect({ status: r.status, reason_codes: r.reason_codes }, r.problems.join('; ')).toEqual(want);
    if (v.kind === 'chain') expect(!r.reason_codes.some((c) => c.startsWith('CHAIN_'))).toBe(v.expected_verdict === 'valid');
    if (v.kind === 'commitment') expect(r.reason_codes).toContain('COMMITMENT_MALFORMED'); // the vector is 'invalid'
  });

  it('the commitment vector, entry_count written 5, anchors the same timeline', () => {
    const v = vectors.find((x) => x.kind === 'commitment')!;
    const fixed = lineOf(v.commitment!).replace('"entry_count":5.0', '"entry_count":5');
    expect(fixed).toContain('"entry_count":5,');
    expect(verifyTimeline(v.timeline, commitmentIndex(fixed), KIT_CLOSES_AT)).toMatchObject({ status: 'ANCHORED', reason_codes: [] });
  });

  it('x-encoding-reference and x-encoding-draft-literal differ only in how U+007F was escaped when they were linked', () => {
    const byName = (n: string) => vectors.find((v) => v.name === n)!.timeline as Array<Record<string, JsonValue>>;
    const ref = byName('x-encoding-reference'),
      literal = byName('x-encoding-draft-literal');
    expect(ref.map((e) => ({ ...e, prev_digest: null }))).toEqual(literal.map((e) => ({ ...e, prev_digest: null })));
    expect(ref[0]!.tool).toBe('t\u00e9st\u007ftool');
  });
});

describe("the conformance kit's timeline job-7a1f and its commitment", () => {
  const timeline = read('timeline-job-7a1f.json');
  const plain = JSON.parse(readFileSync(join(DIR, 'timeline-job-7a1f.json'), 'utf8')) as Timeline;
  const verify = (doc: unknown, ...commitments: unknown[]) => verifyTimeline(doc, commitmentIndex(...commitments), KIT_CLOSES_AT);

  it('is ANCHORED by its published commitment, every check passing', () => {
    const r = verify(timeline, KIT_COMMITMENT);
    expect(r).toMatchObject({
      status: 'ANCHORED',
      reason_codes: [],
      form: 'array',
      construction: 'current',
      job_id: 'job-7a1f',
      entry_count: 5,
    });
    expect(r.final_entry_digest).toBe(KIT_COMMITMENT.final_entry_digest);
    expect(Object.values(r.checks).every((o) => o === 'pass')).toBe(true);
    expect(r.entries.map((e) => e.id)).toEqual(['r-job-7a1f-0', 'r-job-7a1f-1', 'r-job-7a1f-2', 'r-job-7a1f-3', 'r-job-7a1f-4']);
  });

  it('is ANCHORED in the envelope declaring 09, and in a study closing when the kit was published is late', () => {
    expect(verify(envelope('09', plain), KIT_COMMITMENT).status).toBe('ANCHORED');
    expect(verifyTimeline(timeline, commitmentIndex(KIT_COMMITMENT), '2026-10-01T18:30:00Z')).toMatchObject({
      status: 'UNANCHORED',
      reason_codes: ['COMMITMENT_LATE'],
    });
    expect(verify(timeline, { ...KIT_COMMITMENT, published_at: '2026-10-01T20:30:00+02:00' })).toMatchObject({ status: 'ANCHORED' });
  });

  it.each<[string, () => unknown, string[]]>([
    ['tail cut to 3 and re-closed', () => cutTail(plain, 3), ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH']],
    ['head cut by 2 and renumbered', () => cutHead(plain, 2), ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH']],
    [
      'last entry substituted',
      () =>
        substituteLast(plain, {
          tool: 'price_lookup',
          provenance_class: 'LOGGED BY AGENT',
          canonical_bytes: '{"job":"job-7a1f","entry":4,"tag":"forged"}',
        }),
      ['COMMITMENT_FINAL_DIGEST_MISMATCH'],
    ],
    [
      'a commitment to the cut timeline embedded in the envelope',
      () => ({ ...envelope('09', cutTail(plain, 3)), commitment: { ...KIT_COMMITMENT, entry_count: 3 } }),
      ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
    ],
  ])('%s: internally valid, caught only by the commitment', (_name, make, reason_codes) => {
    const r = verify(make(), KIT_COMMITMENT);
    expect(r.reason_codes.filter((c) => c.startsWith('CHAIN_'))).toEqual([]);
    expect({ status: r.status, reason_codes: r.reason_codes }).toEqual({ status: 'UNANCHORED', reason_codes });
  });

  it('a late commitment does not anchor it', () => {
    expect(verify(timeline, { ...KIT_COMMITMENT, published_at: '2026-10-02T00:00:00Z' })).toMatchObject({
      status: 'UNANCHORED',
      reason_codes: ['COMMITMENT_LATE'],
    });
  });

  it('a commitment embedded in the timeline is ignored', () => {
    const embedded = plain.map((e, i) => (i === 4 ? { ...e, commitment: KIT_COMMITMENT } : e));
    expect(verify(embedded)).toMatchObject({ status: 'UNANCHORED', reason_codes: ['COMMITMENT_MISSING'] });
    expect(verify({ ...envelope('09', plain), commitment: KIT_COMMITMENT })).toMatchObject({
      status: 'UNANCHORED',
      reason_codes: ['COMMITMENT_MISSING'],
    });
  });

  it('relinked the -06 way: given bare, its links fail; declared 06, it is METADATA_UNBOUND', () => {
    const v06 = relink(plain, '06', true);
    expect(verify(v06, KIT_COMMITMENT).reason_codes).toContain('CHAIN_LINK_BROKEN');
    expect(verify(v06, KIT_COMMITMENT).status).toBe('BROKEN');
    const declared = verify(envelope('06', v06));
    expect(declared).toMatchObject({ status: 'METADATA_UNBOUND', reason_codes: ['COMMITMENT_MISSING'], construction: '06' });
  });
});
