// Holm's step-down adjustment of the p-values of one family (SPEC §12.6: the sign tests of one
// metric): sorted ascending, the i-th of m is multiplied by m − i + 1, made monotone, capped at 1.

/** Holm-adjusted p-values, in the order given (equal p-values keep their order: the values do not depend on it). */
export function holmAdjusted(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const ranked = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const adjusted = new Array<number>(m);
  let running = 0;
  ranked.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

/**
 * The Holm-adjusted value of `p` within `family` (which holds it): equal p-values adjust alike, so
 * the value does not depend on which of them `p` is. Section 5 calls it once per hypothesis with
 * the p-values of the whole family (store/statistics-sql.ts).
 */
export function holmWithin(p: number, family: readonly number[]): number {
  if (family.some((x) => !(x >= 0 && x <= 1))) throw new RangeError('every p-value of the family must be in [0, 1]');
  const at = family.indexOf(p);
  if (at < 0) throw new RangeError(`the p-value ${p} is not one of the family's ${family.length}`);
  return holmAdjusted(family)[at]!;
}
