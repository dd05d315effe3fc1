// An operator declaring a winner on a point estimate (SPEC §13.2): section 5's hypotheses must carry
// the exact test and Holm's correction across the whole family, and their outcome must be what
// Holm decides at the study's alpha. Each plan below is one way of getting a SUPPORTED the test
// does not give; runSection5 (the score stage's runner) and the freeze's dry run refuse them,
// writing nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreregError } from '../../pipeline/reasons.ts';
import { dryRunSection5, runSection5 } from '../../pipeline/store/section5-runner.ts';
import { BUILT_IN_CLASSES } from '../../pipeline/study/classes.ts';
import { extractSection5 } from '../../pipeline/study/section5.ts';
import { readFileSync, writeFileSync } from 'node:fs';
import { copyExampleStudy, PROJECT_ROOT, runCli } from '../support/cli.ts';
import { openStore } from '../../pipeline/store/db.ts';

let dir: string;
let db: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prereg-decisions-'));
  db = join(dir, 'store.duckdb');
  const store = await openStore(db);
  // Two hypotheses' counts: H3 is the example's 3 phantoms of 157 against "at most 5%".
  await store.connection.run(
    "CREATE TABLE counts AS SELECT * FROM (VALUES ('H3', 3, 157, 0.05), ('H9', 40, 48, 0.5)) v(hypothesis_id, k, n, threshold)",
  );
  store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A hypotheses view over `counts`, "at most" tests, with the given outcome and p_holm expressions. */
function plan(
  outcome: string,
  pHolm = 'prereg_holm(p_value, list(p_value) OVER ())',
  pValue = 'prereg_binomial_at_most(k, n, threshold)',
): string {
  return `CREATE OR REPLACE VIEW hypotheses AS
    WITH t AS (SELECT *, ${pValue} AS p_value, prereg_binomial_at_least(k, n, threshold) AS p_value_against FROM counts)
    SELECT hypothesis_id, 'statement' AS statement, threshold, k / n AS observed, ${outcome} AS outcome, 'why' AS reason,
           p_value, ${pHolm} AS p_holm, p_value_against, prereg_holm(p_value_against, list(p_value_against) OVER ()) AS p_holm_against,
           prereg_clopper_pearson_lower(k, n, getvariable('alpha') / 2) AS observed_lower, prereg_clopper_pearson_upper(k, n, getvariable('alpha') / 2) AS observed_upper,
           'decided' AS decision_reason
    FROM t`;
}
const HOLM =
  "CASE WHEN p_holm <= getvariable('alpha') THEN 'SUPPORTED' WHEN p_holm_against <= getvariable('alpha') THEN 'NOT_SUPPORTED' ELSE 'INCONCLUSIVE' END";
/** The plan deciding by Holm: the outcome is computed from the adjusted p-values, so the view is wrapped once more. */
const BY_HOLM = `${plan("'INCONCLUSIVE'").replace('CREATE OR REPLACE VIEW hypotheses AS', 'CREATE OR REPLACE VIEW decided AS')};
  CREATE OR REPLACE VIEW hypotheses AS SELECT * REPLACE (${HOLM} AS outcome) FROM decided`;

