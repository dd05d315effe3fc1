// "Did you mean …?": the known name nearest to a mistyped one, by edit distance.

/** Levenshtein distance (insertions, deletions, substitutions), case-sensitive. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The nearest of `known` to `given` (case-insensitive), if it is close enough to be a typo. */
export function nearest(given: string, known: readonly string[]): string | null {
  const g = given.toLowerCase();
  let best: { name: string; d: number } | null = null;
  for (const name of known) {
    const d = editDistance(g, name.toLowerCase());
    if (!best || d < best.d) best = { name, d };
  }
  // At most a third of the name's letters wrong (and at least one allowed).
  return best && best.d <= Math.max(1, Math.floor(given.length / 3)) ? best.name : null;
}
