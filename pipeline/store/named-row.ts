// Rows keyed by column name, mapped onto a table's own column list when appended, so a row
// builder never depends on the column order of the DDL. No DuckDB here: worker threads build rows.

export type CellValue = string | number | boolean | null | readonly string[];

/** A row keyed by column name: every column of the list, whatever the table's order. */
export type NamedRow<Columns extends readonly string[]> = { readonly [Name in Columns[number]]: CellValue };

/** A named row's cells in the order of `columns` (a table's own column list). */
export function cellsInOrder(row: Readonly<Record<string, CellValue>>, columns: readonly string[]): CellValue[] {
  const cells = new Array<CellValue>(columns.length);
  for (let i = 0; i < columns.length; i++) {
    const v = row[columns[i]!];
    // undefined is never a cell: the row lacks the column (a bug, not bad input).
    if (v === undefined) throw new TypeError(`row has no value for column ${columns[i]}`);
    cells[i] = v;
  }
  return cells;
}

/** Throws unless `table` has exactly the columns a row builder names (in any order). */
export function requireSameColumns(table: string, actual: readonly string[], named: readonly string[]): void {
  const missing = actual.filter((c) => !named.includes(c));
  const extra = named.filter((c) => !actual.includes(c));
  if (missing.length > 0 || extra.length > 0) {
    throw new TypeError(
      `${table}: rows name ${extra.length ? `unknown columns ${extra.join(', ')}` : ''}${extra.length && missing.length ? ' and ' : ''}${missing.length ? `no value for ${missing.join(', ')}` : ''}`,
    );
  }
}
