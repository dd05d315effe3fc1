// Runs section 5 of the preregistration — the analysis itself — with DuckDB's external access
// disabled and its configuration locked (SPEC §4.2), checks that it created the required views
// with the documented columns and values, and materialises them as result_* tables, all in one
// transaction: a refused analysis writes nothing. Readers (emit) only ever read result_* tables,
// never the views, so no section-5 SQL runs outside this locked instance.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
import { PreregError } from '../reasons.ts';
import { isDiskFull } from '../io/write-failures.ts';
import { quoteIdent } from './sql-text.ts';
import { BASE_TABLE_SQL, CLASS_FIXTURE_SQL, COVERAGE_SQL } from './table-files.ts';
import { registerStatisticsFunctions } from './statistics-sql.ts';
import { SECTION5_MEMORY_LIMIT_ENV, section5MemoryLimit } from './stage-memory.ts';
import { isOutOfMemory, spillDirectory } from './db.ts';
import { decisionProblems, type HypothesisDecision } from '../statistics/hypothesis-decisions.ts';

/** The views section 5 must create (SPEC §6.3), with their documented columns in order. */
export const REQUIRED_VIEWS = {
  assertion_classes: ['system_id', 'item_id', 'attempt', 'assertion_id', 'kind', 'ref', 'class_declared', 'class_proven'],
  scores: ['system_id', 'metric', 'declared', 'proven', 'n_declared', 'n_proven'],
  constancy: ['system_id', 'metric', 'attempts', 'always', 'sometimes', 'never'],
  sign_tests: ['system_a', 'system_b', 'metric', 'wins_a', 'wins_b', 'ties', 'p_value'],
  discordant_items: ['system_a', 'system_b', 'metric', 'item_id', 'winner'],
  hypotheses: [
    'hypothesis_id',
    'statement',
    'threshold',
    'observed',
    'outcome',
    'reason',
    'p_value',
    'p_holm',
    'p_value_against',
    'p_holm_against',
    'observed_lower',
    'observed_upper',
    'decision_reason',
  ],
} as const;
export type RequiredView = keyof typeof REQUIRED_VIEWS;

/**
 * Values a view may hold in a column, where the contract fixes them: the class columns hold the
 * study's classes (study/classes.ts: the built-in set and the study's own, frozen with study.json).
 */
function allowedValues(classes: readonly string[]): Partial<Record<RequiredView, Record<string, readonly string[]>>> {
  return {
    assertion_classes: { kind: ['citation', 'amount', 'record'], class_declared: classes, class_proven: classes },
    hypotheses: { outcome: ['SUPPORTED', 'NOT_SUPPORTED', 'INCONCLUSIVE'] },
  };
}
/** Text columns a view must fill with a non-empty string in every row (SPEC §12.6: why each threshold). */
const REQUIRED_TEXT: Partial<Record<RequiredView, readonly string[]>> = {
  hypotheses: ['statement', 'reason', 'decision_reason'],
};

export interface Section5Block {
  sql: string;
  line: number;
}

async function columnsOf(connection: DuckDBConnection, view: string): Promise<string[] | null> {
  const r = await connection.runAndReadAll(
    "SELECT column_name FROM information_schema.columns WHERE table_schema = 'main' AND table_name = $1 ORDER BY ordinal_position",
    [view],
  );
  const cols = r.getRowObjectsJS().map((row) => String(row.column_name));
  return cols.length === 0 ? null : cols;
}

/** The locked configuration every section-5 instance runs with (SPEC §4.2). */
const LOCKED_CONFIG = {
  enable_external_access: 'false',
  autoinstall_known_extensions: 'false',
  autoload_known_extensions: 'false',
  threads: '1',
  lock_configuration: 'true',
} as const;

/**
 * DuckDB names a parse error's line within the statement it was given ("LINE 3:"); the operator
 * edits PREREGISTRATION.md, so the message names that file's line instead.
 */
