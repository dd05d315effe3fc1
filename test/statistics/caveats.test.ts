// The truncation gap beside a comparison (SPEC §13.1), table-driven, each row counted by hand.
import { describe, expect, it } from 'vitest';
import { comparisonCaveats } from '../../pipeline/statistics/caveats.ts';

const CASES: Array<[string, [number, number], [number, number], number, string[]]> = [
  // The row: 2 of 8 truncated against 0 of 8, a gap of 0.25.
  ['2/8 against 0/8 at 0.10', [2, 8], [0, 8], 0.1, ['TRUNCATION_GAP']],
  ['0/8 against 2/8 at 0.10 (either side)', [0, 8], [2, 8], 0.1, ['TRUNCATION_GAP']],
  // Exactly the gap is not more than it: 1/10 − 0/10 = 0.10.
  ['1/10 against 0/10 at 0.10', [1, 10], [0, 10], 0.1, []],
  ['3/60 against 0/60 at 0.10', [3, 60], [0, 60], 0.1, []],
  ['3/60 against 0/60 at 0.04', [3, 60], [0, 60], 0.04, ['TRUNCATION_GAP']],
  // Shares over different denominators: 2/20 = 0.10 against 1/40 = 0.025, a gap of 0.075.
  ['2/20 against 1/40 at 0.07', [2, 20], [1, 40], 0.07, ['TRUNCATION_GAP']],
  ['2/20 against 1/40 at 0.075', [2, 20], [1, 40], 0.075, []],
  ['a system expecting nothing', [0, 0], [2, 8], 0.1, []],
];

describe('comparisonCaveats', () => {
  for (const [what, [ta, na], [tb, nb], gap, caveats] of CASES) {
    it(what, () => expect(comparisonCaveats({ truncated: ta, expected: na }, { truncated: tb, expected: nb }, gap)).toEqual(caveats));
  }
});
