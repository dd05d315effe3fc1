// Caveats beside a comparison (SPEC §13.1): facts a reader needs to read a sign test, which void
// nothing. TRUNCATION_GAP: the two systems' shares of truncated answers, over their expected
// records, differ by more than protocol.max_truncation_gap — truncated answers already count as
// failures, but a system cut more often than the other is compared partly on its token limit.
// CONFIG_VARIES: a system's records carry more than one configuration (a line's `config`), so its
// attempts are not one campaign run alike.
import { decimalFraction } from './exact-rational.ts';

/** A system's truncated answers and its expected records. */
export interface TruncationShare {
  truncated: number;
  expected: number;
}

/** CONFIG_VARIES when either system's records carry more than one configuration (SPEC §13.2). */
export function configurationCaveats(a: string, b: string, varying: ReadonlySet<string>): string[] {
  return varying.has(a) || varying.has(b) ? ['CONFIG_VARIES'] : [];
}

/**
 * The caveats of a comparison of a and b, in code order. Compared exactly: |ta/na − tb/nb| > gap
 * as |ta·nb − tb·na| · gap_den > gap_num · na · nb, the gap read as the decimal it is written as.
 */
export function comparisonCaveats(a: TruncationShare | undefined, b: TruncationShare | undefined, maxTruncationGap: number): string[] {
  if (a === undefined || b === undefined || a.expected === 0 || b.expected === 0) return [];
  const gap = decimalFraction(maxTruncationGap);
  const [ta, na, tb, nb] = [a.truncated, a.expected, b.truncated, b.expected].map(BigInt) as [bigint, bigint, bigint, bigint];
  const diff = ta * nb - tb * na;
  return (diff < 0n ? -diff : diff) * gap.den > gap.num * na * nb ? ['TRUNCATION_GAP'] : [];
}
