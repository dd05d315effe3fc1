// Retrieval, told apart from a near miss (SPEC §13.2): per system and column, over the positive
// records the protocol expects, whether an expected article was served, only an article related to
// one by the study's frozen rule (study.json vocabulary.near_miss: the legislative article for the
// regulatory one, the right number of the wrong CCAG), or neither. Pipeline-owned, like the noise
// floor: a plan cannot credit a near miss as retrieval, or leave one out.
import type { Related } from '../study/near-miss.ts';
import { byCodePoint } from '../study/vocabulary.ts';

/** Expected positive records (expected_records × answer_key) alike in what follows: their number, and the refs served to each in each column. */
export interface RetrievalRecord {
  system_id: string;
  /** How many expected records these are. */
  records: number;
  /** No record fills the expected attempt: nothing was served to it. */
  missing: boolean;
  expected_refs: readonly string[];
  /** served_refs.declared. */
  declared_refs: readonly string[];
  /** served_refs.proven_owned: what section 5's proven column counts as served. */
  proven_refs: readonly string[];
}

export type RetrievalOutcome = 'expected_served' | 'near_miss' | 'not_served';

/** A row of result_retrieval: one system and one column; the three outcomes add up to `positives`. */
export interface RetrievalRow {
  system_id: string;
  evidence: 'declared' | 'proven';
  /** The expected positive records (item × attempt of the protocol), missing ones included. */
  positives: number;
  /** Of them, no record filled: each is `not_served`. */
  missing: number;
  expected_served: number;
  near_miss: number;
  not_served: number;
}

/** An expected ref served wins; else a served ref related to an expected one is a near miss; else nothing was served that counts. */
export function retrievalOutcome(expected: readonly string[], served: readonly string[], related: Related): RetrievalOutcome {
  if (served.some((ref) => expected.includes(ref))) return 'expected_served';
  if (served.some((ref) => expected.some((e) => related(e, ref)))) return 'near_miss';
  return 'not_served';
}

/** Each system's two rows (declared, then proven), systems in code-point order. */
export function retrievalRows(records: readonly RetrievalRecord[], related: Related): RetrievalRow[] {
  const memo = new Map<string, boolean>();
  const cached: Related = (a, b) => {
    const key = `${a}\u0000${b}`;
    let r = memo.get(key);
    if (r === undefined) memo.set(key, (r = related(a, b)));
    return r;
  };
  const bySystem = new Map<string, Record<'declared' | 'proven', RetrievalRow>>();
  const blank = (system_id: string, evidence: 'declared' | 'proven'): RetrievalRow => ({
    system_id,
    evidence,
    positives: 0,
    missing: 0,
    expected_served: 0,
    near_miss: 0,
    not_served: 0,
  });
  for (const r of records) {
    let rows = bySystem.get(r.system_id);
    if (rows === undefined)
      bySystem.set(r.system_id, (rows = { declared: blank(r.system_id, 'declared'), proven: blank(r.system_id, 'proven') }));
    for (const evidence of ['declared', 'proven'] as const) {
      const row = rows[evidence];
      row.positives += r.records;
      if (r.missing) row.missing += r.records;
      row[retrievalOutcome(r.expected_refs, evidence === 'declared' ? r.declared_refs : r.proven_refs, cached)] += r.records;
    }
  }
  return [...bySystem.keys()].sort(byCodePoint).flatMap((s) => [bySystem.get(s)!.declared, bySystem.get(s)!.proven]);
}
