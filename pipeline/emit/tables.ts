// What emit reads from the store (SPEC §7): plain TABLES only — never a section-5 view, whose SQL
// would run here without the locks the score stage runs it under — each in a total order.
//
// The store is ATTACHed read-only as `store` to a fresh in-memory DuckDB instance (see
// openEmitDatabase in store/emit-database.ts). A table's named columns come first, in the order
// below; any other column follows in the table's own order, so every column is emitted. Rows are
// ordered by ALL of those columns (ORDER BY ALL): a total order up to rows that are identical in
// every column, whose relative order cannot show in any output. Insertion order is never relied on.
import type { DuckDBConnection } from '@duckdb/node-api';
import { PreregError } from '../reasons.ts';
import { readCells, streamCells, type Cell, type Row } from '../store/cells.ts';
import type { CoverageFacts, EvidenceOwnershipFacts, HeldResultName, ResultName, StoreFacts } from '../results/shapes.ts';
import { readCounts, readObjects, readPairs } from '../store/query.ts';
import { orderedStoreSelect, qualified, STORE_ALIAS } from '../store/emit-database.ts';
import { REQUIRED_VIEWS, type RequiredView } from '../store/section5-runner.ts';
import { declaredColumns, type TableName } from '../store/table-declarations.ts';
import {
  BASE_TABLE_COLUMNS,
  classCountsOf,
  countRows,
  countsBy,
  derivedAmounts,
  evidenceOwnershipBySystem,
  refusalDisagreements,
  sellerInconsistencies,
  systemConfigurations,
  toolsMissing,
  witnessesBySystem,
} from '../store/statements.ts';

export interface TableSpec {
  /** The table in the store. */
  table: string;
  /** Columns the table must have, in the order outputs list them (others follow). */
  columns: readonly string[];
}

/** A declared table (pipeline/store/table-declarations.ts) with every column, in its order. */
const whole = <T extends TableName>(table: T) => ({ table, columns: declaredColumns(table) });

/** A section-5 view's result table (SPEC §6.3): result_<view>, with the view's documented columns. */
const sectionResult = <V extends RequiredView>(view: V) => ({ table: `result_${view}` as const, columns: REQUIRED_VIEWS[view] });

/**
 * The result tables the score stage writes, keyed as results.json names them: section 5's views
 * (and the discordant items behind each sign test), then the statistics the stage adds to them
 * (SPEC §12.6, pipeline/store/statistics-tables.sql).
 */
export const RESULT_TABLES = {
  assertion_classes: sectionResult('assertion_classes'),
  scores: sectionResult('scores'),
  constancy: sectionResult('constancy'),
  sign_tests: sectionResult('sign_tests'),
  discordant_items: sectionResult('discordant_items'),
  hypotheses: sectionResult('hypotheses'),
  score_intervals: whole('result_score_intervals'),
  sign_test_adjustments: whole('result_sign_test_adjustments'),
  noise_floor: whole('result_noise_floor'),
  retrieval: whole('result_retrieval'),
  constancy_flips: whole('result_constancy_flips'),
} as const satisfies Record<ResultName, TableSpec>;

export const RESULT_NAMES = Object.keys(RESULT_TABLES) as ResultName[];

/** The results whose rows decide the study (decision_digest, SPEC §7). */
export const DECISION_RESULTS = ['assertion_classes', 'scores', 'hypotheses'] as const satisfies readonly ResultName[];

/**
 * Base tables emit copies or summarises: the whole table (whole: its declared columns, in order),
 * or the columns emit reads first (the others follow in the table's order).
 */
