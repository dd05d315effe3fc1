// Row builders name their columns, the tables' declared ones (pipeline/store/table-declarations.ts,
// which test/store/tables.test.ts compares with the .sql files); an appender maps a named row onto
// the table's own column order, and refuses a row builder out of step with the table.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, TABLES_SQL_PATH, TableAppender, type Store } from '../../pipeline/store/db.ts';
import { cellsInOrder, requireSameColumns } from '../../pipeline/store/named-row.ts';
import { declaredColumns } from '../../pipeline/store/table-declarations.ts';

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

describe('named rows', () => {
  it("are mapped onto the table's own column order", async () => {
    await store.connection.run('CREATE TABLE swapped (b VARCHAR, a BIGINT, c VARCHAR[])');
    const appender = await TableAppender.create(store.connection, 'swapped', ['a', 'b', 'c']);
    appender.appendNamed({ a: 7, b: 'seven', c: ['x'] });
    appender.close();
    const reader = await store.connection.runAndReadAll('SELECT a, b, c FROM swapped');
    expect(reader.getRowsJson()).toEqual([['7', 'seven', ['x']]]);
  });

  it("refuse a column list that is not the table's, and a row without a value for a column", async () => {
    await expect(TableAppender.create(store.connection, 'chain_entries', declaredColumns('chain_entries').slice(1))).rejects.toThrow(
      'chain_entries: rows name no value for record_id',
    );
    expect(() => requireSameColumns('t', ['a', 'b'], ['a', 'b', 'z'])).toThrow('t: rows name unknown columns z');
    expect(() => cellsInOrder({ a: 1 }, ['a', 'b'])).toThrow('row has no value for column b');
    expect(cellsInOrder({ b: null, a: 1 }, ['a', 'b'])).toEqual([1, null]);
  });
});

describe("a declared table's appender", () => {
  it('takes the rows its declaration types, by name, and refuses one without a column', async () => {
    const appender = await TableAppender.declared(store.connection, 'registered_systems');
    appender.appendNamed({ system_id: 'sys-a', buyer_fingerprints: ['fp'], agent_identities: [], affiliated: false, replicate_of: null });
    // @ts-expect-error agent_identities is missing: the declaration types every column
    expect(() => appender.appendNamed({ system_id: 'sys-b', buyer_fingerprints: [], affiliated: false, replicate_of: null })).toThrow(
      'row has no value for column agent_identities',
    );
    appender.close();
    const reader = await store.connection.runAndReadAll('SELECT system_id, buyer_fingerprints FROM registered_systems');
    expect(reader.getRowsJson()).toEqual([['sys-a', ['fp']]]);
  });
});
