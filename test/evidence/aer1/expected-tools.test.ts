// Expected tools (SPEC §13.3): a timeline's logged tools must contain the protocol's expected
// tools as a subsequence, under the names the system registered. One row per rule, a passing and
// a failing case; the expected values are written out by hand.
import { describe, expect, it } from 'vitest';
import { reconcileTools, type ExpectedTool } from '../../../pipeline/evidence/aer1/index.ts';

const protocol = (...names: Array<[string, string]>): ExpectedTool[] => names.map(([tool, logged_as]) => ({ tool, logged_as }));
const plain = protocol(['retrieve', 'retrieve'], ['generate', 'generate']);
const renamed = protocol(['retrieve', 'search_corpus'], ['generate', 'llm_answer']);

describe('reconcileTools', () => {
  it.each([
    ['both logged, in order', ['retrieve', 'generate'], plain, 'pass', [], []],
    [
      'both logged with other steps between and around',
      ['plan', 'retrieve', 'rerank', 'generate', 'cite'],
      plain,
      'pass',
      [],
      ['cite', 'plan', 'rerank'],
    ],
    ['a tool logged twice', ['retrieve', 'retrieve', 'generate'], plain, 'pass', [], []],
    ['retrieval skipped: only generate', ['generate'], plain, 'fail', ['retrieve'], []],
    ['out of order: generate before retrieve', ['generate', 'retrieve'], plain, 'fail', ['generate'], []],
    ['nothing expected is logged', ['plan'], plain, 'fail', ['retrieve', 'generate'], ['plan']],
    ['an entry that logs no tool (-06) counts as none', [null, 'generate'], plain, 'fail', ['retrieve'], []],
    ["the system's own names are what count", ['search_corpus', 'llm_answer'], renamed, 'pass', [], []],
    [
      "the protocol's names do not stand in for a system's registered ones",
      ['retrieve', 'generate'],
      renamed,
      'fail',
      ['retrieve', 'generate'],
      ['generate', 'retrieve'],
    ],
  ] as const)('%s', (_name, logged, expected, check, missing, unexpected) => {
    const r = reconcileTools(logged, expected);
    expect([r.checks.tools, r.missing, r.unexpected, r.reason_codes]).toEqual([
      check,
      missing,
      unexpected,
      check === 'fail' ? ['EXPECTED_TOOL_MISSING'] : [],
    ]);
  });

  it('decides nothing when the entries could not be read', () => {
    expect(reconcileTools(null, plain)).toEqual({ checks: { tools: 'skipped' }, missing: [], unexpected: [], reason_codes: [] });
  });
});
