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
