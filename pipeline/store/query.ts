// The store's typed reading API: every query outside store/ runs through these, which decode
// DuckDB's values once (counts as exact bigints, rows as objects of JS values), so no caller
// indexes a result's rows and casts a cell itself. Values go in as parameters, never as SQL text.
import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';

/** Parameters of a statement ($1, $2, …). */
export type Params = readonly DuckDBValue[] | undefined;

/** Runs a statement whose result is not read (SET, ATTACH, COPY, a transaction's BEGIN/COMMIT). */
export async function execute(connection: DuckDBConnection, sql: string, params?: Params): Promise<void> {
  await connection.run(sql, params === undefined ? undefined : [...params]);
}

/** The rows of a query, each an object of JS values by column name (integers as bigint or number, as DuckDB gives them). */
export async function readObjects(connection: DuckDBConnection, sql: string, params?: Params): Promise<Array<Record<string, unknown>>> {
  return (await connection.runAndReadAll(sql, params === undefined ? undefined : [...params])).getRowObjectsJS() as Array<
    Record<string, unknown>
  >;
}

/**
 * The rows of a query as DuckDB streams them, a chunk at a time (each row an object of JS values
 * by column name, as readObjects gives them): the whole result is never held, so verify scans
 * 100,000 records' evidence in the memory of one chunk.
 */
export async function* streamObjects(
  connection: DuckDBConnection,
  sql: string,
  params?: Params,
): AsyncGenerator<Array<Record<string, unknown>>> {
  const result = await connection.stream(sql, params === undefined ? undefined : [...params]);
  for await (const chunk of result.yieldRowObjectJs()) yield chunk as Array<Record<string, unknown>>;
}

/** The one row of a query of counts (`SELECT count(*), count(*) FILTER …`), each count exact. Throws unless it is exactly one row. */
export async function readCounts(connection: DuckDBConnection, sql: string, params?: Params): Promise<bigint[]> {
  const rows = (await connection.runAndReadAll(sql, params === undefined ? undefined : [...params])).getRows();
  if (rows.length !== 1) throw new Error(`readCounts: the query gave ${rows.length} rows, not one`);
  return rows[0]!.map((cell, i) => {
    if (typeof cell !== 'bigint' && typeof cell !== 'number')
      throw new Error(`readCounts: column ${i + 1} is not a count (${String(cell)})`);
    return BigInt(cell);
  });
}

/** A query's rows as (text, count) pairs: the first column as text ('(null)' for NULL), the second an exact count. */
export async function readPairs(connection: DuckDBConnection, sql: string, params?: Params): Promise<Array<[string, bigint]>> {
  const rows = (await connection.runAndReadAll(sql, params === undefined ? undefined : [...params])).getRows();
  return rows.map((r) => [r[0] === null ? '(null)' : String(r[0]), BigInt(r[1] as bigint)]);
}

/** The rows of a query as JSON values (DuckDB's JSON form: integers beyond 2^53 and decimals as text), with each column's name and type. */
export async function readJsonRows(
  connection: DuckDBConnection,
  sql: string,
  params?: Params,
): Promise<{ columns: Array<{ name: string; type: string }>; rows: unknown[][] }> {
  const reader = await connection.runAndReadAll(sql, params === undefined ? undefined : [...params]);
  const types = reader.columnTypes();
  return {
    columns: reader.columnNames().map((name, i) => ({ name, type: types[i]!.toString() })),
    rows: reader.getRowsJson() as unknown[][],
  };
}

/** The rows of a query as objects of JSON values by column name. */
export async function readJsonObjects(connection: DuckDBConnection, sql: string, params?: Params): Promise<Array<Record<string, unknown>>> {
  return (await connection.runAndReadAll(sql, params === undefined ? undefined : [...params])).getRowObjectsJson() as Array<
    Record<string, unknown>
  >;
}
