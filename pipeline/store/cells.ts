// Rows read from the store decoded once, as emit writes them (results.json, the report): integers
// of every width exact (bigint), doubles as the JsonNumber of their Python repr, decimals by their
// digits, lists and structs as arrays and objects. The one place a DuckDB value becomes a cell.
import {
  DuckDBTimestampValue,
  DuckDBTypeId,
  DuckDBListValue,
  DuckDBArrayValue,
  DuckDBStructValue,
  DuckDBMapValue,
  DuckDBDecimalValue,
  DuckDBTimestampTZValue,
  type DuckDBConnection,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { JsonNumber, pythonFloatRepr } from '../formats/canonical-json.ts';
import { PreregError } from '../reasons.ts';

/**
 * A value as emit writes it in JSON: integers of every width as bigint (exact), doubles as the
 * JsonNumber of their Python repr (so 1.0 stays 1.0), decimals by their exact digits, strings
 * (JSON columns included, as their text) as strings, lists and structs as arrays and objects.
 */
export type Cell = null | boolean | string | bigint | JsonNumber | Cell[] | { [key: string]: Cell };
export type Row = Record<string, Cell>;

/** The rows of a query, each cell decoded by its column's type; `where` names the source in an error (e.g. the table). */
export async function readCells(connection: DuckDBConnection, sql: string, where: string): Promise<Row[]> {
  const reader = await connection.runAndReadAll(sql);
  return rowsOfCells(reader.getRows(), reader.columnNames(), reader.columnTypes(), where, 0);
}

/**
 * The rows of a query as readCells decodes them, one chunk of DuckDB's (2,048 rows) at a time: a
 * per-record table is never held whole in JavaScript.
 */
export async function* streamCells(connection: DuckDBConnection, sql: string, where: string): AsyncGenerator<Row[]> {
  const result = await connection.stream(sql);
  const names = result.columnNames();
  const types = result.columnTypes();
  let offset = 0;
  for await (const chunk of result.yieldRows()) {
    yield rowsOfCells(chunk, names, types, where, offset);
    offset += chunk.length;
  }
}

function rowsOfCells(rows: DuckDBValue[][], names: readonly string[], types: readonly DuckDBType[], where: string, offset: number): Row[] {
  return rows.map((values, i) => {
    const row: Row = {};
    values.forEach((v, c) => {
      row[names[c]!] = toCell(v, types[c]!, `${where}.${names[c]} (row ${offset + i + 1})`);
    });
    return row;
  });
}

export function toCell(value: DuckDBValue, type: DuckDBType, where: string): Cell {
  if (value === null) return null;
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return value as boolean;
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.UBIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
      return BigInt(value as number | bigint);
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE: {
      const x = value as number;
      if (!Number.isFinite(x)) {
        throw new PreregError('JSON_NUMBER_INVALID', `${where} is ${x}, which canonical JSON cannot hold`, { where });
      }
      return new JsonNumber(pythonFloatRepr(x));
    }
    case DuckDBTypeId.DECIMAL:
      return new JsonNumber((value as DuckDBDecimalValue).toString());
    case DuckDBTypeId.VARCHAR:
      return value as string;
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY: {
      const items = (value as DuckDBListValue | DuckDBArrayValue).items;
      const itemType = (type as { valueType: DuckDBType }).valueType;
      return items.map((v, i) => toCell(v, itemType, `${where}[${i}]`));
    }
    case DuckDBTypeId.STRUCT: {
      const entries = (value as DuckDBStructValue).entries;
      const st = type as { entryNames: readonly string[]; entryTypes: readonly DuckDBType[] };
      const out: { [key: string]: Cell } = {};
      st.entryNames.forEach((name, i) => {
        out[name] = toCell(entries[name] ?? null, st.entryTypes[i]!, `${where}.${name}`);
      });
      return out;
    }
    case DuckDBTypeId.MAP: {
      const mt = type as { keyType: DuckDBType; valueType: DuckDBType };
      return (value as DuckDBMapValue).entries.map((e, i) => ({
        key: toCell(e.key, mt.keyType, `${where}{${i}}.key`),
        value: toCell(e.value, mt.valueType, `${where}{${i}}.value`),
      }));
    }
    case DuckDBTypeId.TIMESTAMP_TZ:
      // The library's own toString uses the process's time zone; outputs must not.
      return `${new DuckDBTimestampValue((value as DuckDBTimestampTZValue).micros).toString()}+00`;
    default:
      // Dates, times, timestamps, intervals, UUIDs, enums, blobs: DuckDB's own text form.
      return String(value);
  }
}
