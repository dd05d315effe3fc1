// The store's typed reading API: statements run, rows and counts decoded in one place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryDatabase, type Store } from '../../pipeline/store/db.ts';
import { execute, readCounts, readJsonObjects, readJsonRows, readObjects, readPairs } from '../../pipeline/store/query.ts';

let db: Store;

beforeAll(async () => {
  db = await openMemoryDatabase();
  await execute(db.connection, "CREATE TABLE t AS SELECT * FROM (VALUES ('a', 1), ('b', 2), (NULL, 3)) v(k, n)");
});

afterAll(() => db.close());

describe('store/query.ts', () => {
  it('reads counts exactly, as bigints, from the one row of a query of counts', async () => {
    expect(await readCounts(db.connection, 'SELECT count(*), count(*) FILTER (WHERE n > $1) FROM t', [1])).toEqual([3n, 2n]);
  });

  it('refuses a query of counts that is not one row of counts', async () => {
    await expect(readCounts(db.connection, 'SELECT n FROM t')).rejects.toThrow('readCounts: the query gave 3 rows, not one');
    await expect(readCounts(db.connection, 'SELECT max(k) FROM t')).rejects.toThrow('readCounts: column 1 is not a count (b)');
  });

  it('reads rows as objects, (text, count) pairs and JSON values with their column types', async () => {
    expect(await readObjects(db.connection, 'SELECT k, n FROM t WHERE n = $1', [2])).toEqual([{ k: 'b', n: 2 }]);
    expect(await readPairs(db.connection, 'SELECT k, count(*) FROM t GROUP BY k ORDER BY k NULLS LAST')).toEqual([['a', 1n], ['b', 1n], ['(null)', 1n]]);
    expect(await readJsonRows(db.connection, 'SELECT k, n FROM t ORDER BY n LIMIT 1')).toEqual({ columns: [{ name: 'k', type: 'VARCHAR' }, { name: 'n', type: 'INTEGER' }], rows: [['a', 1]] });
    expect(await readJsonObjects(db.connection, 'SELECT k FROM t ORDER BY n LIMIT 1')).toEqual([{ k: 'a' }]);
  });
});
