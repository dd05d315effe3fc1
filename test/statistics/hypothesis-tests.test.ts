// The exact one-sided binomial test, the Clopper–Pearson interval and Holm, as section 5 calls
// them: SQL functions on a locked DuckDB instance like section 5's (store/statistics-sql.ts),
// checked on a grid of (k, n, p, alpha) against big-integer binomial tails written apart from
// the code under test (test/support/exact-binomial.ts).
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binomialAtLeast, binomialAtMost } from '../../pipeline/statistics/binomial-test.ts';
import { registerStatisticsFunctions } from '../../pipeline/store/statistics-sql.ts';
import { lowerTail, upperTail } from '../support/exact-binomial.ts';

const KS_NS: ReadonlyArray<readonly [number, number]> = [
  [0, 1],
  [1, 1],
  [0, 10],
  [3, 10],
  [10, 10],
  [3, 157],
  [8, 157],
  [40, 48],
  [21, 48],
  [47, 48],
  [0, 200],
  [1, 200],
  [100, 200],
  [199, 200],
  [500, 1000],
];
const PS = [0.01, 0.05, 0.1, 0.5, 0.8, 0.95];
const ALPHAS = [0.05, 0.01, 0.05 / 5];
const GRID = KS_NS.flatMap(([k, n]) => PS.map((p) => ({ k, n, p })));

/** |a − b| relative to b, 0 when both are 0. */
const relative = (a: number, b: number) => (a === b ? 0 : Math.abs(a - b) / Math.abs(b));

let instance: DuckDBInstance;
let connection: DuckDBConnection;
beforeAll(async () => {
  // The configuration section 5 runs with (store/section5-runner.ts): the functions work there.
  instance = await DuckDBInstance.create(':memory:', { enable_external_access: 'false', threads: '1', lock_configuration: 'true' });
  connection = await instance.connect();
  registerStatisticsFunctions(connection);
});
afterAll(() => {
  connection.closeSync();
  instance.closeSync();
});

async function sql(query: string): Promise<Record<string, unknown>[]> {
  return (await connection.runAndReadAll(query)).getRowObjectsJS() as Record<string, unknown>[];
}

describe('the one-sided exact binomial test', () => {
  it('P(X ≥ k) and P(X ≤ k) agree with exact big-integer tails within 1e-9 relative, over the grid', () => {
    for (const { k, n, p } of GRID) {
      expect(relative(binomialAtLeast(k, n, p), upperTail(k, n, p)), `P(X ≥ ${k} | ${n}, ${p})`).toBeLessThan(1e-9);
      expect(relative(binomialAtMost(k, n, p), lowerTail(k, n, p)), `P(X ≤ ${k} | ${n}, ${p})`).toBeLessThan(1e-9);
    }
  });

  it('the same values through the SQL functions section 5 calls, with integer counts of any width', async () => {
    const values = GRID.map(({ k, n, p }) => `(${k}::HUGEINT, ${n}::BIGINT, ${p})`).join(', ');
    const rows = await sql(
      `SELECT k, n, p, prereg_binomial_at_least(k, n, p) AS ge, prereg_binomial_at_most(k, n, p) AS le FROM (VALUES ${values}) t(k, n, p) ORDER BY k, n, p`,
    );
    expect(rows).toHaveLength(GRID.length);
    for (const r of rows) {
      const [k, n, p] = [Number(r.k), Number(r.n), Number(r.p)];
      expect(relative(Number(r.ge), upperTail(k, n, p))).toBeLessThan(1e-9);
      expect(relative(Number(r.le), lowerTail(k, n, p))).toBeLessThan(1e-9);
    }
  });

  it('refuses counts that are no binomial count, in the statement that calls it', async () => {
    await expect(sql('SELECT prereg_binomial_at_least(5, 4, 0.5)')).rejects.toThrow(/prereg_binomial_at_least: need integers 0 ≤ k ≤ n/);
    await expect(sql('SELECT prereg_binomial_at_most(1.5, 4, 0.5)')).rejects.toThrow(/need integers/);
    await expect(sql('SELECT prereg_binomial_at_most(1, 4, 1.5)')).rejects.toThrow(/threshold rate must be in \[0, 1\]/);
    expect(await sql('SELECT prereg_binomial_at_most(NULL, 4, 0.5) AS v')).toEqual([{ v: null }]);
  });
});

describe('the Clopper–Pearson interval, two-sided at alpha', () => {
  it('its bounds are where the exact tails equal alpha/2, over the grid of (k, n, alpha)', async () => {
    const cases = KS_NS.filter(([, n]) => n <= 200).flatMap(([k, n]) => ALPHAS.map((alpha) => ({ k, n, alpha })));
    const values = cases.map(({ k, n, alpha }) => `(${k}, ${n}, ${alpha})`).join(', ');
    const rows = await sql(
      `SELECT k, n, a, prereg_clopper_pearson_lower(k, n, a) AS lo, prereg_clopper_pearson_upper(k, n, a) AS hi FROM (VALUES ${values}) t(k, n, a)`,
    );
    for (const r of rows) {
      const [k, n, alpha, lo, hi] = [Number(r.k), Number(r.n), Number(r.a), Number(r.lo), Number(r.hi)];
      if (k > 0) expect(relative(upperTail(k, n, lo), alpha / 2), `lower ${k}/${n} at ${alpha}`).toBeLessThan(1e-7);
      else expect(lo).toBe(0);
      if (k < n) expect(relative(lowerTail(k, n, hi), alpha / 2), `upper ${k}/${n} at ${alpha}`).toBeLessThan(1e-7);
      else expect(hi).toBe(1);
    }
  });

  it('has no interval without a denominator', async () => {
    expect(await sql('SELECT prereg_clopper_pearson_lower(0, 0, 0.05) AS lo, prereg_clopper_pearson_upper(0, 0, 0.05) AS hi')).toEqual([
      { lo: null, hi: null },
    ]);
  });
});

describe('Holm across a family', () => {
  it('adjusts each p-value within the list of the whole family, by the step-down definition', async () => {
    // Sorted: 0.005 ×5 = 0.025, 0.01 ×4 = 0.04, 0.03 ×3 = 0.09, 0.04 ×2 = 0.08 → 0.09 (monotone), 1 ×1 = 1.
    const rows = await sql(
      `SELECT h, prereg_holm(p, list(p) OVER ()) AS adjusted FROM (VALUES ('a', 0.01), ('b', 0.04), ('c', 0.03), ('d', 0.005), ('e', 1.0)) t(h, p) ORDER BY h`,
    );
    const expected = [0.04, 0.09, 0.09, 0.025, 1];
    rows.forEach((r, i) => {
      expect(Number(r.adjusted)).toBeCloseTo(expected[i]!, 15);
    });
  });

  it('refuses a p-value outside its family and a family holding NULL (an undecidable hypothesis has p = 1)', async () => {
    await expect(sql('SELECT prereg_holm(0.2, [0.1, 0.3])')).rejects.toThrow(/not one of the family's 2/);
    await expect(sql('SELECT prereg_holm(0.1, [0.1, NULL])')).rejects.toThrow(/undecidable hypothesis stays in the family with p = 1/);
    await expect(sql('SELECT prereg_holm(0.1, [0.1, 1.5])')).rejects.toThrow(/\[0, 1\]/);
  });
});
