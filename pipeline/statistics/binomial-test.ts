// The one-sided exact binomial test of a count against a threshold rate (SPEC §13.2): the tails of
// Binomial(n, p) as the regularized incomplete beta function of clopper-pearson.ts, the identity
// P(X ≥ k) = I_p(k, n − k + 1) for 1 ≤ k ≤ n. A hypothesis "at least p" is supported when P(X ≥ k)
// is small, "at most p" when P(X ≤ k) is; section 5 calls these as SQL functions (store/statistics-sql.ts).
import { regularizedBeta } from './clopper-pearson.ts';

function checkCounts(k: number, n: number, p: number): void {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || k > n) throw new RangeError(`need integers 0 ≤ k ≤ n, got ${k} / ${n}`);
  if (!(p >= 0 && p <= 1)) throw new RangeError(`the threshold rate must be in [0, 1], got ${p}`);
}

/** P(X ≥ k) for X ~ Binomial(n, p): the one-sided exact p-value of k successes against "the rate is at most p". */
export function binomialAtLeast(k: number, n: number, p: number): number {
  checkCounts(k, n, p);
  return k === 0 ? 1 : regularizedBeta(p, k, n - k + 1);
}

/** P(X ≤ k) for X ~ Binomial(n, p): the one-sided exact p-value of k successes against "the rate is at least p". */
export function binomialAtMost(k: number, n: number, p: number): number {
  checkCounts(k, n, p);
  return k === n ? 1 : regularizedBeta(1 - p, n - k, k + 1);
}
