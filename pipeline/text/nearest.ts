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

/**
 * Up to `limit` names of `known` a reader may have meant by `given` (case-insensitive), nearest
 * first: a typo (as `nearest`), a name `given` begins (PROOF_TIME_OUTSIDE for
 * PROOF_TIME_OUTSIDE_WINDOW), or one holding every `_`-separated word of `given`.
 */
export function suggestions(given: string, known: readonly string[], limit = 3): string[] {
  const g = given.toLowerCase();
  const words = g.split('_').filter((w) => w !== '');
  const typo = Math.max(1, Math.floor(given.length / 3));
  const scored: { name: string; d: number }[] = [];
  for (const name of known) {
    const n = name.toLowerCase();
    const d = editDistance(g, n);
    const related = d <= typo || n.startsWith(g) || (words.length > 1 && words.every((w) => n.split('_').includes(w)));
    if (related) scored.push({ name, d });
  }
  return scored
    .sort((a, b) => a.d - b.d || (a.name < b.name ? -1 : 1))
    .slice(0, limit)
    .map((s) => s.name);
}