function documentLines(message: string, block: Section5Block): string {
  return message.replace(/\bLINE (\d+):/g, (_m, n: string) => `PREREGISTRATION.md line ${block.line + Number(n) - 1}:`);
}

async function runBlocks(connection: DuckDBConnection, blocks: readonly Section5Block[]): Promise<void> {
  for (const block of blocks) {
    try {
      await connection.run(block.sql);
    } catch (err) {
      // A full disk is the machine's, not the plan's (store/db.ts writeStoreInPlace); memory, below.
      if (isDiskFull(err) || isOutOfMemory(err)) throw err;
      throw new PreregError(
        'SECTION5_SQL_FAILED',
        `the section-5 SQL block at PREREGISTRATION.md line ${block.line} failed: ${documentLines((err as Error).message, block)}`,
        {
          line: block.line,
        },
      );
    }
  }
}

/** Every required view exists, with its documented columns and only the values the contract allows. */
async function checkViews(
  connection: DuckDBConnection,
  views: readonly RequiredView[],
  classes: readonly string[],
): Promise<Record<string, string[]>> {
  const found: Record<string, string[]> = {};
  const allowedIn = allowedValues(classes);
  for (const view of views) {
    const columns = await columnsOf(connection, view);
    if (!columns) throw new PreregError('SECTION5_VIEW_MISSING', `section 5 did not create the required view ${view}`, { view });
    const missing = REQUIRED_VIEWS[view].filter((c) => !columns.includes(c));
    if (missing.length > 0) {
      throw new PreregError(
        'SECTION5_VIEW_COLUMNS',
        `view ${view} lacks the documented column(s) ${missing.join(', ')} (it has ${columns.join(', ')})`,
        {
          view,
          missing,
        },
      );
    }
    for (const [column, allowed] of Object.entries(allowedIn[view] ?? {})) {
      const bad = await connection.runAndReadAll(
        `SELECT DISTINCT CAST(${quoteIdent(column)} AS VARCHAR) AS v FROM ${quoteIdent(view)} WHERE ${quoteIdent(column)} IS NULL OR NOT list_contains(string_split($1, ','), CAST(${quoteIdent(column)} AS VARCHAR)) ORDER BY 1 LIMIT 5`,
        [allowed.join(',')],
      );
      const values = bad.getRowObjectsJS().map((r) => (r.v === null ? 'NULL' : String(r.v)));
      if (values.length > 0) {
        const declare =
          allowed === classes
            ? " (the built-in classes and study.json `classes`: declare a class of the study's own there, with its meaning)"
            : '';
        throw new PreregError(
          'SECTION5_VALUE_INVALID',
          `view ${view}.${column} holds ${values.join(', ')}, outside ${allowed.join(', ')}${declare}`,
          { view, column, values },
        );
      }
    }
    for (const column of REQUIRED_TEXT[view] ?? []) {
      const empty = await connection.runAndReadAll(
        `SELECT count(*) AS n FROM ${quoteIdent(view)} WHERE ${quoteIdent(column)} IS NULL OR trim(CAST(${quoteIdent(column)} AS VARCHAR)) = ''`,
      );
      const n = Number(empty.getRowObjectsJS()[0]!.n);
      if (n > 0)
        throw new PreregError('SECTION5_VALUE_INVALID', `view ${view}.${column} is empty or NULL in ${n} row(s): every row must say it`, {
          view,
          column,
          values: [],
        });
    }
    found[view] = columns;
  }
  return found;
}

/**
 * Section 5's macros stay in the store, where prereg's own SQL runs after it (store/constancy-flips.sql):
 * a macro that takes a built-in function's name (DuckDB lets it) would change what that SQL computes.
 * Refused, naming the line of section 5 that creates it when a block shows it.
 */
