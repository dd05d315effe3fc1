// The DuckDB side of emit: a fresh in-memory instance with the store attached read-only, and the
// COPY statements that write Parquet and CSV with every option that shapes their bytes pinned.
//
// Determinism (checked byte for byte by test/emit): one thread (floating-point aggregation and
// row-group layout then follow one path), insertion order preserved, every query ORDER BY ALL,
// no extension loaded or installed on demand, time zone UTC. The Parquet footer names the DuckDB
// version, which the manifest records: the same inputs give the same bytes with the same DuckDB.
import { DuckDBScalarFunction, DuckDBTypeId, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { openMemoryDatabase } from '../store/db.ts';
import { quoteIdent } from '../store/sql-text.ts';
import { attachReadOnly, copyTo, SET_TIME_ZONE_UTC } from '../store/statements.ts';
import { shown } from '../text/display.ts';
import { orderedStoreSelect, qualified, STORE_ALIAS } from './tables.ts';

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
    registerShown(db.connection);
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
 * The display rule (text/display.ts) as a SQL function of the emit database: CSV is read in
 * terminals and spreadsheets, so its text cells go through the same `shown` as every other sink.
 * It is the TypeScript function itself, called by DuckDB, not a second copy of the rule in SQL.
 */
const SHOWN_SQL_FUNCTION = 'prereg_shown';

function registerShown(connection: DuckDBConnection): void {
  connection.registerScalarFunction(
    DuckDBScalarFunction.create({
      name: SHOWN_SQL_FUNCTION,
      returnType: VARCHAR,
      parameterTypes: [VARCHAR],
      // NULL in, NULL out: DuckDB does not call the function for it.
      mainFunction: (_info, input, output) => {
        const text = input.getColumnVector(0);
        for (let row = 0; row < input.rowCount; row++) output.setItem(row, shown(text.getItem(row) as string));
        output.flush();
      },
    }),
  );
}

/** Types whose CSV text is theirs to write (numbers, booleans, dates and times); any other shows text. */
const NOT_TEXT = new Set<DuckDBTypeId>([
  DuckDBTypeId.BOOLEAN, DuckDBTypeId.TINYINT, DuckDBTypeId.SMALLINT, DuckDBTypeId.INTEGER, DuckDBTypeId.BIGINT, DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT, DuckDBTypeId.USMALLINT, DuckDBTypeId.UINTEGER, DuckDBTypeId.UBIGINT, DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.FLOAT, DuckDBTypeId.DOUBLE, DuckDBTypeId.DECIMAL, DuckDBTypeId.DATE, DuckDBTypeId.TIME, DuckDBTypeId.TIME_TZ,
  DuckDBTypeId.TIMESTAMP, DuckDBTypeId.TIMESTAMP_S, DuckDBTypeId.TIMESTAMP_MS, DuckDBTypeId.TIMESTAMP_NS, DuckDBTypeId.TIMESTAMP_TZ,
  DuckDBTypeId.INTERVAL,
]);

/**
 * The rows as ORDER BY ALL orders them (on the stored values), every column that holds text —
 * VARCHAR, and lists, structs and JSON through their text — shown by the display rule.
 */
async function shownCsvSelect(connection: DuckDBConnection, source: string, columns: readonly string[]): Promise<string> {
  const probe = await connection.runAndReadAll(`SELECT ${columns.map(quoteIdent).join(', ')} FROM ${source} LIMIT 0`);
  const types = probe.columnTypes();
  const cells = columns.map((c, i) => {
    const column = `src.${quoteIdent(c)}`;
    const typeId = types[i]!.typeId;
    if (NOT_TEXT.has(typeId)) return column;
    return `${SHOWN_SQL_FUNCTION}(${typeId === DuckDBTypeId.VARCHAR ? column : `CAST(${column} AS VARCHAR)`}) AS ${quoteIdent(c)}`;
  });
  return `SELECT ${cells.join(', ')} FROM ${source} AS src ORDER BY ${columns.map((c) => `src.${quoteIdent(c)}`).join(', ')}`;
}

export async function copyCsv(connection: DuckDBConnection, table: string, columns: readonly string[], path: string): Promise<void> {
  await connection.run(copyTo(await shownCsvSelect(connection, qualified(table), columns), path, CSV_OPTIONS));
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
  await connection.run(copyTo(await shownCsvSelect(connection, joined, [...scoreColumns, ...SCORE_INTERVAL_COLUMNS]), path, CSV_OPTIONS));
}