export const BASE_TABLES = {
  assertions: { table: 'assertions', columns: [] },
  proof_checks: { table: 'proof_checks', columns: [] },
  chain_checks: { table: 'chain_checks', columns: [] },
  /** Every rejected input line: the submissions' (ingest) and the commitments file's (verify). */
  rejects: whole('input_rejects'),
  records: { table: 'records', columns: ['system_id'] },
  submission_files: whole('submission_files'),
  /** Evidence belongs to the record that submits it (SPEC §6.2): docs/ownership.md. */
  registered_systems: whole('registered_systems'),
  evidence_reuse: whole('evidence_reuse'),
  evidence_ownership: { table: 'evidence_ownership', columns: ['system_id', 'evidence_kind', 'status', 'reason_codes'] },
  /** Requests a pinned seller served two ways (SELLER_INCONSISTENT, SPEC §13.1). */
  seller_inconsistencies: whole('seller_inconsistencies'),
  /** Whether each served passage is frozen corpus text (SPEC §12.4), counted per system. */
  served_passages: { table: 'served_passages', columns: ['system_id', 'in_corpus'] },
  /** What the protocol expects of each system and what came (SPEC §12.5). */
  coverage: whole('coverage'),
  /** Each timeline reconciled with the protocol's expected tools (SPEC §13.3); empty when the study expects none. */
  timeline_tools: whole('timeline_tools'),
  /** Jobs a system's own commitments name and none of its records submits (JOB_NOT_SUBMITTED). */
  unsubmitted_jobs: whole('unsubmitted_jobs'),
  /** Each record's refusal, declared (the flag) and proven (the frozen refusal pattern, SPEC §12.6). */
  record_refusals: whole('record_refusals'),
  /** The answer key's expected amounts; the report lists the derived ones (not checked against the corpus). */
  answer_key_amounts: whole('answer_key_amounts'),
} as const satisfies Record<string, TableSpec>;

export type BaseName = keyof typeof BASE_TABLES;

/** A value and a row as emit writes them (store/cells.ts). */
export type { Cell, Row };

/** Every table emit reads, each with its full column list in output order. */
export type Schema = Map<string, string[]>;

/**
 * The column lists of every table emit reads, refusing (OUTPUT_STORE_INCOMPLETE) a table that is
 * missing, that is a view rather than a table, or that lacks a named column.
 */
export async function describeStore(connection: DuckDBConnection, specs: readonly TableSpec[]): Promise<Schema> {
  // duckdb_tables() lists base tables only, so a view of the same name never qualifies.
  const found = new Map<string, string[]>();
  for (const { table_name: table, column_name: column } of (await readObjects(connection, BASE_TABLE_COLUMNS, [STORE_ALIAS])) as Array<{
    table_name: string;
    column_name: string;
  }>) {
    const list = found.get(table) ?? [];
    list.push(column);
    found.set(table, list);
  }
  const schema: Schema = new Map();
  const problems: string[] = [];
  for (const spec of specs) {
    const actual = found.get(spec.table);
    if (!actual) {
      problems.push(`no table ${spec.table}`);
      continue;
    }
    const missing = spec.columns.filter((c) => !actual.includes(c));
    if (missing.length > 0) problems.push(`${spec.table} lacks ${missing.join(', ')}`);
    schema.set(spec.table, [...spec.columns, ...actual.filter((c) => !(spec.columns as readonly string[]).includes(c))]);
  }
  if (problems.length > 0) {
    throw new PreregError('OUTPUT_STORE_INCOMPLETE', `the store cannot be emitted: ${problems.join('; ')}`, { problems });
  }
  return schema;
}

export function columnsOf(schema: Schema, table: string): string[] {
  const columns = schema.get(table);
  if (!columns) throw new Error(`table ${table} was not described`);
  return columns;
}

export async function readRows(connection: DuckDBConnection, table: string, columns: readonly string[]): Promise<Row[]> {
  return readCells(connection, orderedStoreSelect(table, columns), table);
}

/** Every result table but assertion_classes (streamRows), in the columns section 5 gave it. */
export async function readResults(connection: DuckDBConnection, schema: Schema): Promise<Record<HeldResultName, Row[]>> {
  const results = {} as Record<HeldResultName, Row[]>;
  for (const name of RESULT_NAMES) {
    if (name === 'assertion_classes') continue;
    const t = RESULT_TABLES[name].table;
    results[name] = await readRows(connection, t, columnsOf(schema, t));
  }
  return results;
}

/** A table's rows as readRows gives them, one chunk at a time (a per-record table is never held whole). */
export function streamRows(connection: DuckDBConnection, schema: Schema, table: string): AsyncGenerator<Row[]> {
  return streamCells(connection, orderedStoreSelect(table, columnsOf(schema, table)), table);
}

/** Per system and class, the assertion_classes rows declared and proven in it: the report's table of classes. */
export async function readClassCounts(connection: DuckDBConnection): Promise<Row[]> {
  const t = RESULT_TABLES.assertion_classes.table;
  return readCells(connection, classCountsOf(qualified(t)), t);
}

async function count(connection: DuckDBConnection, table: string): Promise<bigint> {
  return (await readCounts(connection, countRows(qualified(table))))[0]!;
}

