// The DuckDB side of emit: a fresh in-memory instance with the store attached read-only, and the
// COPY statements that write Parquet and CSV with every option that shapes their bytes pinned.
//
// Determinism (checked byte for byte by test/emit): one thread (floating-point aggregation and
// row-group layout then follow one path), insertion order preserved, every query ORDER BY ALL,
// no extension loaded or installed on demand, time zone UTC. The Parquet footer names the DuckDB
// version, which the manifest records: the same inputs give the same bytes with the same DuckDB.
import type { DuckDBConnection } from '@duckdb/node-api';
import { openMemoryDatabase } from '../store/db.ts';
import { attachReadOnly, copyTo, SET_TIME_ZONE_UTC } from '../store/statements.ts';
import { orderedStoreSelect, qualified, STORE_ALIAS } from './tables.ts';
import { quoteIdent } from '../store/sql-text.ts';

export interface EmitDatabase {
  connection: DuckDBConnection;
  close(): void;
}

/** Pinned options of every Parquet file (docs/outputs.md). */
export const PARQUET_OPTIONS = "FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 3, ROW_GROUP_SIZE 122880, PARQUET_VERSION V1";

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
 * section 5 runs, may have locked off) with the store ATTACHed READ_ONLY as `store`.
 */
export async function openEmitDatabase(storeFile: string): Promise<EmitDatabase> {
  const db = await openMemoryDatabase();
  try {
    try {
      await db.connection.run(SET_TIME_ZONE_UTC);
    } catch {
      // Without the ICU extension DuckDB has no time zones at all and writes TIMESTAMPTZ in UTC.
    }
    await db.connection.run(attachReadOnly(storeFile, STORE_ALIAS));
  } catch (err) {
    db.close();
    throw err;
  }
  return db;
}

export async function copyParquet(connection: DuckDBConnection, table: string, columns: readonly string[], path: string): Promise<void> {
  await connection.run(copyTo(orderedStoreSelect(table, columns), path, PARQUET_OPTIONS));
}

/**
 * scores.csv: every column of result_scores, then its exact intervals (result_score_intervals:
 * alpha and the declared and proven bounds), one row per score, in the total order ORDER BY ALL gives.
 */
export async function copyScoresCsv(connection: DuckDBConnection, scoreColumns: readonly string[], path: string): Promise<void> {
  const s = scoreColumns.map((c) => `s.${quoteIdent(c)}`).join(', ');
  const select = `SELECT ${s}, i.alpha, i.declared_lower, i.declared_upper, i.proven_lower, i.proven_upper
    FROM ${qualified('result_scores')} s LEFT JOIN ${qualified('result_score_intervals')} i USING (system_id, metric) ORDER BY ALL`;
  await connection.run(copyTo(select, path, CSV_OPTIONS));
}

export async function copyCsv(connection: DuckDBConnection, table: string, columns: readonly string[], path: string): Promise<void> {
  await connection.run(copyTo(orderedStoreSelect(table, columns), path, CSV_OPTIONS));
}
