// The noise floor of identical campaigns (SPEC §13.2). A replicate (study.json
// systems[].replicate_of) is its original system run again, alike: how often the two disagree item
// by item is the noise any comparison must beat. Two identical campaigns of one system can flip on
// a fifth of the items; a difference no larger than that is indistinguishable from chance.
import { decimalFraction } from './exact-rational.ts';
import type { SignTestRow } from './results.ts';
import { exactSignTest } from './sign-test-reach.ts';

/** A row of result_noise_floor: one replicate pair and metric. */
export interface NoiseFloorRow {
  system_id: string;
  replicate: string;
  metric: string;
  /** The items both campaigns were compared on (wins either way and ties). */
  items: number;
  discordant: number;
  /** The pair's own two-sided sign-test p-value, computed exactly (the nearest double). */
  p_value: number;
  /** NOISE_FLOOR_EXCEEDED when p_value < alpha: the two were not one system, or not run alike. */
  reason_code: 'NOISE_FLOOR_EXCEEDED' | null;
}

/** The original a row compares its replicate with, oriented; null when the row is not a replicate pair. */
function replicatePair(t: SignTestRow, replicateOf: ReadonlyMap<string, string>): { original: string; replicate: string } | null {
  if (replicateOf.get(t.system_b) === t.system_a) return { original: t.system_a, replicate: t.system_b };
  if (replicateOf.get(t.system_a) === t.system_b) return { original: t.system_b, replicate: t.system_a };
  return null;
}

/**
 * Splits section 5's sign tests: each replicate against its original is a noise-floor row; a
 * comparison of two originals is a comparison; any other row with a replicate in it is neither
 * (a replicate is paired only with its original, and ranks against nobody).
 */
export function splitSignTests(
  tests: readonly SignTestRow[],
  replicateOf: ReadonlyMap<string, string>,
  alpha: number,
): { floor: NoiseFloorRow[]; comparisons: SignTestRow[] } {
  const exactAlpha = decimalFraction(alpha);
  const floor: NoiseFloorRow[] = [];
  const comparisons: SignTestRow[] = [];
  for (const t of tests) {
    const pair = replicatePair(t, replicateOf);
    if (pair !== null) {
      const { p_value, below_alpha } = exactSignTest(t.wins_a, t.wins_b, exactAlpha);
      floor.push({
        system_id: pair.original,
        replicate: pair.replicate,
        metric: t.metric,
        items: t.wins_a + t.wins_b + t.ties,
        discordant: t.wins_a + t.wins_b,
        p_value,
        reason_code: below_alpha ? 'NOISE_FLOOR_EXCEEDED' : null,
      });
    } else if (!replicateOf.has(t.system_a) && !replicateOf.has(t.system_b)) {
      comparisons.push(t);
    }
  }
  return { floor, comparisons };
}

/**
 * Whether a comparison's discordant items exceed the A/A discordance of the system it favours (the
 * one with more wins), on the same metric; null on a tie or when that system has no replicate. The
 * favoured system's floor, not the other's: a losing system's noisy replicate cannot veto a win.
 */
export function beyondNoise(t: SignTestRow, floor: readonly NoiseFloorRow[]): boolean | null {
  const favoured = t.wins_a > t.wins_b ? t.system_a : t.wins_b > t.wins_a ? t.system_b : null;
  if (favoured === null) return null;
  const own = floor.find((f) => f.system_id === favoured && f.metric === t.metric);
  return own === undefined ? null : t.wins_a + t.wins_b > own.discordant;
}
