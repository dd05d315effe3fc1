// The exact (Clopper–Pearson) two-sided confidence interval of a binomial rate k / n at level
// 1 − alpha (SPEC §12.6): the bounds are the beta quantiles B(alpha/2; k, n−k+1) and
// B(1 − alpha/2; k+1, n−k), found by bisection on the regularized incomplete beta function.
// DuckDB has no beta quantile, so the score stage computes these from section 5's numerators and
// denominators. Deterministic: the same inputs take the same steps on every run.

/** ln Γ(x) for x > 0: Lanczos (g = 7, 9 terms), ≈ 1e-15 relative; reflection is not needed here. */
export function lnGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const g = 7;
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const z = x - 1;
  let a = c[0]!;
  const t = z + g + 0.5;
  for (let i = 1; i < g + 2; i++) a += c[i]! / (z + i);
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of the incomplete beta function (modified Lentz). */
function betaContinuedFraction(a: number, b: number, x: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  if (Math.abs(d) < tiny) d = tiny;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 100_000; m++) {
    const m2 = 2 * m;
    let aa = (m * (b - m) * x) / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    if (Math.abs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const step = d * c;
    h *= step;
    if (Math.abs(step - 1) < 1e-16) return h;
  }
  return h;
}

/** The regularized incomplete beta function I_x(a, b), a, b > 0. */
export function regularizedBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  return x < (a + 1) / (a + b + 2) ? (front * betaContinuedFraction(a, b, x)) / a : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b;
}

/** The x in [0, 1] where I_x(a, b) = q, by bisection down to adjacent doubles. */
function betaQuantile(q: number, a: number, b: number): number {
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 2_000; i++) {
    const mid = lo + (hi - lo) / 2;
    if (mid === lo || mid === hi) break;
    if (regularizedBeta(mid, a, b) < q) lo = mid;
    else hi = mid;
  }
  return lo + (hi - lo) / 2;
}

export interface Interval {
  lower: number;
  upper: number;
}

/** The exact two-sided interval of k successes in n trials at level 1 − alpha; null when n = 0 (no rate). */
export function clopperPearson(k: number, n: number, alpha: number): Interval | null {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || k > n)
    throw new RangeError(`clopperPearson: need integers 0 ≤ k ≤ n, got ${k} / ${n}`);
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`clopperPearson: alpha must be in (0, 1), got ${alpha}`);
  if (n === 0) return null;
  return {
    lower: k === 0 ? 0 : betaQuantile(alpha / 2, k, n - k + 1),
    upper: k === n ? 1 : betaQuantile(1 - alpha / 2, k + 1, n - k),
  };
}
