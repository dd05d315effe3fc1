// The section-5 runner's guards: locked, external access off, required views checked before
// anything is written, all in one transaction.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PreregError } from '../../pipeline/reasons.ts';
import { openStore } from '../../pipeline/store/db.ts';
import { runSection5 } from '../../pipeline/store/section5-runner.ts';
import { BUILT_IN_CLASSES } from '../../pipeline/study/classes.ts';

let dir: string;
let db: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prereg-s5-'));
  db = join(dir, 'store.duckdb');
  const store = await openStore(db);
  await store.connection.run('CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1), (2)');
  store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function refusal(blocks: string[], views: Parameters<typeof runSection5>[2]): Promise<PreregError> {
  try {
    await runSection5(
      db,
      blocks.map((sql, i) => ({ sql, line: i + 1 })),
      views,
      BUILT_IN_CLASSES,
      0.05,
    );
  } catch (err) {
    if (err instanceof PreregError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

async function tables(): Promise<string[]> {
  const store = await openStore(db, { readOnly: true });
  try {
    const r = await store.connection.runAndReadAll(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1",
    );
    return r.getRowObjectsJS().map((x) => String(x.table_name));
  } finally {
    store.close();
  }
}

describe('runSection5', () => {
  it('cannot read or write files: external access is disabled', async () => {
    const secret = join(dir, 'outside.csv');
    writeFileSync(secret, 'a\n1\n');
    const read = await refusal([`CREATE VIEW scores AS SELECT * FROM read_csv('${secret}')`, 'SELECT * FROM scores'], ['scores']);
    expect(read.code).toBe('SECTION5_SQL_FAILED');
    const write = await refusal([`COPY t TO '${join(dir, 'leak.csv')}'`], ['scores']);
    expect(write.code).toBe('SECTION5_SQL_FAILED');
    expect(write.message).toMatch(/disabled|external/i);
  });

  it('cannot unlock its configuration', async () => {
    const err = await refusal(['SET enable_external_access = true'], ['scores']);
    expect(err.code).toBe('SECTION5_SQL_FAILED');
  });

  it('refuses a missing view or a missing column, writing nothing (the transaction rolls back)', async () => {
    const before = await tables();
    const missing = await refusal(['CREATE TABLE leftover AS SELECT 1 AS y'], ['scores']);
    expect(missing.code).toBe('SECTION5_VIEW_MISSING');
    const columns = await refusal(["CREATE VIEW scores AS SELECT 's' AS system_id, 'm' AS metric, 1 AS declared"], ['scores']);
    expect(columns.code).toBe('SECTION5_VIEW_COLUMNS');
    expect(columns.message).toContain('proven');
    expect(await tables()).toEqual(before);
  });

  it('refuses an undocumented class value', async () => {
    const err = await refusal(
      [
        "CREATE VIEW assertion_classes AS SELECT 's' AS system_id, 'i' AS item_id, 1 AS attempt, 'a' AS assertion_id, 'citation' AS kind, 'R1' AS ref, 'PROBABLY_FINE' AS class_declared, 'PHANTOM' AS class_proven",
      ],
      ['assertion_classes'],
    );
    expect(err.code).toBe('SECTION5_VALUE_INVALID');
    expect(err.message).toContain('PROBABLY_FINE');
  });

  it('materialises a valid view as result_<view>, required columns first, rows in total order', async () => {
    const counts = await runSection5(
      db,
      [
        {
          sql: "CREATE VIEW scores AS SELECT 'extra' AS note, 'b' AS system_id, 'm' AS metric, 2 AS declared, 1 AS proven, 4 AS n_declared, 4 AS n_proven UNION ALL SELECT 'x', 'a', 'm', 1, 1, 4, 4",
          line: 1,
        },
      ],
      ['scores'],
      BUILT_IN_CLASSES,
      0.05,
    );
    expect(counts).toEqual({ scores: 2 });
    const store = await openStore(db, { readOnly: true });
    try {
      const r = await store.connection.runAndReadAll('SELECT * FROM result_scores');
      expect(r.columnNames()).toEqual(['system_id', 'metric', 'declared', 'proven', 'n_declared', 'n_proven', 'note']);
      expect(r.getRowObjectsJS().map((x) => x.system_id)).toEqual(['a', 'b']);
    } finally {
      store.close();
    }
  });
});
