// Memory bounded by design in classify, score and emit (docs/performance.md, "Bounded memory:
// classify, score, emit"): every DuckDB instance they open has a memory limit and spills beside
// the store, inside the study's work directory, and per-record rows leave DuckDB a chunk at a time.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreregError } from '../../pipeline/reasons.ts';
import { readCells, streamCells } from '../../pipeline/store/cells.ts';
import { openMemoryDatabase, openStore } from '../../pipeline/store/db.ts';
import { openEmitDatabase, withEmitDatabase } from '../../pipeline/store/emit-database.ts';
import { readObjects } from '../../pipeline/store/query.ts';
import { runSection5 } from '../../pipeline/store/section5-runner.ts';
import { BUILT_IN_CLASSES } from '../../pipeline/study/classes.ts';

let dir: string;
let db: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prereg-bounded-'));
  db = join(dir, 'work', 'prereg.duckdb');
  mkdirSync(join(dir, 'work'));
  const store = await openStore(db);
  await store.connection.run('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1)');
  store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** DuckDB's memory_limit as it shows it ("953.6 MiB", "19.2 GiB"), in bytes. */
function bytesOf(shown: string): number {
  const m = /^([\d.]+) (KiB|MiB|GiB|TiB)$/.exec(shown);
  if (!m) throw new Error(`memory_limit shown as ${shown}`);
  return Number(m[1]) * 1024 ** (['KiB', 'MiB', 'GiB', 'TiB'].indexOf(m[2]!) + 1);
}

const SETTINGS = "SELECT current_setting('memory_limit') AS memory_limit, current_setting('temp_directory') AS temp_directory";

describe('every DuckDB instance of classify, score and emit is bounded', () => {
  it("section 5's locked instance: at most 1.5 GiB (not DuckDB's 80% of the machine), spilling beside the store in work/", async () => {
    // What section 5 itself sees of its instance, recorded in a table of the store.
    await runSection5(
      db,
      [
        {
          sql: `CREATE TABLE seen AS ${SETTINGS};
CREATE VIEW assertion_classes AS SELECT 's' AS system_id, 'i' AS item_id, 1 AS attempt, 'a' AS assertion_id, 'record' AS kind,
  NULL AS ref, 'TRUNCATED' AS class_declared, 'TRUNCATED' AS class_proven WHERE false`,
          line: 1,
        },
      ],
      ['assertion_classes'],
      BUILT_IN_CLASSES,
      0.05,
    );
    const store = await openStore(db, { readOnly: true });
    try {
      const [seen] = await readObjects(store.connection, 'SELECT memory_limit, temp_directory FROM seen');
      expect(bytesOf(String(seen!.memory_limit))).toBeLessThanOrEqual(1.5 * 1024 ** 3);
      expect(String(seen!.temp_directory).startsWith(join(dir, 'work', 'duckdb-tmp', 'prereg.duckdb.'))).toBe(true);
    } finally {
      store.close();
    }
  });

  it('a plan that needs more than the limit is refused (SECTION5_OUT_OF_MEMORY), and writes nothing', async () => {
    const plan = [
      { sql: 'CREATE TABLE held AS SELECT list(i) AS l FROM range(20000000) r(i)', line: 1 },
      {
        sql: `CREATE VIEW assertion_classes AS SELECT 's' AS system_id, 'i' AS item_id, 1 AS attempt, 'a' AS assertion_id, 'record' AS kind,
  NULL AS ref, 'TRUNCATED' AS class_declared, 'TRUNCATED' AS class_proven WHERE false`,
        line: 2,
      },
    ];
    const err = await runSection5(db, plan, ['assertion_classes'], BUILT_IN_CLASSES, 0.05, null, '32MB').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PreregError);
    expect((err as PreregError).code).toBe('SECTION5_OUT_OF_MEMORY');
    expect((err as PreregError).exitCode).toBe(3);
    const store = await openStore(db, { readOnly: true });
    try {
      expect(await readObjects(store.connection, "SELECT table_name FROM duckdb_tables() WHERE table_name = 'held'")).toEqual([]);
    } finally {
      store.close();
    }
  });

  it("emit's in-memory databases: at most 256 MiB (512 MiB for a Parquet file's), spilling beside the store they read, not in the working directory", async () => {
    const [parquet] = await withEmitDatabase(db, (c) => readObjects(c, SETTINGS));
    expect(bytesOf(String(parquet!.memory_limit))).toBeLessThanOrEqual(512 * 1024 ** 2);
    expect(String(parquet!.temp_directory).startsWith(join(dir, 'work', 'duckdb-tmp', 'prereg.duckdb.'))).toBe(true);
    const emit = await openEmitDatabase(db);
    try {
      const [seen] = await readObjects(emit.connection, SETTINGS);
      expect(bytesOf(String(seen!.memory_limit))).toBeLessThanOrEqual(256 * 1024 ** 2);
      expect(String(seen!.temp_directory).startsWith(join(dir, 'work', 'duckdb-tmp', 'prereg.duckdb.'))).toBe(true);
      // Within that limit, a sort larger than it spills and completes instead of failing.
      const [sorted] = await readObjects(
        emit.connection,
        "SELECT count(*) AS n FROM (SELECT repeat('x', 200) || i AS s FROM range(1500000) r(i) ORDER BY s DESC)",
      );
      expect(Number(sorted!.n)).toBe(1_500_000);
    } finally {
      emit.close();
    }
  });
});

describe('streamCells', () => {
  it("reads a table in DuckDB's chunks (never more than 2,048 rows at once), the same rows as readCells in the same order", async () => {
    const mem = await openMemoryDatabase();
    try {
      await mem.connection.run("CREATE TABLE r AS SELECT i AS n, 'row ' || i AS s, i / 3.0 AS d FROM range(5000) t(i)");
      const sql = 'SELECT * FROM r ORDER BY n DESC';
      const chunks: number[] = [];
      const rows = [];
      for await (const chunk of streamCells(mem.connection, sql, 'r')) {
        chunks.push(chunk.length);
        rows.push(...chunk);
      }
      expect(chunks.length).toBeGreaterThanOrEqual(3);
      expect(Math.max(...chunks)).toBeLessThanOrEqual(2048);
      expect(rows).toEqual(await readCells(mem.connection, sql, 'r'));
      expect(rows[0]).toEqual({ n: 4999n, s: 'row 4999', d: rows[0]!.d });
    } finally {
      mem.close();
    }
  });
});
