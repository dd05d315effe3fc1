// The display rule (text/display.ts) as a SQL function of the emit database: CSV is read in
// terminals and spreadsheets, so its text cells go through the same `shown` as every other sink.
// It is the TypeScript function itself, called by DuckDB, not a second copy of the rule in SQL.
import { DuckDBTypeId, VARCHAR, type DuckDBConnection } from '@duckdb/node-api';
import { registerSqlFunction } from './sql-functions.ts';
import { shown } from '../text/display.ts';
import { quoteIdent } from './sql-text.ts';

const SHOWN_SQL_FUNCTION = 'prereg_shown';

/** Registers `shown` on `connection` as prereg_shown(VARCHAR) → VARCHAR. */
export function registerShown(connection: DuckDBConnection): void {
  registerSqlFunction(connection, {
    name: SHOWN_SQL_FUNCTION,
    parameterTypes: [VARCHAR],
    returnType: VARCHAR,
    rule: ([text]) => shown(String(text)),
  });
}

/** Types whose CSV text is theirs to write (numbers, booleans, dates and times); any other shows text. */
const NOT_TEXT = new Set<DuckDBTypeId>([
  DuckDBTypeId.BOOLEAN,
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.FLOAT,
  DuckDBTypeId.DOUBLE,
  DuckDBTypeId.DECIMAL,
  DuckDBTypeId.DATE,
  DuckDBTypeId.TIME,
  DuckDBTypeId.TIME_TZ,
  DuckDBTypeId.TIMESTAMP,
  DuckDBTypeId.TIMESTAMP_S,
  DuckDBTypeId.TIMESTAMP_MS,
  DuckDBTypeId.TIMESTAMP_NS,
  DuckDBTypeId.TIMESTAMP_TZ,
  DuckDBTypeId.INTERVAL,
]);

/**
 * The rows of `source` (a table or a parenthesised query) as ORDER BY ALL orders them (on the
 * stored values), every column that holds text — VARCHAR, and lists, structs and JSON through
 * their text — shown by the display rule. Needs registerShown on the same connection.
 */
export async function shownSelect(connection: DuckDBConnection, source: string, columns: readonly string[]): Promise<string> {
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
