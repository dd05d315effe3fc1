// The near-miss rule of study.json (vocabulary.near_miss, SPEC §13.2) and what it counts, by hand.
// The example's identifiers: articles L/R/D + four digits + "-" + a number (L2152-1, R2152-1), and
// the CCAG's articles ("CCAG Travaux 4"). The rule names the part that must be equal (the number)
// and the part that may differ (the prefix, the code). Who gains by a loose rule: a system
// credited for "retrieval" when it served the wrong article; by a rule chosen late: the operator
// (the rule is frozen with study.json: test/analysis/near-miss.test.ts plays the drift).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadStudy } from '../../pipeline/study/study.ts';
import { nearMissRelation, type NearMissRule } from '../../pipeline/study/near-miss.ts';
import { retrievalOutcome, retrievalRows } from '../../pipeline/statistics/retrieval.ts';
import { PROJECT_ROOT } from '../support/cli.ts';
import { PreregError } from '../../pipeline/reasons.ts';

const PREFIX: NearMissRule = { pattern: '(?<prefix>[LRD])(?<number>[0-9]{4}-[0-9]+)', same: ['number'], differ: ['prefix'] };
const CODE: NearMissRule = { pattern: 'CCAG (?<code>[A-Z][a-z]+) (?<number>[0-9]+)', same: ['number'], differ: ['code'] };

describe('the relation a rule declares', () => {
  const related = nearMissRelation([PREFIX, CODE]);
  it('the same number under another prefix, or in another code, is related; anything else is not', () => {
    expect(related('R2161-1', 'L2161-1')).toBe(true);
    expect(related('L2161-1', 'R2161-1')).toBe(true);
    expect(related('CCAG Fournitures 4', 'CCAG Travaux 4')).toBe(true);
    // Another number, the identifier itself, another shape, a prefix the pattern does not allow.
    expect(related('R2161-1', 'R2161-2')).toBe(false);
    expect(related('R2161-1', 'L2162-1')).toBe(false);
    expect(related('R2161-1', 'R2161-1')).toBe(false);
    expect(related('CCAG Travaux 4', 'CCAG Travaux 44')).toBe(false);
    expect(related('R2161-1', 'CCAG Travaux 2161')).toBe(false);
    expect(related('R2161-1', 'X2161-1')).toBe(false);
  });
  it('the pattern matches the whole identifier: a longer ref that contains a match is not related', () => {
    expect(related('R2161-1', 'L2161-10')).toBe(false);
    expect(related('R2161-1', 'see L2161-1')).toBe(false);
  });
  it('no rule relates nothing', () => {
    expect(nearMissRelation([])('R2161-1', 'L2161-1')).toBe(false);
  });
});

describe('retrieval, counted by hand', () => {
  const related = nearMissRelation([PREFIX]);
  it('an expected ref served wins over a related one; a related one alone is a near miss; else not served', () => {
    expect(retrievalOutcome(['R2152-1'], ['L2152-1', 'R2152-1'], related)).toBe('expected_served');
    expect(retrievalOutcome(['R2152-1'], ['L2152-1'], related)).toBe('near_miss');
    expect(retrievalOutcome(['R2152-1'], ['R2152-2', 'L2123-1'], related)).toBe('not_served');
    expect(retrievalOutcome(['R2193-1', 'L2161-1'], ['R2161-1'], related)).toBe('near_miss');
    expect(retrievalOutcome(['R2152-1'], [], related)).toBe('not_served');
  });
  it('per system and column over the expected positive records; a missing record is not served', () => {
    const rows = retrievalRows(
      [
        { system_id: 'b', records: 1, missing: false, expected_refs: ['R2152-1'], declared_refs: ['L2152-1'], proven_refs: [] },
        { system_id: 'a', records: 1, missing: false, expected_refs: ['R2152-1'], declared_refs: ['R2152-1'], proven_refs: ['R2152-1'] },
        { system_id: 'a', records: 2, missing: false, expected_refs: ['R2123-1'], declared_refs: ['L2123-1'], proven_refs: ['L2123-1'] },
        { system_id: 'a', records: 5, missing: true, expected_refs: ['R2123-1'], declared_refs: [], proven_refs: [] },
      ],
      related,
    );
    expect(rows).toEqual([
      { system_id: 'a', evidence: 'declared', positives: 8, missing: 5, expected_served: 1, near_miss: 2, not_served: 5 },
      { system_id: 'a', evidence: 'proven', positives: 8, missing: 5, expected_served: 1, near_miss: 2, not_served: 5 },
      { system_id: 'b', evidence: 'declared', positives: 1, missing: 0, expected_served: 0, near_miss: 1, not_served: 0 },
      { system_id: 'b', evidence: 'proven', positives: 1, missing: 0, expected_served: 0, near_miss: 0, not_served: 1 },
    ]);
  });
});

describe('a bad rule is STUDY_INVALID, naming study.json and the member', () => {
  const example = JSON.parse(readFileSync(join(PROJECT_ROOT, 'preregistration/study.json'), 'utf8')) as {
    format: string;
    vocabulary: Record<string, unknown>;
  };
  const refusal = (rules: unknown, format = 'prereg.study/2'): PreregError => {
    const dir = mkdtempSync(join(tmpdir(), 'near-miss-'));
    try {
      const file = join(dir, 'study.json');
      writeFileSync(file, JSON.stringify({ ...example, format, vocabulary: { ...example.vocabulary, near_miss: rules } }));
      try {
        loadStudy(file);
      } catch (err) {
        if (err instanceof PreregError) {
          expect(err.message).toContain(file);
          return err;
        }
        throw err;
      }
      throw new Error('loadStudy accepted the rule');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const cases: Array<[string, unknown, string]> = [
    ['a pattern that does not compile', [{ ...PREFIX, pattern: '(?<prefix>[LRD' }], '/vocabulary/near_miss/0/pattern'],
    [
      'same names a group the pattern lacks',
      [CODE, { ...PREFIX, same: ['num'] }],
      '/vocabulary/near_miss/1/same/0 "num" is not a named group',
    ],
    ['differ names a group the pattern lacks', [{ ...PREFIX, differ: ['prefix', 'letter'] }], '/vocabulary/near_miss/0/differ/1 "letter"'],
    [
      'a group both shared and allowed to differ',
      [{ ...PREFIX, differ: ['prefix', 'number'] }],
      '/vocabulary/near_miss/0/differ/1 "number" is also in same',
    ],
    ['a named group in neither list', [{ ...PREFIX, differ: [] }], '/vocabulary/near_miss/0'],
    [
      'a named group in neither list (differ given)',
      [{ pattern: '(?<book>[LRD])(?<chapter>[0-9]{4})-(?<number>[0-9]+)', same: ['number'], differ: ['book'] }],
      '/vocabulary/near_miss/0/pattern: the named group "chapter" is in neither same nor differ',
    ],
    ['a member the schema does not know', [{ ...PREFIX, why: 'x' }], '/vocabulary/near_miss/0'],
    ['an empty rule list', [], '/vocabulary/near_miss'],
  ];
  for (const [what, rules, member] of cases) {
    it(what, () => {
      const err = refusal(rules);
      expect(err.code).toBe('STUDY_INVALID');
      expect(err.message).toContain(member);
    });
  }
  it('a prereg.study/1 cannot declare one', () => {
    const err = refusal([PREFIX], 'prereg.study/1');
    expect(err.code).toBe('STUDY_INVALID');
    expect(err.message).toContain('/vocabulary/near_miss is a prereg.study/2 field');
  });
});
