// Row builders name their columns; these lists must be the tables' own, in the DDL's order, so
// that a column renamed, added or swapped in the SQL is caught here and not in a study's tables.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVIDENCE_COLUMNS, RECEIPT_COLUMNS, RECORD_COLUMNS, REJECT_COLUMNS, SUBMISSION_FILE_COLUMNS } from '../../pipeline/ingest/rows.ts';
import { openStore, TABLES_SQL_PATH, TableAppender, type Store } from '../../pipeline/store/db.ts';
import { cellsInOrder, requireSameColumns } from '../../pipeline/store/named-row.ts';
import { CHAIN_CHECK_COLUMNS, CHAIN_ENTRY_COLUMNS, PROOF_CHECK_COLUMNS, REGISTERED_SYSTEM_COLUMNS } from '../../pipeline/verify/rows.ts';

const VERIFY_TABLES_SQL = fileURLToPath(new URL('../../pipeline/store/verify-tables.sql', import.meta.url));

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prereg-columns-'));
  store = await openStore(join(dir, 'db.duckdb'));
  await store.connection.run(readFileSync(TABLES_SQL_PATH, 'utf8'));
  await store.connection.run(readFileSync(VERIFY_TABLES_SQL, 'utf8'));
});

afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function describeColumns(table: string): Promise<string[]> {
  const reader = await store.connection.runAndReadAll(`DESCRIBE ${table}`);
  return reader.getRowObjectsJson().map((r) => String(r.column_name));
}

describe('the exported column lists are the tables\' (DESCRIBE), in order', () => {
  it.each([
    ['records', RECORD_COLUMNS],
    ['evidence', EVIDENCE_COLUMNS],
    ['receipts', RECEIPT_COLUMNS],
    ['rejects', REJECT_COLUMNS],
    ['commitment_rejects', REJECT_COLUMNS],
    ['submission_files', SUBMISSION_FILE_COLUMNS],
    ['proof_checks', PROOF_CHECK_COLUMNS],
    ['chain_checks', CHAIN_CHECK_COLUMNS],
    ['chain_entries', CHAIN_ENTRY_COLUMNS],
    ['registered_systems', REGISTERED_SYSTEM_COLUMNS],
  ] as const)('%s', async (table, columns) => {
    expect([...columns]).toEqual(await describeColumns(table));
  });
});

describe('named rows', () => {
  it('are mapped onto the table\'s own column order', async () => {
    await store.connection.run('CREATE TABLE swapped (b VARCHAR, a BIGINT, c VARCHAR[])');
    const appender = await TableAppender.create(store.connection, 'swapped', ['a', 'b', 'c']);
    appender.appendNamed({ a: 7, b: 'seven', c: ['x'] });
    appender.close();
    const reader = await store.connection.runAndReadAll('SELECT a, b, c FROM swapped');
    expect(reader.getRowsJson()).toEqual([['7', 'seven', ['x']]]);
  });

  it('refuse a column list that is not the table\'s, and a row without a value for a column', async () => {
    await expect(TableAppender.create(store.connection, 'chain_entries', CHAIN_ENTRY_COLUMNS.slice(1))).rejects.toThrow('chain_entries: rows name no value for record_id');
    expect(() => requireSameColumns('t', ['a', 'b'], ['a', 'b', 'z'])).toThrow('t: rows name unknown columns z');
    expect(() => cellsInOrder({ a: 1 }, ['a', 'b'])).toThrow('row has no value for column b');
    expect(cellsInOrder({ b: null, a: 1 }, ['a', 'b'])).toEqual([1, null]);
  });
});
