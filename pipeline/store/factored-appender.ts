// Appends rows whose columns mostly repeat from row to row (proof_checks: ~45 of 58 columns are
// check outcomes, codes and key names that take a handful of distinct values in a study). Each
// distinct combination of the repeating columns is appended once; every row appends only its
// varying columns and a profile number; close() joins the two back into the table, in append
// order. A DuckDB Appender call costs ≈ 0.5 µs per string cell and ≈ 4 µs per list cell, so
// this turns ≈ 48 µs of main-thread work per proof_checks row into ≈ 10 (bench/verify.ts).
import type { DuckDBConnection } from '@duckdb/node-api';
import { TableAppender, tableColumns, type CellValue, type ColumnInfo } from './db.ts';
import type { FactoredRow, RowFactoring } from './row-factoring.ts';
import { quoteIdent } from './sql-text.ts';

/** The factoring of `table` with the named columns varying (every other column is shared). */
export async function rowFactoring(connection: DuckDBConnection, table: string, varyingColumns: readonly string[]): Promise<RowFactoring> {
  const columns = await tableColumns(connection, table);
  const names = columns.map((c) => c.name);
  for (const name of varyingColumns) if (!names.includes(name)) throw new Error(`${table} has no column ${name}`);
  const varying = new Set(varyingColumns);
  return {
    varying: names.flatMap((n, i) => (varying.has(n) ? [i] : [])),
    shared: names.flatMap((n, i) => (varying.has(n) ? [] : [i])),
  };
}

/**
 * Profiles remembered for reuse. Shared columns are meant to take few values, but some carry what a
 * submission wrote (lists of field names, for one): past this many distinct profiles a new one is
 * still stored, just not remembered, so a hostile submission costs speed, never memory.
 */
export const MAX_REMEMBERED_PROFILES = 65_536;

/**
 * Staged rows close() moves per INSERT. One INSERT … ORDER BY seq over all of them sorted every
 * row at once: 200,000 proof_checks rows took ≈ 500 MiB of DuckDB's memory (docs/performance.md).
 */
export const ROWS_PER_INSERT = 16_384;

export class FactoredAppender {
  rows = 0;
  private readonly profiles = new Map<string, number>();
  private nextProfile = 0;

  private constructor(
    private readonly connection: DuckDBConnection,
    private readonly table: string,
    private readonly columns: ColumnInfo[],
    private readonly factoring: RowFactoring,
    private readonly rowAppender: TableAppender,
    private readonly profileAppender: TableAppender,
    private readonly maxRemembered: number,
    private readonly rowsPerInsert: number,
  ) {}

  private static staging(table: string): { rows: string; profiles: string } {
    return { rows: `${table}__factored_rows`, profiles: `${table}__factored_profiles` };
  }

  static async create(
    connection: DuckDBConnection,
    table: string,
    factoring: RowFactoring,
    maxRemembered = MAX_REMEMBERED_PROFILES,
    rowsPerInsert = ROWS_PER_INSERT,
  ): Promise<FactoredAppender> {
    const columns = await tableColumns(connection, table);
    const { rows, profiles } = FactoredAppender.staging(table);
    const defs = (positions: number[]) => positions.map((i) => `${quoteIdent(`c${i}`)} ${columns[i]!.type}`).join(', ');
    // Staging tables live in the same database file (not TEMP, which is held in memory), so a
    // study larger than memory spills as the target table would; close() drops them.
    await connection.run(`DROP TABLE IF EXISTS ${quoteIdent(rows)}; DROP TABLE IF EXISTS ${quoteIdent(profiles)};
      CREATE TABLE ${quoteIdent(rows)} (seq BIGINT NOT NULL, profile INTEGER NOT NULL${factoring.varying.length > 0 ? `, ${defs(factoring.varying)}` : ''});
      CREATE TABLE ${quoteIdent(profiles)} (profile INTEGER NOT NULL${factoring.shared.length > 0 ? `, ${defs(factoring.shared)}` : ''});`);
    return new FactoredAppender(
      connection,
      table,
      columns,
      factoring,
      await TableAppender.create(connection, rows),
      await TableAppender.create(connection, profiles),
      maxRemembered,
      rowsPerInsert,
    );
  }

  /** Profile rows appended so far (distinct ones, until MAX_REMEMBERED_PROFILES). */
  get profileCount(): number {
    return this.nextProfile;
  }

  /** Appends one row given as factorRow's split. */
  append(row: FactoredRow): void {
    let profile = this.profiles.get(row.shared);
    if (profile === undefined) {
      profile = this.nextProfile++;
      if (this.profiles.size < this.maxRemembered) this.profiles.set(row.shared, profile);
      this.profileAppender.append([profile, ...(JSON.parse(row.shared) as CellValue[])]);
    }
    this.rowAppender.append([this.rows++, profile, ...row.varying]);
  }

  /** Moves the staged rows into the table, in append order, rowsPerInsert at a time, and drops the staging tables. */
  async close(): Promise<void> {
    this.rowAppender.close();
    this.profileAppender.close();
    const { rows, profiles } = FactoredAppender.staging(this.table);
    const select = this.columns.map((_, i) => `${this.factoring.varying.includes(i) ? 'r' : 'p'}.${quoteIdent(`c${i}`)}`).join(', ');
    for (let from = 0; from < this.rows; from += this.rowsPerInsert) {
      // seq is appended in order, so DuckDB skips the staged rows outside the range unread.
      await this.connection.run(`INSERT INTO ${quoteIdent(this.table)} SELECT ${select} FROM ${quoteIdent(rows)} r JOIN ${quoteIdent(profiles)} p USING (profile)
        WHERE r.seq >= ${from} AND r.seq < ${from + this.rowsPerInsert} ORDER BY r.seq`);
    }
    await this.connection.run(`DROP TABLE ${quoteIdent(rows)}; DROP TABLE ${quoteIdent(profiles)};`);
  }
}
