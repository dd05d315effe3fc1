// What a hypothesis row of section 5 may conclude (SPEC §13.2): its outcome is the decision of
// Holm's procedure at the study's alpha across the whole family, in both directions. `p_value` tests
// the null "the threshold is not met" (small: SUPPORTED), `p_value_against` the opposite null (small:
// NOT_SUPPORTED); each is Holm-adjusted across the family's rows. Section 5 computes them with the
// SQL functions of store/statistics-sql.ts; the runner checks here that what it wrote follows, so
// that no plan declares a winner on a point estimate.
import { holmAdjusted } from './holm.ts';

export interface HypothesisDecision {
  hypothesis_id: string;
  outcome: string;
  p_value: number | null;
  p_holm: number | null;
  p_value_against: number | null;
  p_holm_against: number | null;
}

/** Holm's value agrees with the one recomputed when equal to 1e-12 absolute (doubles through SQL). */
const agrees = (a: number, b: number) => Math.abs(a - b) <= 1e-12 + 1e-9 * Math.abs(b);

const isP = (x: number | null): x is number => x !== null && x >= 0 && x <= 1;

/** Each row's departure from the rule, as a sentence naming the hypothesis; empty when every row follows it. */
export function decisionProblems(rows: readonly HypothesisDecision[], alpha: number): string[] {
  const problems: string[] = [];
  const bad = rows.filter((r) => ![r.p_value, r.p_holm, r.p_value_against, r.p_holm_against].every(isP));
  for (const r of bad)
    problems.push(
      `${r.hypothesis_id}: p_value, p_holm, p_value_against and p_holm_against must each be a probability (an undecidable hypothesis has p = 1), got ${[r.p_value, r.p_holm, r.p_value_against, r.p_holm_against].join(', ')}`,
    );
  if (bad.length > 0) return problems;
  const holm = holmAdjusted(rows.map((r) => r.p_value!));
  const holmAgainst = holmAdjusted(rows.map((r) => r.p_value_against!));
  rows.forEach((r, i) => {
    if (!agrees(r.p_holm!, holm[i]!))
      problems.push(
        `${r.hypothesis_id}: p_holm ${r.p_holm} is not Holm's adjustment of p_value across the family's ${rows.length} hypotheses (${holm[i]})`,
      );
    if (!agrees(r.p_holm_against!, holmAgainst[i]!))
      problems.push(
        `${r.hypothesis_id}: p_holm_against ${r.p_holm_against} is not Holm's adjustment of p_value_against across the family's ${rows.length} hypotheses (${holmAgainst[i]})`,
      );
    const decided = r.p_holm! <= alpha ? 'SUPPORTED' : r.p_holm_against! <= alpha ? 'NOT_SUPPORTED' : 'INCONCLUSIVE';
    if (r.outcome !== decided)
      problems.push(
        `${r.hypothesis_id}: outcome ${r.outcome}, but at alpha ${alpha} p_holm ${r.p_holm} and p_holm_against ${r.p_holm_against} decide ${decided}`,
      );
  });
  return problems;
}