async function checkBuiltinsKept(connection: DuckDBConnection, blocks: readonly Section5Block[]): Promise<void> {
  const read = await connection.runAndReadAll(
    'SELECT DISTINCT lower(function_name) AS name FROM duckdb_functions() WHERE NOT internal AND lower(function_name) IN (SELECT lower(function_name) FROM duckdb_functions() WHERE internal) ORDER BY 1',
  );
  const names = read.getRowObjectsJS().map((r) => String(r.name));
  if (names.length === 0) return;
  const lineOf = (name: string): number | null => {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    for (const block of blocks) {
      const at = new RegExp(`MACRO\\s+(?:[\\w"]+\\.)*"?${escaped}"?\\s*\\(`, 'i').exec(block.sql);
      if (at) return block.line + block.sql.slice(0, at.index).split('\n').length - 1;
    }
    return null;
  };
  const line = lineOf(names[0]!);
  throw new PreregError(
    'SECTION5_BUILTIN_REDEFINED',
    `section 5 redefines the built-in function(s) ${names.join(', ')}${line === null ? '' : ` (PREREGISTRATION.md line ${line})`}: prereg's own SQL runs after section 5 and must read them as DuckDB defines them`,
    { functions: names, ...(line === null ? {} : { line }) },
  );
}

/** Section 5 decides its hypotheses by Holm at alpha (SPEC §13.2): each outcome must follow from its p-values. */
/**
 * Section 5 decides its hypotheses by Holm at alpha across the family frozen at the freeze's dry run
 * (SPEC §13.2): the same hypotheses, each outcome following from its p-values. Returns the family's
 * ids, in order.
 */
async function checkDecisions(connection: DuckDBConnection, alpha: number, frozenFamily: readonly string[] | null): Promise<string[]> {
  const read = await connection.runAndReadAll(
    'SELECT CAST(hypothesis_id AS VARCHAR) AS hypothesis_id, CAST(outcome AS VARCHAR) AS outcome, CAST(p_value AS DOUBLE) AS p_value, CAST(p_holm AS DOUBLE) AS p_holm, CAST(p_value_against AS DOUBLE) AS p_value_against, CAST(p_holm_against AS DOUBLE) AS p_holm_against FROM hypotheses ORDER BY hypothesis_id',
  );
  const rows = read.getRowObjectsJS() as unknown as HypothesisDecision[];
  const family = rows.map((r) => r.hypothesis_id);
  if (frozenFamily !== null && [...family].sort().join('\n') !== [...frozenFamily].sort().join('\n')) {
    throw new PreregError(
      'HYPOTHESIS_FAMILY_CHANGED',
      `section 5's hypotheses are ${family.join(', ') || 'none'}, but the family frozen at the freeze's dry run (freeze.json hypothesis_family) is ${frozenFamily.join(', ') || 'none'}`,
      { family, frozen: frozenFamily },
    );
  }
  const problems = decisionProblems(rows, alpha);
  if (problems.length > 0)
    throw new PreregError(
      'HYPOTHESIS_DECISION_INVALID',
      `section 5's hypotheses do not follow Holm's decision at alpha ${alpha}:\n${problems.join('\n')}`,
      { problems },
    );
  return family;
}

/**
 * The connection section 5 runs on: the statistics functions it may call (store/statistics-sql.ts)
 * and study.json statistics.alpha as getvariable('alpha').
 */
