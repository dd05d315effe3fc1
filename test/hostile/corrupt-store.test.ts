// work/prereg.duckdb is a cache (SPEC §2): a flipped byte in a data block that opening the file
// does not touch used to pass ingest's check (it skipped) and then fail a later stage with
// INTERNAL_ERROR on every run until the file was deleted by hand. Now ingest reads every block
// (DuckDB checks each block's checksum), finds it, and rebuilds the store.
import { DuckDBInstance } from '@duckdb/node-api';
import { closeSync, copyFileSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleStudy, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';

const HEADER = 12_288; // three 4 KiB headers, then 256 KiB blocks
const BLOCK = 262_144;

function flipByte(path: string, offset: number): void {
  const fd = openSync(path, 'r+');
  const b = Buffer.alloc(1);
  readSync(fd, b, 0, 1, offset);
  b[0]! ^= 0xff;
  writeSync(fd, b, 0, 1, offset);
  closeSync(fd);
}

/** How a copy of the store with this byte flipped reads: opening it (what ingest checked), and reading every row. */
async function probe(db: string, offset: number): Promise<{ opens: boolean; readsFully: boolean }> {
  const copy = `${db}.probe`;
  copyFileSync(db, copy);
  flipByte(copy, offset);
  try {
    const instance = await DuckDBInstance.create(copy, { access_mode: 'READ_ONLY' });
    const c = await instance.connect();
    let readsFully = true;
    try {
      await c.runAndReadAll("SELECT * FROM stage_runs WHERE stage = 'ingest'");
      const tables = (await c.runAndReadAll('SELECT table_name FROM duckdb_tables()')).getRowObjectsJson();
      try {
        for (const t of tables) await c.runAndReadAll(`SELECT * FROM "${String(t.table_name)}"`);
      } catch {
        readsFully = false;
      }
      return { opens: true, readsFully };
    } catch {
      return { opens: false, readsFully: false };
    } finally {
      c.closeSync();
      instance.closeSync();
    }
  } catch {
    return { opens: false, readsFully: false };
  } finally {
    rmSync(copy, { force: true });
  }
}

describe('a corrupted store', () => {
  let study: { root: string; cleanup: () => void };
  let runId: string;
  beforeAll(async () => {
    study = copyExampleStudy();
    const r = await runCli(['run', '--root', study.root, ...TEST_OPERATOR_ARGS, '--json']);
    expect(r.code).toBe(0);
    runId = r.json.run_id;
  }, 120_000);
  afterAll(() => study.cleanup());

  it('a flipped byte in a data block that opening does not read: the next run rebuilds the store, same run_id', async () => {
    const db = join(study.root, 'work/prereg.duckdb');
    const blocks = Math.floor((statSync(db).size - HEADER) / BLOCK);
    let hidden: number | null = null;
    for (let i = 0; i < blocks && hidden === null; i++) {
      const offset = HEADER + i * BLOCK + BLOCK / 2;
      const p = await probe(db, offset);
      if (p.opens && !p.readsFully) hidden = offset;
    }
    expect(hidden, 'a block whose corruption only a full read finds').not.toBeNull();
    flipByte(db, hidden!);
    const r = await runCli(['run', '--root', study.root, ...TEST_OPERATOR_ARGS, '--outputs', join(study.root, 'out-again'), '--json']);
    expect(r.code, r.stdout.slice(0, 600)).toBe(0);
    expect(r.json.stages.ingest.skipped).toBe(false);
    expect(r.json.stages.ingest.reason).toContain('Corrupt database file');
    expect(r.json.run_id).toBe(runId);
  }, 300_000);
});