async function refusal(sql: string): Promise<PreregError> {
  try {
    await runSection5(db, [{ sql, line: 1 }], ['hypotheses'], BUILT_IN_CLASSES, 0.05);
  } catch (err) {
    if (err instanceof PreregError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('hypotheses decided by Holm at alpha, or refused', () => {
  it('a plan deciding by Holm runs: 3/157 against 5% is INCONCLUSIVE (p 0.0431, 0.0862 after Holm over two)', async () => {
    expect(await runSection5(db, [{ sql: BY_HOLM, line: 1 }], ['hypotheses'], BUILT_IN_CLASSES, 0.05)).toEqual({ hypotheses: 2 });
  });

  it('refuses SUPPORTED on the point estimate (3/157 = 1.9% ≤ 5%): HYPOTHESIS_DECISION_INVALID', async () => {
    const err = await refusal(plan("CASE WHEN k * 20 <= n THEN 'SUPPORTED' ELSE 'NOT_SUPPORTED' END"));
    expect(err.code).toBe('HYPOTHESIS_DECISION_INVALID');
    expect(err.message).toContain('H3: outcome SUPPORTED, but at alpha 0.05 p_holm');
    expect(err.message).toContain('decide INCONCLUSIVE');
  });

  it("refuses the raw p-value written as Holm's (the correction left out)", async () => {
    const err = await refusal(plan("CASE WHEN p_value <= 0.05 THEN 'SUPPORTED' ELSE 'INCONCLUSIVE' END", 'p_value'));
    expect(err.code).toBe('HYPOTHESIS_DECISION_INVALID');
    expect(err.message).toContain('H3: p_holm 0.0430847463995');
    expect(err.message).toContain("is not Holm's adjustment of p_value across the family's 2 hypotheses");
  });

  it('refuses an undecidable hypothesis with no p-value (it stays in the family with p = 1)', async () => {
    const err = await refusal(plan("'INCONCLUSIVE'", 'p_value', "CASE WHEN hypothesis_id = 'H9' THEN NULL ELSE 1.0 END"));
    expect(err.code).toBe('HYPOTHESIS_DECISION_INVALID');
    expect(err.message).toContain('H9: p_value, p_holm, p_value_against and p_holm_against must each be a probability');
  });

  it('refuses a hypotheses view without the test (the old point-estimate shape; test/stages/freeze-plan.test.ts plays it at freeze)', async () => {
    const blocks = [
      {
        sql: "CREATE OR REPLACE VIEW hypotheses AS SELECT 'H1' AS hypothesis_id, 's' AS statement, 0.05 AS threshold, 0.02 AS observed, 'SUPPORTED' AS outcome, 'why' AS reason",
        line: 1,
      },
    ];
    const err = await runSection5(db, blocks, ['hypotheses'], BUILT_IN_CLASSES, 0.05).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PreregError);
    expect((err as PreregError).code).toBe('SECTION5_VIEW_COLUMNS');
    expect((err as PreregError).message).toContain(
      'p_value, p_holm, p_value_against, p_holm_against, observed_lower, observed_upper, decision_reason',
    );
  });

  it('refuses a family other than the one frozen (HYPOTHESIS_FAMILY_CHANGED): Holm runs across the hypotheses declared before the data', async () => {
    // A plan with one hypothesis per row of data produced none at the freeze's dry run (empty
    // tables); after the deadline it produces two, or drops the one that failed: either way the
    // correction would run across a family chosen with the data in view.
    const sql = BY_HOLM;
    for (const frozen of [[], ['H3'], ['H3', 'H9', 'H10']]) {
      const err = await runSection5(db, [{ sql, line: 1 }], ['hypotheses'], BUILT_IN_CLASSES, 0.05, frozen).catch((e: unknown) => e);
      expect((err as PreregError).code, frozen.join()).toBe('HYPOTHESIS_FAMILY_CHANGED');
      expect((err as PreregError).message).toContain(
        `section 5's hypotheses are H3, H9, but the family frozen at the freeze's dry run (freeze.json hypothesis_family) is ${frozen.join(', ') || 'none'}`,
      );
    }
    expect(await runSection5(db, [{ sql, line: 1 }], ['hypotheses'], BUILT_IN_CLASSES, 0.05, ['H9', 'H3'])).toEqual({ hypotheses: 2 });
  });

  it("the example's section 5 produces its five hypotheses at the dry run, on empty tables (undecidable: p = 1): the family freeze records", async () => {
    const section5 = extractSection5(readFileSync(join(PROJECT_ROOT, 'preregistration/PREREGISTRATION.md'), 'utf8'))!;
    expect(await dryRunSection5(section5.sqlBlocks, BUILT_IN_CLASSES, 0.05)).toEqual({ hypothesis_family: ['H1', 'H2', 'H3', 'H4', 'H5'] });
    const freeze = JSON.parse(readFileSync(join(PROJECT_ROOT, 'preregistration/freeze.json'), 'utf8')) as { hypothesis_family: string[] };
    expect(freeze.hypothesis_family).toEqual(['H1', 'H2', 'H3', 'H4', 'H5']);
  });

  it('prereg score on the example refuses a frozen family that is not what section 5 produces (exit 3, HYPOTHESIS_FAMILY_CHANGED)', async () => {
    const s = copyExampleStudy();
    try {
      // The family as if the freeze had counted four: H5, which fails, would have been left out.
      const file = join(s.root, 'preregistration/freeze.json');
      writeFileSync(file, readFileSync(file, 'utf8').replace(/"H4",\s*"H5"/, '"H4"'));
      const r = await runCli(['score', '--root', s.root, '--json']);
      expect([r.code, r.json.code], r.stdout + r.stderr).toEqual([3, 'HYPOTHESIS_FAMILY_CHANGED']);
      expect(r.json.message).toContain('is H1, H2, H3, H4');
    } finally {
      s.cleanup();
    }
  }, 240_000);
});
