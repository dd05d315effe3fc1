// The store's typed reading API: statements run, rows and counts decoded in one place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openMemoryDatabase, type Store } from '../../pipeline/store/db.ts';
import { execute, readCounts, readJsonObjects, readJsonRows, readObjects, readPairs, streamObjects } from '../../pipeline/store/query.ts';

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
    expect(await readPairs(db.connection, 'SELECT k, count(*) FROM t GROUP BY k ORDER BY k NULLS LAST')).toEqual([
      ['a', 1n],
      ['b', 1n],
      ['(null)', 1n],
    ]);
    expect(await readJsonRows(db.connection, 'SELECT k, n FROM t ORDER BY n LIMIT 1')).toEqual({
      columns: [
        { name: 'k', type: 'VARCHAR' },
        { name: 'n', type: 'INTEGER' },
      ],
      rows: [['a', 1]],
    });
    expect(await readJsonObjects(db.connection, 'SELECT k FROM t ORDER BY n LIMIT 1')).toEqual([{ k: 'a' }]);
  });

  it("streams a query's rows a chunk at a time, each row an object of JS values, parameters bound", async () => {
    const chunks: Array<Array<Record<string, unknown>>> = [];
    for await (const chunk of streamObjects(db.connection, 'SELECT i, i % 2 = 0 AS even FROM range($1) r(i) ORDER BY i', [5000]))
      chunks.push(chunk);
    // A chunk is one of DuckDB's vectors (2,048 rows in 1.5): never the whole result at once.
    expect(chunks.length).toBeGreaterThan(1);
    expect(Math.max(...chunks.map((c) => c.length))).toBeLessThan(5000);
    expect(chunks[0]![0]).toEqual({ i: 0n, even: true });
    expect(chunks.flat().map((r) => r.i)).toEqual(Array.from({ length: 5000 }, (_, i) => BigInt(i)));
    expect(await streamObjects(db.connection, 'SELECT k FROM t WHERE n > $1', [3]).next()).toEqual({ done: true, value: undefined });
  });
});
