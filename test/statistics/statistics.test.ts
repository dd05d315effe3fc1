// The score stage's statistics (SPEC §12.6), each checked against a computation written here
// independently: exact big-integer binomial tails, closed forms of the Clopper–Pearson bounds,
// and Holm's procedure by its definition.
import { describe, expect, it } from 'vitest';
import { clopperPearson, regularizedBeta } from '../../pipeline/statistics/clopper-pearson.ts';
import { decimalFraction } from '../../pipeline/statistics/exact-rational.ts';
import { holmAdjusted } from '../../pipeline/statistics/holm.ts';
import { scoreIntervals, signTestAdjustments } from '../../pipeline/statistics/results.ts';
import { exactSignTest, fewestDiscordantToReach, winsNeededToReach } from '../../pipeline/statistics/sign-test-reach.ts';
import { binomialRow, upperTail } from '../support/exact-binomial.ts';

describe('Clopper–Pearson intervals', () => {
  it.each([[10], [48], [1000]])('at k = 0 and k = n they are the closed forms 1 − (α/2)^(1/n) and (α/2)^(1/n) (n = %i)', (n) => {
    const low = clopperPearson(0, n, 0.05)!;
    const high = clopperPearson(n, n, 0.05)!;
    expect(low.lower).toBe(0);
    expect(Math.abs(low.upper - (1 - 0.025 ** (1 / n)))).toBeLessThan(1e-12);
    expect(high.upper).toBe(1);
    expect(Math.abs(high.lower - 0.025 ** (1 / n))).toBeLessThan(1e-12);
  });

  it.each([
    [47, 48, 0.05],
    [21, 48, 0.05],
    [3, 157, 0.05],
    [15, 15, 0.01],
    [1, 2, 0.1],
    [120, 240, 0.05],
  ])('bound %i/%i at alpha %f where the exact binomial tails equal alpha/2', (k, n, alpha) => {
    const i = clopperPearson(k, n, alpha)!;
    // The lower bound: P(X ≥ k | p = lower) = alpha/2; the upper: P(X ≤ k | p = upper) = alpha/2.
    if (k > 0) expect(Math.abs(upperTail(k, n, i.lower) - alpha / 2) / (alpha / 2)).toBeLessThan(1e-9);
    if (k < n) expect(Math.abs(1 - upperTail(k + 1, n, i.upper) - alpha / 2) / (alpha / 2)).toBeLessThan(1e-9);
    expect(i.lower).toBeLessThan(k / n);
    if (k < n) expect(i.upper).toBeGreaterThan(k / n);
    else expect(i.upper).toBe(1);
  });

  it('agrees with a textbook value (47/48 at 95%: 0.8893 to 0.9995)', () => {
    const i = clopperPearson(47, 48, 0.05)!;
    expect(i.lower.toFixed(4)).toBe('0.8893');
    expect(i.upper.toFixed(4)).toBe('0.9995');
  });

  it('has no interval without a denominator, and refuses impossible counts', () => {
    expect(clopperPearson(0, 0, 0.05)).toBeNull();
    expect(() => clopperPearson(5, 4, 0.05)).toThrow(RangeError);
    expect(() => clopperPearson(1, 4, 0)).toThrow(RangeError);
  });

  it('the regularized incomplete beta function matches I_x(1, b) = 1 − (1 − x)^b', () => {
    for (const [x, b] of [
      [0.3, 5],
      [0.01, 200],
      [0.9, 2],
    ] as const)
      expect(Math.abs(regularizedBeta(x, 1, b) - (1 - (1 - x) ** b))).toBeLessThan(1e-13);
  });

  it('scoreIntervals puts an interval beside both columns of every score, none without a denominator', () => {
    const rows = scoreIntervals(
      [
        { system_id: 's', metric: 'm', declared: 47, proven: 21, n_declared: 48, n_proven: 48 },
        { system_id: 's', metric: 'cited_given_served', declared: 15, proven: 0, n_declared: 15, n_proven: 0 },
      ],
      0.05,
    );
    expect(rows[0]).toMatchObject({ system_id: 's', metric: 'm', alpha: 0.05 });
    expect(rows[0]!.declared_lower).toBeCloseTo(0.8893, 4);
    expect(rows[0]!.proven_upper).toBeLessThan(0.6);
    expect(rows[1]).toMatchObject({ declared_upper: 1, proven_lower: null, proven_upper: null });
  });
});

