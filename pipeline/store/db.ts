// The DuckDB store (SPEC §2): a cache at work/prereg.duckdb, rebuilt from the inputs whenever it
// is missing or stale. Deleting it loses nothing.
//
// A rebuild writes a new database under a temporary name in work/ and renames it into place only
// once complete (its stage_runs row written last), so an interrupted run never leaves a
// half-filled database that looks complete. Bulk rows go in through the DuckDB Appender (never
// row-by-row SQL INSERT); values never enter SQL text.
import {
  DuckDBInstance,
  DuckDBTypeId,
  LIST,
  listValue,
  VARCHAR,
  version,
  type DuckDBAppender,
  type DuckDBConnection,
} from '@duckdb/node-api';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { StudyLayout } from '../layout.ts';
import { TABLE_COLUMNS } from './statements.ts';
import { quoteIdent } from './sql-text.ts';
import { cellsInOrder, requireSameColumns, type CellValue } from './named-row.ts';
import { isDiskFull, writeFailure } from '../io/write-failures.ts';
import { PreregError } from '../reasons.ts';
import { declaredColumns, type TableName, type TableRow } from './table-declarations.ts';

export const STORE_FILE = 'prereg.duckdb';

/** The DDL of the ingest tables. */
export { INGEST_TABLES_SQL as TABLES_SQL_PATH } from './table-files.ts';

export function storePath(layout: StudyLayout): string {
  return join(layout.work, STORE_FILE);
}

/** The DuckDB library version, e.g. "v1.5.6" (recorded with every stage run). */
export function duckdbVersion(): string {
  return version();
}

export interface Store {
  path: string;
  instance: DuckDBInstance;
  connection: DuckDBConnection;
  close(): void;
}

/**
 * The DuckDB memory limit of every store a stage writes (ingest's build, verify, classify, score):
 * past it DuckDB spills to its temporary directory instead of growing (without it DuckDB caches up
 * to 80% of RAM, and a stage's peak grew with the study: docs/performance.md, "Bounded memory:
 * ingest and verify"). $PREREG_DUCKDB_MEMORY_LIMIT sets another (e.g. "64MB": the tests run a
 * stage under a tiny one to prove the outputs do not depend on it).
 */
export const STAGE_MEMORY_LIMIT = '256MB';
export const MEMORY_LIMIT_ENV = 'PREREG_DUCKDB_MEMORY_LIMIT';

/** The directory, beside the store, under which each open store spills (one subdirectory each, removed on close). */
export const SPILL_DIR = 'duckdb-tmp';

/** The memory limit a stage's store gets: $PREREG_DUCKDB_MEMORY_LIMIT when set (USAGE unless a size such as "256MB"), else STAGE_MEMORY_LIMIT. */
export function stageMemoryLimit(env: NodeJS.ProcessEnv = process.env): string {
  return memoryLimitOf(env, MEMORY_LIMIT_ENV, STAGE_MEMORY_LIMIT);
}

/** A DuckDB memory limit from the environment variable `name` (USAGE unless a size such as "256MB"), else `fallback`. */
export function memoryLimitOf(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const given = env[name];
  if (given === undefined || given === '') return fallback;
  if (!/^[1-9][0-9]{0,6}(KB|MB|GB|KiB|MiB|GiB)$/.test(given)) {
    throw new PreregError(
      'USAGE',
      `$${name} must be a size such as 512MB or 2GiB (a whole number and KB, MB, GB, KiB, MiB or GiB), got ${JSON.stringify(given)}`,
    );
  }
  return given;
}

/**
 * Opens the store at `path`. Read-write (a stage's store), it gets the stage's memory limit
 * (stageMemoryLimit, or `memoryLimit`) and a temporary directory of its own under work/duckdb-tmp/
 * to spill to, removed when the store closes. Read-only (a status query: was a stage recorded?),
 * it gets the same limit and no directory: nothing is made on disk for it.
 */
export async function openStore(path: string, options: { readOnly?: boolean; memoryLimit?: string } = {}): Promise<Store> {
  const config: Record<string, string> = {};
  if (options.readOnly) config.access_mode = 'READ_ONLY';
  // Read-only too: the check of a recorded run reads every block (readEveryBlock), and without a
  // limit DuckDB kept them all cached (a skipped verify peaked at 879 MiB at 100,000 records).
  config.memory_limit = options.memoryLimit ?? stageMemoryLimit();
  const spill = options.readOnly ? null : spillDirectory(path);
  if (spill !== null) config.temp_directory = spill.path;
  let instance: DuckDBInstance;
  try {
    instance = await DuckDBInstance.create(path, config);
  } catch (err) {
    spill?.remove();
    throw err;
  }
  return connected(path, instance, spill === null ? () => {} : spill.remove);
}

