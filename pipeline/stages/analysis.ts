// `prereg classify` and `prereg score`: the pre-registered analysis. Both first check that every
// frozen input is what was frozen (section 5 digest, corpus, vocabulary, study, trust, and the
// revealed answer key against its commitment: exit 3 otherwise), then run section 5's SQL in a
// locked DuckDB instance. classify extracts the assertions and materialises assertion_classes;
// score materialises scores, constancy, sign_tests and hypotheses.
import type { Command } from '../command.ts';
import { runStage } from '../run/runner.ts';

const HELP_COMMON = [
  'Refuses (exit 3, nothing written) when section 5 differs from its frozen digest',
  '(SECTION5_DRIFT), when any other frozen input drifted, or when the revealed answer key does',
  'not reproduce its commitment (ANSWER_KEY_COMMITMENT_MISMATCH). Section 5 runs with DuckDB',
  'external access disabled and the configuration locked; a missing view or column is refused',
  'before anything is written. Skips when nothing it consumed changed (--force reruns).',
];

/** classify and score: the same options and refusals; their views and work: analysis/stage.ts. */
function analysisCommand(stage: { name: 'classify' | 'score' }, summary: string, help: readonly string[]): Command {
  return {
    name: stage.name,
    summary,
    help: [`usage: prereg ${stage.name} [--secret-file FILE] [--force] [--root DIR] [--json]`, '', ...help, ...HELP_COMMON].join('\n'),
    options: { 'secret-file': { type: 'string' }, force: { type: 'boolean' } },
    stage: true,
    jsonSchema: () => `prereg.${stage.name}/1`,
    writesStudy: () => true,
    run: (ctx) => runStage(stage.name, ctx),
  };
}

export const classify: Command = analysisCommand(
  { name: 'classify' },
  'extract assertions and classify them with the section-5 SQL (declared and proven)',
  [
    'Runs verify if needed, extracts every assertion (assertions table), builds the',
    "base tables of docs/tables.md, then materialises section 5's assertion_classes.",
  ],
);

export const score: Command = analysisCommand(
  { name: 'score' },
  'compute scores, constancy, sign tests and hypotheses with the section-5 SQL',
  [
    "Runs classify if needed, then materialises section 5's scores, constancy, sign_tests,",
    'discordant_items and hypotheses (result_* tables, read by emit), and adds an exact',
    'Clopper-Pearson interval to every rate and Holm-adjusted p-values to the sign tests at',
    'study.json statistics.alpha (result_score_intervals, result_sign_test_adjustments),',
    'and attributes each flip over attempts to retrieval or writing (result_constancy_flips).',
  ],
);
