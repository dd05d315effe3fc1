// The emit database (SPEC §7): a fresh in-memory DuckDB with the store attached read-only, and the
// COPY statements that write its tables to Parquet and CSV with every option that shapes their
// bytes pinned. emit/ decides which tables, columns and paths; the SQL is here.
//
// Determinism (checked byte for byte by test/emit): one thread (floating-point aggregation and
// row-group layout then follow one path), insertion order preserved, every query ORDER BY ALL,
// no extension loaded or installed on demand, time zone UTC. The Parquet footer names the DuckDB
// version, which the manifest records: the same inputs give the same bytes with the same DuckDB.
import type { DuckDBConnection } from '@duckdb/node-api';
import { openMemoryDatabase, spillDirectory, stageMemoryLimit } from './db.ts';
import { registerShown, shownSelect } from './shown-sql.ts';
import { quoteIdent } from './sql-text.ts';
import { boundMemory, PARQUET_MEMORY_LIMIT } from './stage-memory.ts';
import { attachReadOnly, copyTo, orderedSelect, SET_TIME_ZONE_UTC } from './statements.ts';

/** The alias of the attached store database. */
export const STORE_ALIAS = 'store';

export interface EmitDatabase {
  connection: DuckDBConnection;
  close(): void;
}

/** Pinned options of every Parquet file (docs/outputs.md). */
export const PARQUET_OPTIONS = 'FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 3, ROW_GROUP_SIZE 122880, PARQUET_VERSION V1';

/**
 * Pinned options of every CSV file: RFC 4180 quoting ('"' doubled inside quoted fields), a header,
 * "\n" line ends, NULL as an empty field (an empty string is written as ""), ISO-8601 dates and
 * timestamps (UTC). DuckDB writes a DOUBLE as the shortest text that reads back to the same value
 * (as Python's repr: 1.0, 0.1, 1e+16), the same for a given DuckDB version.
 */
export const CSV_OPTIONS =
  "FORMAT csv, HEADER true, DELIMITER ',', QUOTE '\"', ESCAPE '\"', NULLSTR '', NEW_LINE '\\n', DATEFORMAT '%Y-%m-%d', TIMESTAMPFORMAT '%Y-%m-%dT%H:%M:%S.%fZ'";

/**
 * A fresh in-memory DuckDB (COPY TO needs external access, which the store's own instance, where
 * section 5 runs, may have locked off) with the store ATTACHed READ_ONLY as `store`, and the
 * display rule as a SQL function (shown-sql.ts) for the CSV files.
 */
export async function openEmitDatabase(storeFile: string, memoryLimit: string = stageMemoryLimit()): Promise<EmitDatabase> {
  const opened = await openMemoryDatabase();
  const spill = spillDirectory(storeFile);
  const db: EmitDatabase = {
    connection: opened.connection,
    close() {
      opened.close();
      spill.remove();
    },
  };
  try {
    try {
      await db.connection.run(SET_TIME_ZONE_UTC);
    } catch {
      // Without the ICU extension DuckDB has no time zones at all and writes TIMESTAMPTZ in UTC.
    }
    // Its sorts (ORDER BY ALL of per-record tables) spill beside the store instead of growing.
    await boundMemory(db.connection, spill.path, memoryLimit);
    await db.connection.run(attachReadOnly(storeFile, STORE_ALIAS));
    registerShown(db.connection);
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

/**
 * Runs `work` (a Parquet file's COPY) on an emit database of its own, closed after it: what DuckDB
 * allocated for one file (the Parquet writer's row group, which it cannot spill) is given back
 * before the next one, so emit's peak is its largest file's, not their sum.
 */
export async function withEmitDatabase<T>(storeFile: string, work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const db = await openEmitDatabase(storeFile, PARQUET_MEMORY_LIMIT);
  try {
    return await work(db.connection);
  } finally {
    db.close();
  }
}

/** A table of the attached store, as SQL names it in the emit database. */
export function qualified(table: string): string {
  return `${STORE_ALIAS}.main.${quoteIdent(table)}`;
}

/** SELECT of every column of a store table, named ones first, in the total order ORDER BY ALL gives. */
export function orderedStoreSelect(table: string, columns: readonly string[]): string {
  return orderedSelect(qualified(table), columns);
}

export async function copyParquet(connection: DuckDBConnection, table: string, columns: readonly string[], path: string): Promise<void> {
  await connection.run(copyTo(orderedStoreSelect(table, columns), path, PARQUET_OPTIONS));
}

/** A store table's rows to CSV, in total order, text shown (shown-sql.ts). */
export async function copyCsv(connection: DuckDBConnection, table: string, columns: readonly string[], path: string): Promise<void> {
  await connection.run(copyTo(await shownSelect(connection, qualified(table), columns), path, CSV_OPTIONS));
}

/** The interval columns scores.csv adds after result_scores' own (result_score_intervals). */
const SCORE_INTERVAL_COLUMNS = ['alpha', 'declared_lower', 'declared_upper', 'proven_lower', 'proven_upper'];

/**
 * scores.csv: every column of result_scores, then its exact interval (result_score_intervals:
 * alpha and the declared and proven bounds), one row per score, in total order, text shown.
 */
export async function copyScoresCsv(connection: DuckDBConnection, scoreColumns: readonly string[], path: string): Promise<void> {
  const joined = `(SELECT s.*, ${SCORE_INTERVAL_COLUMNS.map((c) => `i.${quoteIdent(c)}`).join(', ')}
    FROM ${qualified('result_scores')} s LEFT JOIN ${qualified('result_score_intervals')} i USING (system_id, metric))`;
  await connection.run(copyTo(await shownSelect(connection, joined, [...scoreColumns, ...SCORE_INTERVAL_COLUMNS]), path, CSV_OPTIONS));
}
