// The analysis stages' work, below their commands (stages/analysis.ts): classify and score each
// check that every frozen input is what was frozen, then run section 5's SQL in a locked DuckDB
// instance, skipping when nothing they consumed changed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../formats/hash.ts';
import { requireFrozenInputs, type FrozenInputs } from '../freeze/preflight.ts';
import { studyLayout } from '../layout.ts';
import { EXIT } from '../reasons.ts';
import { deleteStageRun, duckdbVersion, openStore, storePath, writeStoreInPlace } from '../store/db.ts';
import { runSection5, type RequiredView } from '../store/section5-runner.ts';
import { TOOL_VERSION } from '../version.ts';
import { runningModule } from '../running-code.ts';
import type { StageContext } from '../command.ts';
import type { CachedStage } from '../cached-stage.ts';
import type { DuckDBConnection } from '@duckdb/node-api';
import { buildBaseTables } from '../classify/base-tables.ts';
import { addScoreStatistics } from './score-tables.ts';
import { maxTruncationGapOf, nearMissOf, statisticsOf } from '../study/study.ts';
import { classValuesOf } from '../study/classes.ts';

// The code whose digest the stage records: compiled, the .js files that run (running-code.ts).
const CODE_FILES = [
  '../store/classify-tables.sql',
  '../store/coverage.sql',
  '../classify/extract.ts',
  '../classify/vocabulary-trie.ts',
  '../classify/pattern-prefix.ts',
  '../classify/base-tables.ts',
  '../store/section5-runner.ts',
  '../store/statements.ts',
  '../store/statistics-tables.sql',
  '../statistics/results.ts',
  '../statistics/clopper-pearson.ts',
  '../statistics/holm.ts',
  '../statistics/sign-test-reach.ts',
  '../statistics/exact-rational.ts',
  '../analysis/score-tables.ts',
  '../statistics/binomial-test.ts',
  '../statistics/hypothesis-decisions.ts',
  '../store/statistics-sql.ts',
  '../store/sql-functions.ts',
  '../store/constancy-flips.sql',
  '../statistics/retrieval.ts',
  '../study/near-miss.ts',
].map((p) => fileURLToPath(runningModule(new URL(p, import.meta.url))));

interface AnalysisStage {
  name: 'classify' | 'score';
  views: readonly RequiredView[];
  /** Work done before section 5 (classify builds the base tables). */
  prepare?: (
    ctx: StageContext,
    store: Awaited<ReturnType<typeof openStore>>,
    frozen: ReturnType<typeof requireFrozenInputs>,
  ) => Promise<Record<string, number>>;
  /** Work done on section 5's result tables (score adds the statistics). */
  finish?: (
    store: Awaited<ReturnType<typeof openStore>>,
    frozen: ReturnType<typeof requireFrozenInputs>,
  ) => Promise<Record<string, number>>;
}

// How the analysis stages' recorded inputs are named when they change.
const ANALYSIS_LABELS = {
  upstream_digest: "the previous stage's inputs",
  section5_sha256: 'PREREGISTRATION.md section 5',
  answer_key_root: 'the answer key',
  vocabulary_sha256: 'the vocabulary',
  study_sha256: 'preregistration/study.json',
  code: 'the tool, DuckDB or the analysis code changed',
};

/** What classify or score would consume now, given the previous stage's inputs digest. */
export function analysisInputs(name: 'classify' | 'score', upstreamDigest: string, frozen: ReturnType<typeof requireFrozenInputs>) {
  return {
    stage: name,
    upstream_digest: upstreamDigest,
    section5_sha256: frozen.section5.sha256,
    answer_key_root: frozen.frozen.answer_key.root,
    vocabulary_sha256: frozen.digests.vocabulary.sha256,
    study_sha256: frozen.digests.study_sha256,
    code: { tool_version: TOOL_VERSION, duckdb_version: duckdbVersion(), files: CODE_FILES.map((f) => sha256Hex(readFileSync(f))) },
  };
}

type AnalysisInputs = ReturnType<typeof analysisInputs>;

/** classify or score: the frozen inputs checked first, then section 5 over the store. */
function analysisStage(stage: AnalysisStage): CachedStage<FrozenInputs, AnalysisInputs, Record<string, number>> {
  return {
    labels: ANALYSIS_LABELS,
    prepare: (ctx, loaded) =>
      requireFrozenInputs(loaded, ctx.env, typeof ctx.values['secret-file'] === 'string' ? ctx.values['secret-file'] : undefined),
    inputs: (frozen, upstream) => analysisInputs(stage.name, upstream ?? '', frozen),
    work: (ctx, frozen, _consumed, record) => analysisWork(stage, ctx, frozen, record),
    result(_ctx, _frozen, { skipped, reason, digest, outputs }) {
      if (skipped)
        return {
          exitCode: EXIT.ok,
          json: { ok: true, stage: stage.name, skipped: true, inputs_digest: digest, ...outputs },
          text: `${stage.name}: skipped, inputs unchanged\n${render(outputs)}`,
        };
      return {
        exitCode: EXIT.ok,
        json: { ok: true, stage: stage.name, skipped: false, reason, inputs_digest: digest, ...outputs },
        text: `${stage.name}: rerun — ${reason}\n${render(outputs)}`,
      };
    },
  };
}

async function analysisWork(
  stage: AnalysisStage,
  ctx: StageContext,
  frozen: FrozenInputs,
  record: (connection: DuckDBConnection, outputs: Record<string, number>) => Promise<void>,
): Promise<Record<string, number>> {
  const dbPath = storePath(studyLayout(ctx.root));
  return writeStoreInPlace(dbPath, async () => {
    const store = await openStore(dbPath);
    let prepared: Record<string, number> = {};
    try {
      await deleteStageRun(store.connection, stage.name);
      if (stage.prepare) prepared = await stage.prepare(ctx, store, frozen);
    } finally {
      store.close();
    }
    ctx.progress(`${stage.name}: running section 5 (${frozen.section5.sqlBlocks.length} SQL blocks)…`);
    const rows = await runSection5(
      dbPath,
      frozen.section5.sqlBlocks,
      stage.views,
      classValuesOf(frozen.study),
      statisticsOf(frozen.study).alpha,
      frozen.frozen.hypothesis_family,
    );
    const after = await openStore(dbPath);
    try {
      const finished = stage.finish ? await stage.finish(after, frozen) : {};
      const outputs = { ...prepared, ...Object.fromEntries(Object.entries(rows).map(([k, v]) => [`${k}_rows`, v])), ...finished };
      await record(after.connection, outputs);
      return outputs;
    } finally {
      after.close();
    }
  });
}

function render(outputs: Record<string, number>): string {
  return Object.entries(outputs)
    .map(([k, v]) => `  ${k}: ${v}`)
    .join('\n');
}

export const CLASSIFY = analysisStage({
  name: 'classify',
  views: ['assertion_classes'],
  prepare: async (ctx, store, frozen) => {
    ctx.progress('classify: extracting assertions…');
    const items = frozen.items();
    return { ...(await buildBaseTables(store, frozen.study, frozen.digests.vocabulary.ids, frozen.answerKey, items)) };
  },
});

export const SCORE = analysisStage({
  name: 'score',
  views: ['scores', 'constancy', 'sign_tests', 'discordant_items', 'hypotheses'],
  finish: (store, frozen) =>
    addScoreStatistics(store.connection, statisticsOf(frozen.study).alpha, maxTruncationGapOf(frozen.study), nearMissOf(frozen.study)),
});
