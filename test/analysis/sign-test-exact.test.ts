// The sign test at sizes a fixed-width 2^n cannot hold (SPEC §12.6): section 5 of the example (and
// of every study `init` scaffolds) run by the score stage's own runner over 1,000 and 10,000
// discordant items, its p-values checked against Python's exact big-integer computation
// (math.comb, integer true division, correctly rounded), and the statistics the stage adds.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { addScoreStatistics } from '../../pipeline/analysis/score-tables.ts';
import { runSection5 } from '../../pipeline/store/section5-runner.ts';
import { BASE_TABLE_SQL, COVERAGE_SQL } from '../../pipeline/store/table-files.ts';
import { extractSection5 } from '../../pipeline/study/section5.ts';
import { BUILT_IN_CLASSES } from '../../pipeline/study/classes.ts';
import { PROJECT_ROOT } from '../support/cli.ts';

const section5 = extractSection5(readFileSync(join(PROJECT_ROOT, 'preregistration/PREREGISTRATION.md'), 'utf8'))!;
const dirs: string[] = [];
afterAll(() =>
  dirs.forEach((d) => {
    rmSync(d, { recursive: true, force: true });
  }),
);

/**
 * A store holding the base tables section 5 reads, for two registered systems over `wins_a +
 * wins_b + ties` positive items, one attempt each: A alone cites the expected (served, proven)
 * reference on the first wins_a items, B alone on the next wins_b, both on the ties.
 */
async function syntheticStore(winsA: number, winsB: number, ties: number): Promise<string> {
  const n = winsA + winsB + ties;
  return storeWith(
    `
      CREATE TEMP TABLE plan AS
        SELECT s, i, 1 AS attempt, (s = 0 AND (i < ${winsA} OR i >= ${winsA + winsB})) OR (s = 1 AND i >= ${winsA}) AS success
        FROM range(2) a(s), range(${n}) t(i);`,
    n,
  );
}

/**
 * A store whose records are the rows of a temporary table `plan` (s: 0 for sys-a, 1 for sys-b;
 * i: the item; attempt; success: it cites the item's expected, served and proven, reference)
 * that `planSql` creates, over `n` positive items.
 */
async function storeWith(planSql: string, n: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-sign-test-'));
  dirs.push(dir);
  const path = join(dir, 'prereg.duckdb');
  const instance = await DuckDBInstance.create(path);
  const c = await instance.connect();
  try {
    await c.run('SET VARIABLE require_receipts = true');
    for (const ddl of BASE_TABLE_SQL) await c.run(readFileSync(ddl, 'utf8'));
    await c.run(planSql);
    await c.run(`
      INSERT INTO registered_systems VALUES ('sys-a', [], [], false, NULL), ('sys-b', [], [], false, NULL);
      INSERT INTO items SELECT 'item-' || i, 'q' FROM range(${n}) t(i);
      INSERT INTO answer_key SELECT 'item-' || i, 'positive', ['R' || i] FROM range(${n}) t(i);
      CREATE TEMP TABLE planned AS SELECT row_number() OVER (ORDER BY s, i, attempt) AS record_id, * FROM plan;
      INSERT INTO records SELECT record_id, CASE WHEN s = 0 THEN 'sys-a' ELSE 'sys-b' END, 'item-' || i, attempt,
                                 'f.jsonl', record_id, 0, repeat('0', 64), 'x', false, false, 1, true, NULL FROM planned;
      INSERT INTO record_refusals SELECT record_id, system_id, item_id, attempt, false, NULL, false, false FROM records;
      INSERT INTO assertions SELECT record_id, CASE WHEN s = 0 THEN 'sys-a' ELSE 'sys-b' END, 'item-' || i, attempt,
                                    'a' || record_id, 0, 'citation', 'R' || i, true, NULL, NULL, 0, 5, 'R' || i, false FROM planned WHERE success;
      INSERT INTO served_refs SELECT record_id, 'R' || i, true, true, true FROM planned WHERE success;
      SET VARIABLE attempts_per_item = (SELECT max(attempt) FROM plan);
    `);
    // What the protocol expects, from the records now in place (classify makes it after its base tables).
    await c.run(readFileSync(COVERAGE_SQL, 'utf8'));
  } finally {
    c.closeSync();
    instance.closeSync();
  }
  return path;
}

async function rows(path: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const instance = await DuckDBInstance.create(path, { access_mode: 'READ_ONLY' });
  const c = await instance.connect();
  try {
    return (await c.runAndReadAll(sql)).getRowObjectsJS() as Array<Record<string, unknown>>;
  } finally {
    c.closeSync();
    instance.closeSync();
  }
}

/**
 * Python's exact two-sided p-values, correctly rounded to doubles: for each (a, b), min(1, 2 · Σ_{i ≤
 * min(a, b)} C(a+b, i) / 2^(a+b)), the coefficients by the exact integer recurrence C(n, i+1) =
 * C(n, i) · (n − i) / (i + 1).
 */