async function statusCounts(
  connection: DuckDBConnection,
  schema: Schema,
  table: string,
): Promise<Array<{ status: string; rows: bigint }> | null> {
  if (!columnsOf(schema, table).includes('status')) return null;
  const rows = await readPairs(connection, countsBy(qualified(table), 'status'));
  return rows.map(([status, n]) => ({ status, rows: n }));
}

export async function readStoreFacts(connection: DuckDBConnection, schema: Schema): Promise<StoreFacts> {
  const files = BASE_TABLES.submission_files;
  return {
    submission_files: await readRows(connection, files.table, columnsOf(schema, files.table)),
    rejects_by_code: (await readPairs(connection, countsBy(qualified(BASE_TABLES.rejects.table), 'reason_code'))).map(
      ([reason_code, lines]) => ({ reason_code, lines }),
    ),
    records_by_system: (await readPairs(connection, countsBy(qualified('records'), 'system_id'))).map(([system_id, records]) => ({
      system_id,
      records,
    })),
    counts: {
      assertions: await count(connection, 'assertions'),
      proof_checks: await count(connection, 'proof_checks'),
      chain_checks: await count(connection, 'chain_checks'),
    },
    proof_status: await statusCounts(connection, schema, 'proof_checks'),
    chain_status: await statusCounts(connection, schema, 'chain_checks'),
    witnesses_by_system: await readWitnessesBySystem(connection, schema),
    evidence: await evidenceOwnership(connection, schema),
    coverage: await coverageFacts(connection, schema),
    derived_amounts: (await readObjects(connection, derivedAmounts(qualified(BASE_TABLES.answer_key_amounts.table)))).map(objectRow),
  };
}

/** A row of getRowObjectsJS as emit writes it: integers exact (bigint), other values as read. */
function objectRow(r: Record<string, unknown>): Row {
  return Object.fromEntries(
    Object.entries(r).map(([k, v]) => [k, typeof v === 'number' || typeof v === 'bigint' ? BigInt(v) : (v as Cell)]),
  );
}

async function coverageFacts(connection: DuckDBConnection, schema: Schema): Promise<CoverageFacts> {
  const { coverage, unsubmitted_jobs: unsubmitted, record_refusals: refusals } = BASE_TABLES;
  const disagreeing = await readObjects(connection, refusalDisagreements(qualified(refusals.table), qualified('records')));
  return {
    systems: await readRows(connection, coverage.table, columnsOf(schema, coverage.table)),
    jobs_not_submitted: await readRows(connection, unsubmitted.table, columnsOf(schema, unsubmitted.table)),
    refusal_flags_disagreeing: disagreeing.map(objectRow),
    configurations: await readCells(connection, systemConfigurations(qualified('records')), 'records'),
    expected_tools_missing: await readCells(
      connection,
      toolsMissing(qualified(BASE_TABLES.timeline_tools.table), qualified('records')),
      BASE_TABLES.timeline_tools.table,
    ),
  };
}

async function evidenceOwnership(connection: DuckDBConnection, schema: Schema): Promise<EvidenceOwnershipFacts> {
  const { registered_systems: registered, evidence_reuse: reuse, evidence_ownership: ownership } = BASE_TABLES;
  const bySystem = await readObjects(
    connection,
    evidenceOwnershipBySystem(qualified(ownership.table), qualified(BASE_TABLES.served_passages.table)),
  );
  return {
    registered_systems: await readRows(connection, registered.table, columnsOf(schema, registered.table)),
    reuse: await readRows(connection, reuse.table, columnsOf(schema, reuse.table)),
    by_system: bySystem.map(objectRow),
    seller_inconsistencies: await readCells(
      connection,
      sellerInconsistencies(qualified(BASE_TABLES.seller_inconsistencies.table)),
      BASE_TABLES.seller_inconsistencies.table,
    ),
  };
}

async function readWitnessesBySystem(connection: DuckDBConnection, schema: Schema): Promise<StoreFacts['witnesses_by_system']> {
  const columns = columnsOf(schema, 'proof_checks');
  if (!columns.includes('independent_witnesses') || !columns.includes('system_id')) return null;
  const rows = await readObjects(connection, witnessesBySystem(qualified('proof_checks')));
  return rows.map((r) => ({
    system_id: String(r.system_id),
    proofs: BigInt(r.proofs as bigint),
    witnessed: BigInt(r.witnessed as bigint),
    witnesses: BigInt(r.witnesses as bigint),
  }));
}
