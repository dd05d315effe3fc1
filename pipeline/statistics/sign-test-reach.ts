// What a paired sign test can detect at a significance level (SPEC §12.6), exactly, with big
// integers: the fewest discordant items with which any split could reach alpha, and at a given
// number of discordant items, the fewest wins of the leading system that reach it. The
// two-sided p-value of k wins for the trailing system out of n is min(1, 2·Σ_{i≤k} C(n,i) / 2^n).
import type { Fraction } from './exact-rational.ts';

/** The fewest discordant items n for which the most lopsided split (n to 0) reaches alpha: 2 / 2^n ≤ alpha. */
export function fewestDiscordantToReach(alpha: Fraction): number {
  // 2·den ≤ num·2^n, for the smallest n ≥ 1 (alpha > 0, so it exists).
  let n = 1;
  while (2n * alpha.den > alpha.num * (1n << BigInt(n))) n++;
  return n;
}

/**
 * At n discordant items, the fewest wins of the leading system whose split reaches alpha (its
 * exact two-sided p-value ≤ alpha), or null when no split of n items does.
 */
export function winsNeededToReach(n: number, alpha: Fraction): number | null {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`winsNeededToReach: n must be a non-negative integer, got ${n}`);
  const scale = alpha.num << BigInt(n); // alpha · 2^n, times alpha.den
  let coefficient = 1n; // C(n, k)
  let tail = 0n; // Σ_{i ≤ k} C(n, i)
  let reached: number | null = null;
  // The trailing system's wins k run up from 0 while the split stays significant; k ≤ n / 2.
  for (let k = 0; 2 * k <= n; k++) {
    if (k > 0) coefficient = (coefficient * BigInt(n - k + 1)) / BigInt(k);
    tail += coefficient;
    if (2n * tail * alpha.den > scale) break;
    reached = n - k;
  }
  return reached;
}

/** Σ_{i ≤ k} C(n, i), exactly. */
function lowerTail(n: number, k: number): bigint {
  let coefficient = 1n;
  let tail = 1n;
  for (let i = 1; i <= k; i++) {
    coefficient = (coefficient * BigInt(n - i + 1)) / BigInt(i);
    tail += coefficient;
  }
  return tail;
}

/**
 * The exact two-sided sign-test p-value of a split (min(1, 2·Σ_{i≤k} C(n,i) / 2^n), k the fewer
 * wins), as the nearest double, and whether it is below alpha, decided on the exact fraction.
 */
export function exactSignTest(winsA: number, winsB: number, alpha: Fraction): { p_value: number; below_alpha: boolean } {
  const n = winsA + winsB;
  const twiceTail = 2n * lowerTail(n, Math.min(winsA, winsB));
  const whole = 1n << BigInt(n);
  if (twiceTail >= whole) return { p_value: 1, below_alpha: alpha.num > alpha.den };
  // 2^n is a power of two: keep the numerator's top 62 bits, then scale by a power of two.
  const shift = Math.max(0, twiceTail.toString(2).length - 62);
  const p_value = Number(twiceTail >> BigInt(shift)) * 2 ** (shift - n);
  return { p_value, below_alpha: twiceTail * alpha.den < alpha.num * whole };
}
