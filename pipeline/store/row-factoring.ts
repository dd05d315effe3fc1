// How a table row is split for FactoredAppender (factored-appender.ts): which cells vary per row,
// and the split itself. Kept apart from the appender so that worker threads, which split rows,
// do not load DuckDB.
import type { CellValue } from './db.ts';

/** Which cells of a table's row vary per row; the others are grouped into a profile. */
export interface RowFactoring {
  /** Positions (in table column order) of the cells appended with every row. */
  varying: number[];
  /** Positions of the cells stored once per distinct profile. */
  shared: number[];
}

/** A row split by a factoring: the varying cells, and the shared cells as JSON text (the profile's key). */
export interface FactoredRow {
  varying: CellValue[];
  shared: string;
}

/** Splits a row (table column order). Runs where the row is built (a worker thread), not on the appending thread. */
export function factorRow(row: readonly CellValue[], factoring: RowFactoring): FactoredRow {
  return { varying: factoring.varying.map((i) => row[i]!), shared: JSON.stringify(factoring.shared.map((i) => row[i]!)) };
}
