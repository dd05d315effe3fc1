// Issue 33, item 8: every table emit writes to a file, with more than two DuckDB chunks (2,048 rows
// each) of rows whose text columns mix NULL and values, goes out whole. DuckDB calls a SQL function
// on a whole chunk (or on the dictionary of a compressed column) even when it holds a NULL: the
// display rule the CSV files go through (store/shown-sql.ts) once threw on it, and emit with it.
// The store here is a real DuckDB file holding the declared tables; the expected cells are
// computed by DuckDB itself (CAST, replace), never by the code under test.
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESULT_TABLES } from '../../pipeline/emit/tables.ts';
import { copyCsv, copyParquet, copyScoresCsv, openEmitDatabase, type EmitDatabase } from '../../pipeline/store/emit-database.ts';
import { TABLES } from '../../pipeline/store/table-declarations.ts';

const ROWS = 5_000;
const dir = mkdtempSync(join(tmpdir(), 'prereg-null-text-'));
const storeFile = join(dir, 'store.duckdb');

/** Column name → declaration (`VARCHAR`, `BIGINT NOT NULL`…) of each table the test writes. */
const SCORE_COLUMNS = RESULT_TABLES.scores.columns;
const DECLARED: Record<string, Readonly<Record<string, string>>> = {
  input_rejects: TABLES.input_rejects,
  assertions: TABLES.assertions,
  proof_checks: TABLES.proof_checks,
  chain_checks: TABLES.chain_checks,
  // Section 5 writes result_scores (the operator's SQL: any column may be NULL); the statistics table is declared.
  result_scores: Object.fromEntries(SCORE_COLUMNS.map((c) => [c, c === 'system_id' || c === 'metric' ? 'VARCHAR' : 'BIGINT'])),
  result_score_intervals: TABLES.result_score_intervals,
};

const TEXT = new Set(['VARCHAR', 'JSON', 'VARCHAR[]']);
const typeOf = (declaration: string) => declaration.replace(/ NOT NULL$/, '');

/**
 * Row i's value of a column: NULL on every third row when the column may hold one; text repeats
 * over few values (DuckDB then stores it dictionary-compressed) and every seventh carries an ESC,
 * which the display rule shows as \u001b. A score's key (system_id, metric) is `distinct`: one interval per score.
 */
function valueSql(declaration: string, distinct: boolean): string {
  const type = typeOf(declaration);
  const value = {
    VARCHAR: `('v' || ${distinct ? 'i' : '(i % 50)'} || CASE WHEN i % 7 = 1 THEN chr(27) ELSE '' END)`,
    JSON: "('{\"i\":' || (i % 50) || '}')::JSON",
    'VARCHAR[]': "['a' || (i % 50), 'b']",
    BIGINT: 'i',
    INTEGER: 'i::INTEGER',
    DOUBLE: 'i / 4',
    BOOLEAN: 'i % 2 = 0',
  }[type];
  if (value === undefined) throw new Error(`no test value for ${type}`);
  return declaration.endsWith('NOT NULL') ? value : `CASE WHEN i % 3 = 0 THEN NULL ELSE ${value} END`;
}

let emit: EmitDatabase;
let check: DuckDBConnection;
let checkInstance: DuckDBInstance;

beforeAll(async () => {
  const instance = await DuckDBInstance.create(storeFile);
  const c = await instance.connect();
  for (const [table, columns] of Object.entries(DECLARED)) {
    const entries = Object.entries(columns);
    await c.run(`CREATE TABLE ${table} (${entries.map(([n, d]) => `"${n}" ${d}`).join(', ')})`);
    await c.run(
      `INSERT INTO ${table} SELECT ${entries.map(([n, d]) => `${valueSql(d, table.startsWith('result_'))} AS "${n}"`).join(', ')} FROM range(${ROWS}) r(i)`,
    );
  }
  await c.run('CHECKPOINT');
  c.closeSync();
  instance.closeSync();
  emit = await openEmitDatabase(storeFile);
  checkInstance = await DuckDBInstance.create(':memory:');
  check = await checkInstance.connect();
  await check.run(`ATTACH '${storeFile}' AS s (READ_ONLY)`);
});

