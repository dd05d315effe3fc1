// The statistics the score stage adds to section 5's results (SPEC §12.6), as pure functions
// from result rows to result rows: an exact interval beside every rate, and beside every sign
// test its Holm-adjusted p-value and what a test of its size can detect at the study's alpha.
// Section 5 decides what is counted and how; these only state its uncertainty.
import { clopperPearson } from './clopper-pearson.ts';
import { decimalFraction } from './exact-rational.ts';
import { holmAdjusted } from './holm.ts';
import { fewestDiscordantToReach, winsNeededToReach } from './sign-test-reach.ts';

/** A row of result_scores: a rate per column as numerator and denominator. */
export interface ScoreRow {
  system_id: string;
  metric: string;
  declared: number;
  proven: number;
  n_declared: number;
  n_proven: number;
}

/** A row of result_score_intervals: each column's exact interval at level 1 − alpha (null bounds: no denominator). */
export interface ScoreIntervalRow {
  system_id: string;
  metric: string;
  alpha: number;
  declared_lower: number | null;
  declared_upper: number | null;
  proven_lower: number | null;
  proven_upper: number | null;
}

export function scoreIntervals(scores: readonly ScoreRow[], alpha: number): ScoreIntervalRow[] {
  return scores.map((s) => {
    const declared = clopperPearson(s.declared, s.n_declared, alpha);
    const proven = clopperPearson(s.proven, s.n_proven, alpha);
    return {
      system_id: s.system_id,
      metric: s.metric,
      alpha,
      declared_lower: declared?.lower ?? null,
      declared_upper: declared?.upper ?? null,
      proven_lower: proven?.lower ?? null,
      proven_upper: proven?.upper ?? null,
    };
  });
}

/** A row of result_sign_tests. */
export interface SignTestRow {
  system_a: string;
  system_b: string;
  metric: string;
  wins_a: number;
  wins_b: number;
  ties: number;
  p_value: number;
}

/** A row of result_sign_test_adjustments. */
export interface SignTestAdjustmentRow {
  system_a: string;
  system_b: string;
  metric: string;
  discordant: number;
  p_value: number;
  /** Holm-adjusted over the sign tests of the same metric. */
  p_holm: number;
  alpha: number;
  /** p_holm ≤ alpha. */
  reaches_alpha: boolean;
  /** The fewest discordant items with which any comparison could reach alpha (the n-to-0 split). */
  fewest_discordant: number;
  /** At this comparison's discordant items, the fewest wins of the leader that reach alpha (raw); null when none can. */
  wins_needed: number | null;
  /** What a reader needs beside the comparison (SPEC §13.1, caveats.ts): UPPER_SNAKE codes, possibly none. */
  caveats: string[];
  /** Discordant items beyond the A/A discordance of the favoured system (noise-floor.ts); null without one. */
  beyond_noise: boolean | null;
}

export function signTestAdjustments(
  tests: readonly SignTestRow[],
  alpha: number,
  caveatsOf: (a: string, b: string) => string[] = () => [],
  beyondNoiseOf: (t: SignTestRow) => boolean | null = () => null,
): SignTestAdjustmentRow[] {
  const exactAlpha = decimalFraction(alpha);
  const fewest = fewestDiscordantToReach(exactAlpha);
  const byMetric = new Map<string, number[]>();
  tests.forEach((t, i) => {
    byMetric.set(t.metric, [...(byMetric.get(t.metric) ?? []), i]);
  });
  const holm = new Array<number>(tests.length);
  for (const indices of byMetric.values()) {
    const adjusted = holmAdjusted(indices.map((i) => tests[i]!.p_value));
    indices.forEach((i, j) => {
      holm[i] = adjusted[j]!;
    });
  }
  const needed = new Map<number, number | null>();
  return tests.map((t, i) => {
    const n = t.wins_a + t.wins_b;
    if (!needed.has(n)) needed.set(n, winsNeededToReach(n, exactAlpha));
    return {
      system_a: t.system_a,
      system_b: t.system_b,
      metric: t.metric,
      discordant: n,
      p_value: t.p_value,
      p_holm: holm[i]!,
      alpha,
      reaches_alpha: holm[i]! <= alpha,
      fewest_discordant: fewest,
      wins_needed: needed.get(n)!,
      caveats: caveatsOf(t.system_a, t.system_b),
      beyond_noise: beyondNoiseOf(t),
    };
  });
}