function pythonExact(splits: Array<[number, number]>): number[] {
  const program = [
    'import json, sys',
    'def p(a, b):',
    '    n, k = a + b, min(a, b)',
    '    if n == 0: return 1.0',
    '    c, tail = 1, 0',
    '    for i in range(k + 1):',
    '        tail += c',
    '        c = c * (n - i) // (i + 1)',
    '    return min(1.0, 2 * tail / 2 ** n)',
    'print(json.dumps([repr(p(a, b)) for a, b in json.load(sys.stdin)]))',
  ].join('\n');
  return (JSON.parse(execFileSync('python3', ['-c', program], { input: JSON.stringify(splits), encoding: 'utf8' })) as string[]).map(
    Number,
  );
}

describe('the exact sign test over 1,000 and 10,000 discordant items', () => {
  it.each([
    [470, 530, 25],
    [0, 1000, 0],
    [4900, 5100, 0],
    [4000, 6000, 10],
  ])(
    'A %i wins, B %i wins (%i ties): p within 1e-9 of exact, Holm and reach beside it',
    async (winsA, winsB, ties) => {
      const store = await syntheticStore(winsA, winsB, ties);
      // assertion_classes too: the score stage's flips read the classes classify materialised.
      await runSection5(
        store,
        section5.sqlBlocks,
        ['assertion_classes', 'scores', 'constancy', 'sign_tests', 'discordant_items', 'hypotheses'],
        BUILT_IN_CLASSES,
        0.05,
      );
      const instance = await DuckDBInstance.create(store);
      const c = await instance.connect();
      try {
        await addScoreStatistics(c, 0.05, 0.1);
      } finally {
        c.closeSync();
        instance.closeSync();
      }
      const tests = await rows(store, 'SELECT metric, wins_a, wins_b, ties, p_value FROM result_sign_tests ORDER BY metric');
      expect(tests.map((t) => [t.metric, Number(t.wins_a), Number(t.wins_b), Number(t.ties)])).toEqual([
        ['positives_citing_expected/declared', winsA, winsB, ties],
        ['positives_citing_expected/proven', winsA, winsB, ties],
      ]);
      const [exact] = pythonExact([[winsA, winsB]]);
      expect(exact).toBeGreaterThan(0);
      for (const t of tests) expect(Math.abs(Number(t.p_value) - exact!) / exact!).toBeLessThan(1e-9);
      const discordant = await rows(store, "SELECT count(*) AS n FROM result_discordant_items WHERE metric LIKE '%/proven'");
      expect(Number(discordant[0]!.n)).toBe(winsA + winsB);
      // One comparison per metric: Holm changes nothing; 6 items could reach 0.05; the wins needed at n.
      const adjusted = await rows(
        store,
        'SELECT p_value, p_holm, discordant, fewest_discordant, wins_needed FROM result_sign_test_adjustments ORDER BY metric',
      );
      for (const a of adjusted) {
        expect(a.p_holm).toBe(a.p_value);
        expect(Number(a.discordant)).toBe(winsA + winsB);
        expect(Number(a.fewest_discordant)).toBe(6);
        // The fewest wins that reach 0.05 leave a trailing count whose exact p ≤ 0.05, and one more would not.
        const w = Number(a.wins_needed);
        const n = winsA + winsB;
        const [at, below] = pythonExact([
          [w, n - w],
          [w - 1, n - w + 1],
        ]);
        expect(at).toBeLessThanOrEqual(0.05);
        expect(below).toBeGreaterThan(0.05);
      }
    },
    120_000,
  );
});

describe('two systems are compared over the expected attempts', () => {
  it('an attempt left out is a failed attempt: sys-b, which left out its third attempt of item 0, loses it to sys-a', async () => {
    // Three attempts expected. Item 0: sys-a succeeds in all three; sys-b succeeds in its only two.
    // Item 1: both make three attempts; sys-a fails attempt 2, sys-b succeeds in all.
    const store = await storeWith(
      `CREATE TEMP TABLE plan AS SELECT * FROM (VALUES
         (0, 0, 1, true), (0, 0, 2, true), (0, 0, 3, true), (1, 0, 1, true), (1, 0, 2, true),
         (0, 1, 1, true), (0, 1, 2, false), (0, 1, 3, true), (1, 1, 1, true), (1, 1, 2, true), (1, 1, 3, true)
       ) v(s, i, attempt, success);`,
      2,
    );
    // assertion_classes too: the score stage's flips read the classes classify materialised.
    await runSection5(
      store,
      section5.sqlBlocks,
      ['assertion_classes', 'scores', 'constancy', 'sign_tests', 'discordant_items', 'hypotheses'],
      BUILT_IN_CLASSES,
      0.05,
    );
    const tests = await rows(store, "SELECT wins_a, wins_b, ties FROM result_sign_tests WHERE metric LIKE '%/proven'");
    // Item 0 is sys-a's (compared over the attempts both made it would be a tie), item 1 sys-b's.
    expect(tests.map((t) => [Number(t.wins_a), Number(t.wins_b), Number(t.ties)])).toEqual([[1, 1, 0]]);
    const won = await rows(store, "SELECT item_id, winner FROM result_discordant_items WHERE metric LIKE '%/proven' ORDER BY item_id");
    expect(won).toEqual([
      { item_id: 'item-0', winner: 'sys-a' },
      { item_id: 'item-1', winner: 'sys-b' },
    ]);
  });
});