/**
 * A directory of its own, under work/duckdb-tmp/ beside the store at `storePath`, for one DuckDB
 * instance working on it (the store itself, section 5's locked instance, emit's databases) to
 * spill to; `remove` deletes it, and work/duckdb-tmp/ once no other instance spills there.
 */
export function spillDirectory(storePath: string): { path: string; remove(): void } {
  const path = join(dirname(storePath), SPILL_DIR, `${basename(storePath)}.${process.pid}.${randomBytes(4).toString('hex')}`);
  removeAbandonedSpills(dirname(path));
  // DuckDB creates the directory it spills to, not its parent.
  mkdirSync(dirname(path), { recursive: true });
  return { path, remove: () => removeSpill(path) };
}

/** Whether DuckDB failed for want of memory within its limit (a step it cannot spill). */
export function isOutOfMemory(err: unknown): boolean {
  return err instanceof Error && /^Out of Memory Error/.test(err.message);
}

/** Spill directories left by processes that are gone (killed mid-stage): only a live process's store spills. */
function removeAbandonedSpills(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(/\.([0-9]+)\.[0-9a-f]{8}$/.exec(name)?.[1]);
    if (Number.isSafeInteger(pid) && !processAlive(pid)) rmSync(join(parent, name), { recursive: true, force: true });
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, someone else's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The refusal for DuckDB running out of its memory limit (a step it cannot spill), or null for any
 * other failure: the limit is the operator's to raise, not a bug (STORE_MEMORY_LIMIT).
 */
export function memoryLimitRefusal(err: unknown): PreregError | null {
  if (err instanceof PreregError || !isOutOfMemory(err)) return null;
  const limit = stageMemoryLimit();
  return new PreregError(
    'STORE_MEMORY_LIMIT',
    `DuckDB ran out of the store's memory limit (${(err as Error).message.split('\n')[0]}); nothing was recorded for the stage. Rerun with a larger $${MEMORY_LIMIT_ENV} (now ${limit})`,
    { limit },
  );
}

/** Removes a store's spill directory, and work/duckdb-tmp/ once no open store has one there. */
function removeSpill(spill: string): void {
  rmSync(spill, { recursive: true, force: true });
  try {
    rmdirSync(dirname(spill));
  } catch {
    // Another store still spills there (or it is gone already).
  }
}

async function connected(path: string, instance: DuckDBInstance, closed: () => void = () => {}): Promise<Store> {
  let connection: DuckDBConnection;
  try {
    connection = await instance.connect();
  } catch (err) {
    instance.closeSync();
    closed();
    throw err;
  }
  let open = true;
  return {
    path,
    instance,
    connection,
    close() {
      if (!open) return;
      open = false;
      connection.closeSync();
      instance.closeSync();
      closed();
    },
  };
}

/**
 * A fresh in-memory database whose outputs depend on nothing but the data: one thread (one path
 * for floating-point aggregates and row groups), insertion order kept, no extension loaded or
 * installed on demand. Emit writes its files through one; the audit reads Parquet back with one.
 */
export async function openMemoryDatabase(): Promise<Store> {
  const instance = await DuckDBInstance.create(':memory:', {
    threads: '1',
    preserve_insertion_order: 'true',
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  return connected(':memory:', instance);
}

/** Runs a .sql file of statements (DDL); values never go in this way. */
export async function runSqlFile(connection: DuckDBConnection, path: string): Promise<void> {
  await connection.run(readFileSync(path, 'utf8'));
}

/**
 * Reads every column of every table, so that DuckDB checks the checksum of every data block: a
 * flipped byte in a block that opening the file does not touch would otherwise surface only in a
 * later stage. Throws DuckDB's error ("Corrupt database file: computed checksum …") when one fails.
 */
export async function readEveryBlock(connection: DuckDBConnection): Promise<void> {
  const tables = await connection.runAndReadAll(
    'SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database() ORDER BY schema_name, table_name',
  );
  for (const t of tables.getRowObjectsJson() as Array<{ schema_name: string; table_name: string }>) {
    // One aggregate per column (COLUMNS(*)): no column can be pruned from the scan.
    await connection.runAndReadAll(`SELECT bit_xor(hash(COLUMNS(*))) FROM ${quoteIdent(t.schema_name)}.${quoteIdent(t.table_name)}`);
  }
}

export interface StageRun {
  stage: string;
  inputs_digest: string;
  inputs_json: string;
  outputs_json: string;
  tool_version: string;
  duckdb_version: string;
}

/** The recorded run of a stage, or null when there is none (or no stage_runs table at all). */
export async function readStageRun(connection: DuckDBConnection, stage: string): Promise<StageRun | null> {
  const tables = await connection.runAndReadAll(
    "SELECT count(*) AS n FROM duckdb_tables() WHERE table_name = 'stage_runs' AND schema_name = 'main'",
  );
  if (Number(tables.getRowObjectsJson()[0]?.n ?? 0) === 0) return null;
  const reader = await connection.runAndReadAll(
    'SELECT stage, inputs_digest, inputs_json::VARCHAR AS inputs_json, outputs_json::VARCHAR AS outputs_json, tool_version, duckdb_version FROM stage_runs WHERE stage = $1',
    [stage],
  );
  const row = reader.getRowObjectsJson()[0];
  return row ? (row as unknown as StageRun) : null;
}

/** Forgets a stage's recorded run (before the stage rebuilds its tables). */
export async function deleteStageRun(connection: DuckDBConnection, stage: string): Promise<void> {
  await connection.run('DELETE FROM stage_runs WHERE stage = $1', [stage]);
}

export async function writeStageRun(connection: DuckDBConnection, run: StageRun): Promise<void> {
  await deleteStageRun(connection, run.stage);
  await connection.run(
    'INSERT INTO stage_runs (stage, inputs_digest, inputs_json, outputs_json, tool_version, duckdb_version) VALUES ($1, $2, $3, $4, $5, $6)',
    [run.stage, run.inputs_digest, run.inputs_json, run.outputs_json, run.tool_version, run.duckdb_version],
  );
}

/**
 * Builds a fresh database with `build` and renames it to `finalPath` once `build` resolves; on any
 * error the temporary file is removed and `finalPath` is left as it was.
 */
export async function buildStoreAtomically(finalPath: string, build: (store: Store) => Promise<void>): Promise<void> {
  const dir = dirname(finalPath);
  mkdirSync(dir, { recursive: true });
  removeStaleTemporaries(finalPath);
  const tmp = join(dir, `.${basename(finalPath)}.${randomBytes(6).toString('hex')}.tmp`);
  const store = await openStore(tmp).catch((err: unknown) => {
    throw writeFailure(err, dir) ?? err;
  });
  try {
    await build(store);
    await store.connection.run('CHECKPOINT');
    store.close();
    // A WAL left by a crashed writer of the old database must not be replayed onto the new one.
    rmSync(`${finalPath}.wal`, { force: true });
    renameSync(tmp, finalPath);
  } catch (err) {
    store.close();
    // A full disk, a read-only work/ or too small a memory limit is the operator's to fix, not a bug (nothing was replaced).
    throw writeFailure(err, dir) ?? memoryLimitRefusal(err) ?? err;
  } finally {
    rmSync(tmp, { force: true });
    rmSync(`${tmp}.wal`, { force: true });
  }
}

/**
 * Runs `write`, a stage writing the store at `path` in place (verify, classify, score), which
 * closes the store before it throws. A full disk is the operator's to fix, not a bug: the store,
 * half-written now, is removed with its WAL — a cache, it loses nothing; no later stage reads a
 * half of it, and the space is given back — and the refusal is OUTPUT_DISK_FULL. DuckDB out of
 * its memory limit is STORE_MEMORY_LIMIT (the store stays: the stage recorded nothing). Any other
 * failure is thrown as it is.
 */
export async function writeStoreInPlace<T>(path: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (!isDiskFull(err)) throw memoryLimitRefusal(err) ?? err;
    rmSync(path, { force: true });
    rmSync(`${path}.wal`, { force: true });
    const refusal = writeFailure(err, dirname(path))!;
    throw new PreregError(
      refusal.code,
      `${refusal.message}; the half-written store ${basename(path)} was removed (a cache: the next run rebuilds it)`,
      refusal.details,
    );
  }
}

/** Temporary databases of interrupted runs (".prereg.duckdb.<hex>.tmp" and their WAL). */
function removeStaleTemporaries(finalPath: string): void {
  const prefix = `.${basename(finalPath)}.`;
  for (const name of readdirSync(dirname(finalPath))) {
    if (name.startsWith(prefix) && /\.[0-9a-f]{12}\.tmp(\.wal)?$/.test(name)) rmSync(join(dirname(finalPath), name), { force: true });
  }
}

/** Rows an appender holds before it flushes them to the table. */
const FLUSH_EVERY_ROWS = 16_384;

type ColumnKind = 'varchar' | 'integer' | 'bigint' | 'boolean' | 'double' | 'varchar_list';

function columnKind(type: { typeId: DuckDBTypeId; valueType?: { typeId: DuckDBTypeId } }): ColumnKind {
  const typeId = type.typeId;
  if (typeId === DuckDBTypeId.LIST && type.valueType?.typeId === DuckDBTypeId.VARCHAR) return 'varchar_list';
  switch (typeId) {
    case DuckDBTypeId.DOUBLE:
      return 'double';
    case DuckDBTypeId.VARCHAR:
      return 'varchar';
    case DuckDBTypeId.INTEGER:
      return 'integer';
    case DuckDBTypeId.BIGINT:
      return 'bigint';
    case DuckDBTypeId.BOOLEAN:
      return 'boolean';
    default:
      throw new TypeError(`TableAppender does not write columns of type id ${typeId}`);
  }
}

const VARCHAR_LIST = LIST(VARCHAR);

export type { CellValue, NamedRow } from './named-row.ts';

export interface ColumnInfo {
  name: string;
  type: string;
}

/** A table's columns in the order DuckDB stores them. */
export async function tableColumns(connection: DuckDBConnection, table: string): Promise<ColumnInfo[]> {
  const reader = await connection.runAndReadAll(TABLE_COLUMNS, [table]);
  return (reader.getRowsJS() as [string, string][]).map(([name, type]) => ({ name, type }));
}

/**
 * Appends rows to one table through a DuckDB Appender, in the order given. Values go in one by
 * one (appendVarchar, appendBigInt, …): measured here within 15% of 2,048-row data
 * chunks, and on ingest (where parsing dominates) it was no slower here, with nothing to batch.
 */
export class TableAppender<Row extends Readonly<Record<string, CellValue>> = Readonly<Record<string, CellValue>>> {
  rows = 0;

  private constructor(
    private readonly appender: DuckDBAppender,
    private readonly kinds: readonly ColumnKind[],
    private readonly table: string,
    /** The table's own column list, onto which named rows are mapped. */
    readonly columns: readonly string[],
  ) {}

  /**
   * An appender of `table`. Given the column names its rows will carry (`named`), it first checks
   * that they are the table's columns, so a row builder out of step with the DDL fails at once.
   */
  static async create(connection: DuckDBConnection, table: string, named?: readonly string[]): Promise<TableAppender> {
    const columns = (await tableColumns(connection, table)).map((c) => c.name);
    if (named) requireSameColumns(table, columns, named);
    const appender = await connection.createAppender(table);
    const kinds: ColumnKind[] = [];
    for (let i = 0; i < appender.columnCount; i++) kinds.push(columnKind(appender.columnType(i) as Parameters<typeof columnKind>[0]));
    return new TableAppender(appender, kinds, table, columns);
  }

  /** An appender of a declared table (table-declarations.ts), whose rows are typed by the declaration. */
  static async declared<T extends TableName>(connection: DuckDBConnection, table: T): Promise<TableAppender<TableRow<T>>> {
    return TableAppender.create(connection, table, declaredColumns(table)) as Promise<TableAppender<TableRow<T>>>;
  }

  /** Appends a row keyed by column name, mapped onto the table's column order. */
  appendNamed(row: Row): void {
    this.append(cellsInOrder(row, this.columns));
  }

  append(row: readonly CellValue[]): void {
    const a = this.appender;
    const kinds = this.kinds;
    if (row.length !== kinds.length) throw new TypeError(`${this.table}: ${row.length} values for ${kinds.length} columns`);
    for (let i = 0; i < kinds.length; i++) {
      const v = row[i];
      if (v === null || v === undefined) a.appendNull();
      else if (kinds[i] === 'varchar') a.appendVarchar(v as string);
      else if (kinds[i] === 'bigint') a.appendBigInt(BigInt(v as number));
      else if (kinds[i] === 'integer') a.appendInteger(v as number);
      else if (kinds[i] === 'double') a.appendDouble(v as number);
      else if (kinds[i] === 'varchar_list') a.appendList(listValue([...(v as readonly string[])]), VARCHAR_LIST);
      else a.appendBoolean(v as boolean);
    }
    a.endRow();
    this.rows++;
    // Flushed now and then, so that DuckDB's memory limit, not the appender's buffer, bounds memory.
    if (this.rows % FLUSH_EVERY_ROWS === 0) a.flushSync();
  }

  /** Flushes the last rows and closes the appender (which commits them). */
  close(): void {
    this.appender.closeSync();
  }
}