afterAll(() => {
  emit?.close();
  check?.closeSync();
  checkInstance?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

const count = async (sql: string): Promise<number> => Number((await check.runAndReadAll(sql)).getRowsJS()[0]![0]);

/** Rows in one and not the other, both ways (bags): 0 when the two hold the same rows. */
const difference = (a: string, b: string) => count(`SELECT count(*) FROM ((${a} EXCEPT ALL ${b}) UNION ALL (${b} EXCEPT ALL ${a}))`);

/** What a CSV cell must hold for a column: its text as DuckDB casts it, an ESC shown as \u001b. */
function expectedCell(column: string, declaration: string): string {
  const cell = `"${column}"::VARCHAR`;
  return TEXT.has(typeOf(declaration)) ? `replace(${cell}, chr(27), '\\u001b') AS "${column}"` : `${cell} AS "${column}"`;
}

describe('emit writes text columns mixing NULL and values over several chunks', () => {
  it('the store holds what the test means: NULL and text mixed in every nullable text column, over 2 chunks', async () => {
    expect(ROWS).toBeGreaterThan(2 * 2_048);
    expect(await count('SELECT count(*) FROM s.input_rejects WHERE detail IS NULL')).toBe(Math.ceil(ROWS / 3));
    expect(await count('SELECT count(*) FROM s.input_rejects WHERE detail IS NOT NULL')).toBe(ROWS - Math.ceil(ROWS / 3));
  });

  it('rejects.csv: every row, NULL as an empty field, text shown', async () => {
    const path = join(dir, 'rejects.csv');
    const columns = Object.keys(TABLES.input_rejects);
    await copyCsv(emit.connection, 'input_rejects', columns, path);
    const csv = `SELECT * FROM read_csv('${path}', all_varchar = true, header = true)`;
    expect(await count(`SELECT count(*) FROM (${csv})`)).toBe(ROWS);
    expect(await count(`SELECT count(*) FROM (${csv}) WHERE detail IS NULL`)).toBe(Math.ceil(ROWS / 3));
    const expected = `SELECT ${Object.entries(TABLES.input_rejects)
      .map(([c, d]) => expectedCell(c, d))
      .join(', ')} FROM s.input_rejects`;
    expect(await difference(csv, expected)).toBe(0);
  });

  it('scores.csv: every score with its interval, NULL as an empty field', async () => {
    const path = join(dir, 'scores.csv');
    await copyScoresCsv(emit.connection, SCORE_COLUMNS, path);
    const csv = `SELECT * FROM read_csv('${path}', all_varchar = true, header = true)`;
    expect(await count(`SELECT count(*) FROM (${csv})`)).toBe(ROWS);
    expect(await count(`SELECT count(*) FROM (${csv}) WHERE system_id IS NULL`)).toBe(Math.ceil(ROWS / 3));
    const { system_id: _s, metric: _m, ...intervals } = TABLES.result_score_intervals;
    const cells = [...Object.entries(DECLARED.result_scores!), ...Object.entries(intervals)].map(([c, d]) => expectedCell(c, d));
    const expected = `SELECT ${cells.join(', ')} FROM s.result_scores LEFT JOIN s.result_score_intervals USING (system_id, metric)`;
    expect(await difference(csv, expected)).toBe(0);
  });

  it.each(['assertions', 'proof_checks', 'chain_checks'] as const)('%s.parquet: every row as stored', async (table) => {
    const path = join(dir, `${table}.parquet`);
    await copyParquet(emit.connection, table, Object.keys(TABLES[table]), path);
    expect(await difference(`SELECT * FROM read_parquet('${path}')`, `SELECT * FROM s.${table}`)).toBe(0);
  });
});
