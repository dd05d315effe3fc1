import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildStoreAtomically,
  openStore,
  readStageRun,
  runSqlFile,
  TABLES_SQL_PATH,
  TableAppender,
  writeStageRun,
} from '../../pipeline/store/db.ts';
import { query } from '../ingest/helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'prereg-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = { stage: 'ingest', inputs_digest: 'd1', inputs_json: '{"a":1}', outputs_json: '{}', tool_version: '0', duckdb_version: 'v' };

describe('buildStoreAtomically', () => {
  it('creates the tables of tables.sql, appends rows in order, and renames the file into place', async () => {
    const path = join(dir, 'a', 'prereg.duckdb');
    await buildStoreAtomically(path, async (store) => {
      await runSqlFile(store.connection, TABLES_SQL_PATH);
      const rejects = await TableAppender.create(store.connection, 'rejects');
      for (let i = 1; i <= 5000; i++) rejects.append(['f.jsonl', i, i * 10, 'h', 'LINE_EMPTY', i % 2 ? null : i, `d${i}`]);
      rejects.close();
      await writeStageRun(store.connection, run);
    });
    expect(readdirSync(join(dir, 'a'))).toEqual(['prereg.duckdb']);
    const rows = await query(path, 'SELECT line_no, byte_offset, column_no, detail FROM rejects');
    expect(rows).toHaveLength(5000);
    expect(rows[0]).toEqual({ line_no: '1', byte_offset: '10', column_no: null, detail: 'd1' });
    expect(rows.map((r) => Number(r.line_no))).toEqual(Array.from({ length: 5000 }, (_, i) => i + 1));
    const tables = await query(path, 'SELECT table_name FROM duckdb_tables() ORDER BY table_name');
    expect(tables.map((t) => t.table_name)).toEqual(['evidence', 'receipts', 'records', 'rejects', 'stage_runs', 'submission_files']);
    const store = await openStore(path, { readOnly: true });
    try {
      expect(await readStageRun(store.connection, 'ingest')).toEqual(run);
      expect(await readStageRun(store.connection, 'verify')).toBeNull();
    } finally {
      store.close();
    }
  });

  it('leaves the previous database untouched, and no temporary file, when the build fails', async () => {
    const path = join(dir, 'b', 'prereg.duckdb');
    await buildStoreAtomically(path, async (store) => {
      await runSqlFile(store.connection, TABLES_SQL_PATH);
      await writeStageRun(store.connection, run);
    });
    await expect(
      buildStoreAtomically(path, async (store) => {
        await runSqlFile(store.connection, TABLES_SQL_PATH);
        const rejects = await TableAppender.create(store.connection, 'rejects');
        rejects.append(['f', 1, 0, 'h', 'X', null, 'd']);
        throw new Error('interrupted'); // with the appender still open
      }),
    ).rejects.toThrow('interrupted');
    expect(readdirSync(join(dir, 'b'))).toEqual(['prereg.duckdb']);
    expect(await query(path, 'SELECT count(*)::INTEGER AS n FROM rejects')).toEqual([{ n: 0 }]);
    expect(await query(path, 'SELECT inputs_digest FROM stage_runs')).toEqual([{ inputs_digest: 'd1' }]);
  });

  it('removes the temporary files of an interrupted earlier run, and a stale WAL of the old database', async () => {
    const d = join(dir, 'c');
    const path = join(d, 'prereg.duckdb');
    await buildStoreAtomically(path, async () => {});
    writeFileSync(join(d, '.prereg.duckdb.0123456789ab.tmp'), 'half-filled');
    writeFileSync(join(d, '.prereg.duckdb.0123456789ab.tmp.wal'), 'half-filled');
    writeFileSync(join(d, 'prereg.duckdb.wal'), 'not ours');
    writeFileSync(join(d, 'keep.txt'), 'unrelated');
    await buildStoreAtomically(path, async (store) => void (await runSqlFile(store.connection, TABLES_SQL_PATH)));
    expect(readdirSync(d).sort()).toEqual(['keep.txt', 'prereg.duckdb']);
  });

  it('reads no stage run from a database without stage_runs', async () => {
    const path = join(dir, 'empty.duckdb');
    const store = await openStore(path);
    try {
      expect(await readStageRun(store.connection, 'ingest')).toBeNull();
    } finally {
      store.close();
    }
    expect(existsSync(path)).toBe(true);
  });

  it('refuses a row with the wrong number of values', async () => {
    const store = await openStore(join(dir, 'wrong.duckdb'));
    try {
      await runSqlFile(store.connection, TABLES_SQL_PATH);
      const a = await TableAppender.create(store.connection, 'receipts');
      expect(() => a.append([1, '{}'])).toThrow('2 values for 3 columns');
      a.close();
    } finally {
      store.close();
    }
  });
});
