// The score stage's last step (SPEC §12.6): section 5's scores and sign tests read from their
// result tables, the statistics computed by the pure functions of results.ts, and written to
// result_score_intervals and result_sign_test_adjustments (pipeline/store/statistics-tables.sql);
// then the flips over attempts, attributed by the pipeline's SQL (store/constancy-flips.sql).
import type { DuckDBConnection } from '@duckdb/node-api';
import { runSqlFile, TableAppender } from '../store/db.ts';
import { readCounts, readObjects } from '../store/query.ts';
import {
  countRows,
  REPLICATES,
  RETRIEVAL_RECORDS,
  SCORES_TO_ADJUST,
  SIGN_TESTS_TO_ADJUST,
  systemConfigurations,
  TRUNCATED_SHARES,
} from '../store/statements.ts';
import { beyondNoise, splitSignTests } from '../statistics/noise-floor.ts';
import { comparisonCaveats, configurationCaveats, type TruncationShare } from '../statistics/caveats.ts';
import { CONSTANCY_FLIPS_SQL, STATISTICS_TABLES_SQL } from '../store/table-files.ts';
import { scoreIntervals, signTestAdjustments, type ScoreRow, type SignTestRow } from '../statistics/results.ts';
import { retrievalRows } from '../statistics/retrieval.ts';
import type { Related } from '../study/near-miss.ts';

/** Counts in a result table are BIGINT; a rate's counts fit a double exactly far beyond any study. */
const count = (v: unknown): number => Number(v as bigint | number);

export async function addScoreStatistics(
  connection: DuckDBConnection,
  alpha: number,
  maxTruncationGap: number,
  related: Related = () => false,
): Promise<{
  score_intervals_rows: number;
  sign_test_adjustments_rows: number;
  noise_floor_rows: number;
  retrieval_rows: number;
  constancy_flips_rows: number;
}> {
  const scores: ScoreRow[] = (await readObjects(connection, SCORES_TO_ADJUST)).map((r) => ({
    system_id: String(r.system_id),
    metric: String(r.metric),
    declared: count(r.declared),
    proven: count(r.proven),
    n_declared: count(r.n_declared),
    n_proven: count(r.n_proven),
  }));
  const tests: SignTestRow[] = (await readObjects(connection, SIGN_TESTS_TO_ADJUST)).map((r) => ({
    system_a: String(r.system_a),
    system_b: String(r.system_b),
    metric: String(r.metric),
    wins_a: count(r.wins_a),
    wins_b: count(r.wins_b),
    ties: count(r.ties),
    p_value: Number(r.p_value),
  }));
  // Each system's truncated answers over its expected records (a missing record is not truncated).
  const shares = new Map<string, TruncationShare>(
    (await readObjects(connection, TRUNCATED_SHARES)).map((r) => [
      String(r.system_id),
      { truncated: count(r.truncated), expected: count(r.expected) },
    ]),
  );
  const varying = new Set(
    (await readObjects(connection, systemConfigurations('records'))).filter((r) => r.varies === true).map((r) => String(r.system_id)),
  );
  await runSqlFile(connection, STATISTICS_TABLES_SQL);
  const intervals = await TableAppender.declared(connection, 'result_score_intervals');
  const intervalRows = scoreIntervals(scores, alpha);
  for (const row of intervalRows) intervals.appendNamed({ ...row });
  intervals.close();
  const adjustments = await TableAppender.declared(connection, 'result_sign_test_adjustments');
  const replicateOf = new Map((await readObjects(connection, REPLICATES)).map((r) => [String(r.system_id), String(r.replicate_of)]));
  const { floor, comparisons } = splitSignTests(tests, replicateOf, alpha);
  const noise = await TableAppender.declared(connection, 'result_noise_floor');
  for (const row of floor) noise.appendNamed({ ...row });
  noise.close();
  const adjustmentRows = signTestAdjustments(
    comparisons,
    alpha,
    (a, b) => [...configurationCaveats(a, b, varying), ...comparisonCaveats(shares.get(a), shares.get(b), maxTruncationGap)],
    (t) => beyondNoise(t, floor),
  );
  for (const row of adjustmentRows) adjustments.appendNamed({ ...row });
  adjustments.close();
  // Near misses by the study's frozen rule (study.json vocabulary.near_miss), never by the plan.
  const retrieval = retrievalRows(
    (await readObjects(connection, RETRIEVAL_RECORDS)).map((r) => ({
      system_id: String(r.system_id),
      records: count(r.records),
      missing: r.missing === true,
      expected_refs: r.expected_refs as string[],
      declared_refs: r.declared_refs as string[],
      proven_refs: r.proven_refs as string[],
    })),
    related,
  );
  const retrievalTable = await TableAppender.declared(connection, 'result_retrieval');
  for (const row of retrieval) retrievalTable.appendNamed({ ...row });
  retrievalTable.close();
  // Flips attributed by the pipeline's own SQL (store/constancy-flips.sql), never by the plan's.
  await runSqlFile(connection, CONSTANCY_FLIPS_SQL);
  const [flips] = await readCounts(connection, countRows('result_constancy_flips'));
  return {
    score_intervals_rows: intervalRows.length,
    sign_test_adjustments_rows: adjustmentRows.length,
    noise_floor_rows: floor.length,
    retrieval_rows: retrieval.length,
    constancy_flips_rows: count(flips),
  };
}
