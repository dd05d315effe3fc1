// Findings kept up to a number, the rest counted: a log of many bad entries is reported by its
// first findings and how many more there are, never by one object per entry held in memory.

/** How many findings a check lists; the others are counted. */
export const MAX_LISTED_FINDINGS = 100;

export class CappedFindings<T> {
  readonly listed: T[] = [];
  /** Findings counted and not listed. */
  omitted = 0;
  /** Some finding, listed or not, fails (by the predicate given). */
  failing = false;

  constructor(
    private readonly fails: (finding: T) => boolean,
    private readonly max = MAX_LISTED_FINDINGS,
  ) {}

  push(...findings: T[]): void {
    for (const f of findings) {
      if (this.fails(f)) this.failing = true;
      if (this.listed.length < this.max) this.listed.push(f);
      else this.omitted++;
    }
  }
}