async function prepareConnection(connection: DuckDBConnection, alpha: number): Promise<void> {
  registerStatisticsFunctions(connection);
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1), got ${alpha}`);
  await connection.run(`SET VARIABLE alpha = CAST(${String(alpha)} AS DOUBLE)`);
}

/**
 * Opens the store in a locked instance (external access off, configuration locked, one thread so
 * that any floating-point aggregate is deterministic), runs the blocks in order and materialises
 * `views` as result_<view> tables ordered by all their columns.
 */
export async function runSection5(
  dbPath: string,
  blocks: readonly Section5Block[],
  views: readonly RequiredView[],
  classes: readonly string[],
  alpha: number,
  frozenFamily: readonly string[] | null = null,
  memoryLimit: string = section5MemoryLimit(),
): Promise<Record<string, number>> {
  // Bounded: beyond the limit DuckDB spills into work/, so the peak does not grow with the study.
  const spill = spillDirectory(dbPath);
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(dbPath, { memory_limit: memoryLimit, temp_directory: spill.path, ...LOCKED_CONFIG });
  } catch (err) {
    spill.remove();
    throw err;
  }
  const connection = await instance.connect();
  const counts: Record<string, number> = {};
  try {
    await prepareConnection(connection, alpha);
    await connection.run('BEGIN TRANSACTION');
    await runBlocks(connection, blocks);
    await checkBuiltinsKept(connection, blocks);
    const found = await checkViews(connection, views, classes);
    if (views.includes('hypotheses')) await checkDecisions(connection, alpha, frozenFamily);
    for (const view of views) {
      const columns = found[view]!;
      // Required columns first, in the documented order, then any extra ones; a total row order.
      const ordered = [...REQUIRED_VIEWS[view], ...columns.filter((c) => !(REQUIRED_VIEWS[view] as readonly string[]).includes(c))];
      const list = ordered.map(quoteIdent).join(', ');
      await connection.run(`DROP TABLE IF EXISTS ${quoteIdent(`result_${view}`)}`);
      await connection.run(`CREATE TABLE ${quoteIdent(`result_${view}`)} AS SELECT ${list} FROM ${quoteIdent(view)} ORDER BY ${list}`);
      const n = await connection.runAndReadAll(`SELECT count(*) AS n FROM ${quoteIdent(`result_${view}`)}`);
      counts[view] = Number(n.getRowObjectsJS()[0]!.n);
    }
    await connection.run('COMMIT');
  } catch (err) {
    await connection.run('ROLLBACK').catch(() => undefined);
    if (isOutOfMemory(err))
      throw new PreregError(
        'SECTION5_OUT_OF_MEMORY',
        `section 5 needed more memory than its limit of ${memoryLimit} (${(err as Error).message.split('\n')[0]}); nothing was written. Rerun with a larger $${SECTION5_MEMORY_LIMIT_ENV}`,
        { memory_limit: memoryLimit },
      );
    throw err;
  } finally {
    connection.closeSync();
    instance.closeSync();
    spill.remove();
  }
  return counts;
}

/**
 * Before the freeze: runs section 5 in the same locked configuration, in memory, against base
 * tables holding the product's fixture (store/class-fixture.sql: every combination of the flags a
 * class is computed from), and checks every required view — a plan that could not run after the
 * deadline, or that classes some combination outside `classes`, is refused while it can still be
 * fixed. Throws the code a real run would. Returns the hypotheses it produced: the family Holm
 * corrects across, frozen in freeze.json (SPEC §13.2).
 */
export async function dryRunSection5(
  blocks: readonly Section5Block[],
  classes: readonly string[],
  alpha: number,
): Promise<{ hypothesis_family: string[] }> {
  const instance = await DuckDBInstance.create(':memory:', { memory_limit: section5MemoryLimit(), ...LOCKED_CONFIG });
  const connection = await instance.connect();
  try {
    await prepareConnection(connection, alpha);
    // served-passages.sql reads the policy's require_receipts; either value gives the same columns.
    await connection.run('SET VARIABLE require_receipts = true');
    for (const ddl of BASE_TABLE_SQL) {
      // coverage.sql derives expected_records and coverage from the fixture's rows, as classify does from real ones.
      if (ddl === COVERAGE_SQL) await connection.run(readFileSync(CLASS_FIXTURE_SQL, 'utf8'));
      await connection.run(readFileSync(ddl, 'utf8'));
    }
    await runBlocks(connection, blocks);
    await checkBuiltinsKept(connection, blocks);
    await checkViews(connection, Object.keys(REQUIRED_VIEWS) as RequiredView[], classes);
    return { hypothesis_family: await checkDecisions(connection, alpha, null) };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
