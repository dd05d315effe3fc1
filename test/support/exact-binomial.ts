// Binomial tails computed exactly with big integers, written apart from pipeline/statistics/: the
// independent implementation the statistics are checked against (test/statistics/).

/** C(n, i) for i = 0..n, exactly (Pascal's rule: written apart from the code under test). */
export function binomialRow(n: number): bigint[] {
  let row = [1n];
  for (let m = 1; m <= n; m++) row = Array.from({ length: m + 1 }, (_, i) => (i === 0 || i === m ? 1n : row[i - 1]! + row[i]!));
  return row;
}

/** A double as the exact fraction it is: mantissa / 2^k. */
export function exactDouble(x: number): { num: bigint; den: bigint } {
  let den = 1n;
  let v = x;
  while (!Number.isInteger(v)) {
    v *= 2;
    den *= 2n;
  }
  return { num: BigInt(v), den };
}

/** Σ_{lo ≤ i ≤ hi} C(n, i) p^i (1 − p)^(n − i), p a double taken exactly, as a double (big-integer arithmetic throughout). */
function tailSum(lo: number, hi: number, n: number, p: number): number {
  const { num, den } = exactDouble(p);
  const row = binomialRow(n);
  let sum = 0n;
  for (let i = lo; i <= hi; i++) sum += row[i]! * num ** BigInt(i) * (den - num) ** BigInt(n - i);
  if (sum === 0n) return 0;
  const scale = den ** BigInt(n);
  // To a double with 60 significant bits of the quotient.
  const shift = BigInt(Math.max(0, scale.toString(2).length - sum.toString(2).length + 60));
  return Number((sum << shift) / scale) / 2 ** Number(shift);
}

/** P(X ≥ k) for X ~ Binomial(n, p). */
export function upperTail(k: number, n: number, p: number): number {
  return tailSum(k, n, n, p);
}

/** P(X ≤ k) for X ~ Binomial(n, p), summed directly (not 1 − the upper tail, which would lose a small value). */
export function lowerTail(k: number, n: number, p: number): number {
  return tailSum(0, k, n, p);
}