describe('Holm-adjusted p-values', () => {
  it('follow the step-down definition: the i-th smallest times (m − i + 1), made monotone, capped at 1', () => {
    const p = [0.01, 0.04, 0.03, 0.005, 0.5];
    // Sorted: 0.005 ×5 = 0.025, 0.01 ×4 = 0.04, 0.03 ×3 = 0.09, 0.04 ×2 = 0.08 → 0.09, 0.5 ×1 = 0.5.
    const expected = [0.04, 0.09, 0.09, 0.025, 0.5];
    holmAdjusted(p).forEach((x, i) => {
      expect(x).toBeCloseTo(expected[i]!, 15);
    });
    expect(holmAdjusted([0.6, 0.7])).toEqual([1, 1]);
    expect(holmAdjusted([])).toEqual([]);
  });

  it('are computed within each metric only', () => {
    const rows = signTestAdjustments(
      [
        { system_a: 'a', system_b: 'b', metric: 'm/declared', wins_a: 9, wins_b: 1, ties: 0, p_value: 0.021484375 },
        { system_a: 'a', system_b: 'c', metric: 'm/declared', wins_a: 5, wins_b: 5, ties: 0, p_value: 1 },
        { system_a: 'a', system_b: 'b', metric: 'm/proven', wins_a: 9, wins_b: 1, ties: 0, p_value: 0.021484375 },
      ],
      0.05,
    );
    expect(rows.map((r) => r.p_holm)).toEqual([0.04296875, 1, 0.021484375]);
    expect(rows.map((r) => r.reaches_alpha)).toEqual([true, false, true]);
  });
});

describe('what a sign test can detect at alpha', () => {
  /** The exact two-sided p-value of k trailing wins out of n, as a fraction (num / 2^n), by brute force. */
  const reaches = (n: number, k: number, alpha: { num: bigint; den: bigint }) => {
    const row = binomialRow(n);
    const tail = row.slice(0, k + 1).reduce((a, b) => a + b, 0n);
    return 2n * tail * alpha.den <= alpha.num * 2n ** BigInt(n);
  };

  it.each([[0.05], [0.01], [0.001], [0.5]])('the fewest discordant items and the wins needed at alpha %f agree with brute force', (a) => {
    const alpha = decimalFraction(a);
    const fewest = fewestDiscordantToReach(alpha);
    expect(reaches(fewest, 0, alpha)).toBe(true);
    expect(fewest === 1 || !reaches(fewest - 1, 0, alpha)).toBe(true);
    for (const n of [0, 1, fewest - 1, fewest, 10, 25, 100, 301]) {
      if (n < 0) continue;
      let expected: number | null = null;
      for (let k = 0; 2 * k <= n; k++) if (reaches(n, k, alpha)) expected = n - k;
      expect(winsNeededToReach(n, alpha), `n = ${n}`).toBe(expected);
    }
  });

  it('knows the textbook figures at 0.05: 6 items at least; 9 of 10, 61 of 100', () => {
    const alpha = decimalFraction(0.05);
    expect(fewestDiscordantToReach(alpha)).toBe(6);
    expect(winsNeededToReach(10, alpha)).toBe(9);
    expect(winsNeededToReach(100, alpha)).toBe(61);
    expect(winsNeededToReach(5, alpha)).toBeNull();
  });

  it('reads alpha exactly as it is written', () => {
    expect(decimalFraction(0.05)).toEqual({ num: 5n, den: 100n });
    expect(decimalFraction(1e-7)).toEqual({ num: 1n, den: 10_000_000n });
    expect(decimalFraction(0.5)).toEqual({ num: 5n, den: 10n });
    expect(() => decimalFraction(Number.NaN)).toThrow(RangeError);
  });
});

describe('the exact sign test of the noise floor', () => {
  // Against tails written out by hand: C(n, i) summed, times 2, over 2^n.
  it.each([
    [0, 0, 1, false],
    [1, 1, 1, false],
    [6, 0, 2 / 64, true], // 2·1/64 = 0.03125 < 0.05
    [5, 0, 2 / 32, false], // 0.0625
    [9, 1, (2 * (1 + 10)) / 1024, true], // 0.021484375
    [8, 2, (2 * (1 + 10 + 45)) / 1024, false], // 0.109375
  ])('wins %i : %i → p = %f, below 0.05: %s', (a, b, p, below) => {
    expect(exactSignTest(a, b, decimalFraction(0.05))).toEqual({ p_value: p, below_alpha: below });
  });

  it("stays exact beyond a double's range: 1,200 items split 500 : 700 is below 1e-6", () => {
    const r = exactSignTest(500, 700, decimalFraction(0.000001));
    expect(r.below_alpha).toBe(true);
    expect(r.p_value).toBeGreaterThan(0);
    expect(r.p_value).toBeLessThan(1e-6);
  });
});
