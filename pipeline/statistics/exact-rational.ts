// A decimal number as an exact fraction of big integers: study.json's alpha is written in
// decimal (0.05), and the sign-test thresholds compare binomial tails with it exactly.

export interface Fraction {
  num: bigint;
  den: bigint;
}

/** The exact value of the decimal text JavaScript gives `x` (0.05 → 5/100, 1e-7 → 1/10000000). */
export function decimalFraction(x: number): Fraction {
  if (!Number.isFinite(x) || x < 0) throw new RangeError(`decimalFraction: ${x} is not a finite non-negative number`);
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(x));
  if (!m) throw new RangeError(`decimalFraction: cannot read ${String(x)}`);
  const digits = BigInt(m[1]! + (m[2] ?? ''));
  const exponent = Number(m[3] ?? 0) - (m[2]?.length ?? 0);
  return exponent >= 0 ? { num: digits * 10n ** BigInt(exponent), den: 1n } : { num: digits, den: 10n ** BigInt(-exponent) };
}
