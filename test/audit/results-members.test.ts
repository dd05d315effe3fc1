// The audit's schema rail knows every member results.json must have (docs/outputs.md), among them
// evidence.seller_inconsistencies (SPEC §13.1): a results.json that drops the list, or a row of it
// that is not a SELLER_INCONSISTENT request with what each proof was served, is a schema difference.
import { describe, expect, it } from 'vitest';
import { RESULTS_FORMAT } from '../../pipeline/emit/manifest.ts';
import { RESULT_NAMES } from '../../pipeline/emit/tables.ts';
import { parseJson } from '../../pipeline/formats/json-parse.ts';
import { toPlain, type JsonObject } from '../../pipeline/formats/canonical-json.ts';
import { resultsProblems } from '../../pipeline/audit/recorded.ts';

function results(evidence: unknown): JsonObject {
  const doc = { format: RESULTS_FORMAT, ...Object.fromEntries(RESULT_NAMES.map((n) => [n, []])), evidence };
  return parseJson(JSON.stringify(doc)) as JsonObject;
}

const row = {
  reason_code: 'SELLER_INCONSISTENT',
  item_id: 'q-1',
  request_hash: 'ab'.repeat(32),
  seller: 's.example',
  served: [{ system_id: 'a', attempt: 1, evidence_index: 0, passages: [{ ref: 'A-1', text: 't' }] }],
};

describe('resultsProblems: evidence.seller_inconsistencies', () => {
  it('accepts an empty list and well-formed rows', () => {
    expect(resultsProblems(results({ registered_systems: [], reuse: [], by_system: [], seller_inconsistencies: [] }))).toEqual([]);
    expect(resultsProblems(results({ registered_systems: [], reuse: [], by_system: [], seller_inconsistencies: [row] }))).toEqual([]);
  });

  it('refuses the list missing, and a row without its code, request hash or what was served', () => {
    expect(resultsProblems(results({ registered_systems: [], reuse: [], by_system: [] }))).toEqual([
      'evidence.seller_inconsistencies is not an array',
    ]);
    expect(resultsProblems(results(null))).toEqual(['evidence.seller_inconsistencies is not an array']);
    for (const bad of [
      { ...row, reason_code: 'OTHER' },
      { ...row, request_hash: null },
      { ...row, served: 'A-1' },
    ]) {
      expect(resultsProblems(results({ seller_inconsistencies: [bad] }))).toEqual([
        'evidence.seller_inconsistencies[0] lacks a field or has a wrong type',
      ]);
    }
  });
});

describe('resultsProblems: hypotheses carry their test (SPEC §13.2)', () => {
  const evidence = { registered_systems: [], reuse: [], by_system: [], seller_inconsistencies: [] };
  const hypothesis = {
    hypothesis_id: 'H3',
    statement: 's',
    threshold: 0.05,
    observed: 0.019,
    outcome: 'INCONCLUSIVE',
    reason: 'r',
    p_value: 0.043,
    p_holm: 0.129,
    p_value_against: 0.986,
    p_holm_against: 1,
    observed_lower: 0.002,
    observed_upper: 0.068,
    decision_reason: 'd',
  };
  const withHypotheses = (rows: object[]) =>
    parseJson(JSON.stringify({ ...(toPlain(results(evidence)) as object), hypotheses: rows })) as JsonObject;

  it('accepts rows with every documented column, and refuses a row decided on a point estimate (no p_holm, no decision_reason)', () => {
    expect(resultsProblems(withHypotheses([hypothesis]))).toEqual([]);
    const { p_holm: _p, decision_reason: _d, ...pointEstimate } = hypothesis;
    expect(resultsProblems(withHypotheses([hypothesis, pointEstimate]))).toEqual(['hypotheses rows lack p_holm, decision_reason']);
  });
});
