// Bounded memory (docs/performance.md, "Bounded memory: ingest and verify"): every store a stage
// writes has a DuckDB memory limit and spills into a directory of its own under work/duckdb-tmp/,
// removed when the store closes; $PREREG_DUCKDB_MEMORY_LIMIT sets the limit, and the tables a
// stage writes do not depend on it.
import { SECTION5_MEMORY_LIMIT_ENV } from '../../pipeline/store/stage-memory.ts';
import { DuckDBInstance } from '@duckdb/node-api';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { MEMORY_LIMIT_ENV, openStore } from '../../pipeline/store/db.ts';
import { runCli, scratchStudies } from '../support/cli.ts';
import { queryStore } from '../support/store-query.ts';

const dir = mkdtempSync(join(tmpdir(), 'prereg-stage-memory-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => void vi.unstubAllEnvs());

/** How DuckDB itself shows a memory limit once set (e.g. "244.1 MiB" for 256MB), read from a database of its own. */
async function shownLimit(limit: string): Promise<string> {
  const instance = await DuckDBInstance.create(':memory:', { memory_limit: limit });
  try {
    const c = await instance.connect();
    const rows = (await c.runAndReadAll("SELECT current_setting('memory_limit') AS m")).getRowObjectsJson();
    c.closeSync();
    return String(rows[0]!.m);
  } finally {
    instance.closeSync();
  }
}

async function settings(path: string, options: { readOnly?: boolean } = {}) {
  const store = await openStore(path, options);
  try {
    const rows = await store.connection.runAndReadAll(
      "SELECT current_setting('memory_limit') AS memory_limit, current_setting('temp_directory') AS temp_directory",
    );
    const s = rows.getRowObjectsJson()[0] as { memory_limit: string; temp_directory: string };
    // DuckDB creates the directory when it first spills; it is the store's own, under work/duckdb-tmp/.
    return { ...s, spillExistsWhileOpen: existsSync(join(dir, 'duckdb-tmp')) };
  } finally {
    store.close();
  }
}

describe("a stage's store", () => {
  it('has a 256MB memory limit and spills under duckdb-tmp/ beside it, removed on close', async () => {
    const path = join(dir, 'prereg.duckdb');
    const s = await settings(path);
    expect(s.memory_limit).toBe(await shownLimit('256MB'));
    expect(s.temp_directory.startsWith(join(dir, 'duckdb-tmp', 'prereg.duckdb.'))).toBe(true);
    expect(s.spillExistsWhileOpen).toBe(true);
    // Nothing a later stage or the audit could read is left behind.
    expect(readdirSync(dir).sort()).toEqual(['prereg.duckdb']);
  });

  it(`takes the limit from $${MEMORY_LIMIT_ENV}, and refuses one that is not a size (USAGE)`, async () => {
    const path = join(dir, 'prereg.duckdb');
    vi.stubEnv(MEMORY_LIMIT_ENV, '64MB');
    expect((await settings(path)).memory_limit).toBe(await shownLimit('64MB'));
    for (const bad of ['64', 'lots', '-1MB', '1e9MB', '64 MB']) {
      vi.stubEnv(MEMORY_LIMIT_ENV, bad);
      await expect(openStore(path)).rejects.toMatchObject({ code: 'USAGE' });
    }
    expect(readdirSync(dir).sort()).toEqual(['prereg.duckdb']);
  });

  it('opened read-only (a status query, which may read every block) gets the limit and no directory', async () => {
    const path = join(dir, 'prereg.duckdb');
    const s = await settings(path, { readOnly: true });
    expect(s.memory_limit).toBe(await shownLimit('256MB'));
    expect(s.spillExistsWhileOpen).toBe(false);
  });

  it('removes the spill directories of processes that are gone, not those of live ones', async () => {
    const parent = join(dir, 'duckdb-tmp');
    // DuckDB makes a store's directory when it first spills: these stand for a live process's and a killed one's.
    const live = `prereg.duckdb.${process.pid}.0000beef`;
    const dead = 'prereg.duckdb.4294967295.0badc0de'; // a pid above Linux's pid_max: no process has it
    for (const name of [live, dead]) {
      mkdirSync(join(parent, name), { recursive: true });
      writeFileSync(join(parent, name, 'duckdb_temp_block-1.block'), 'x');
    }
    const other = await openStore(join(dir, 'other.duckdb'));
    try {
      expect(readdirSync(parent)).toEqual([live]);
    } finally {
      other.close();
    }
    rmSync(parent, { recursive: true });
    rmSync(join(dir, 'other.duckdb'), { force: true });
  });
});

describe('the stages under the limit', () => {
  const study = scratchStudies();

  /** `prereg STAGE` under the given limit: its exit code and reason code (--json). */
  const under = async (limit: string | undefined, stage: string, root: string) => {
    if (limit === undefined) vi.unstubAllEnvs();
    else vi.stubEnv(MEMORY_LIMIT_ENV, limit);
    const r = await runCli([stage, '--root', root, '--json']);
    return { code: r.code, reason: (r.json as { code?: string } | null)?.code, names: r.stdout.includes(MEMORY_LIMIT_ENV) };
  };

  it(`every stage that writes the store applies $${MEMORY_LIMIT_ENV}: one that is not a size is refused (USAGE, exit 2)`, async () => {
    const root = study();
    expect(await under('lots', 'ingest', root)).toEqual({ code: 2, reason: 'USAGE', names: true });
    expect((await under(undefined, 'ingest', root)).code).toBe(0);
    expect(await under('lots', 'verify', root)).toEqual({ code: 2, reason: 'USAGE', names: true });
  });

  it('a limit too small for what DuckDB cannot spill is refused with STORE_MEMORY_LIMIT (exit 3), naming the variable to raise', async () => {
    const root = study();
    expect((await under(undefined, 'ingest', root)).code).toBe(0);
    // Verify's many tables and appenders pin more than 8MB at once.
    expect(await under('8MB', 'verify', root)).toEqual({ code: 3, reason: 'STORE_MEMORY_LIMIT', names: true });
    // Raised, the same store verifies.
    expect((await under(undefined, 'verify', root)).code).toBe(0);
  });

  it(`section 5's limit is $${SECTION5_MEMORY_LIMIT_ENV}'s: too small, score refuses SECTION5_OUT_OF_MEMORY (exit 3) naming it; raised, the same study scores`, async () => {
    const root = study();
    for (const stage of ['ingest', 'verify', 'classify']) expect((await under(undefined, stage, root)).code).toBe(0);
    vi.stubEnv(SECTION5_MEMORY_LIMIT_ENV, '2MB');
    const r = await runCli(['score', '--root', root, '--json']);
    expect([r.code, (r.json as { code?: string }).code]).toEqual([3, 'SECTION5_OUT_OF_MEMORY']);
    expect(r.stdout).toContain(SECTION5_MEMORY_LIMIT_ENV);
    vi.stubEnv(SECTION5_MEMORY_LIMIT_ENV, 'lots');
    expect((await runCli(['score', '--root', root, '--json'])).json).toMatchObject({ code: 'USAGE' });
    vi.unstubAllEnvs();
    expect((await runCli(['score', '--root', root, '--json'])).code).toBe(0);
  });

  it('writes the same tables under a tiny limit (64MB) as under the default, and leaves no spill directory', async () => {
    const tables = async (root: string) => {
      const out: Record<string, unknown> = {};
      for (const t of [
        'records',
        'evidence',
        'receipts',
        'rejects',
        'proof_checks',
        'chain_checks',
        'chain_entries',
        'evidence_ownership',
        'served_passages',
      ]) {
        // Every row, in the order DuckDB stores them (rowid): insertion order is part of what a stage writes.
        out[t] = await queryStore(root, `SELECT md5(string_agg(t::VARCHAR, '\n' ORDER BY rowid)) AS h, count(*) AS n FROM ${t} t`);
      }
      return out;
    };
    const runStages = async (root: string) => {
      for (const stage of ['ingest', 'verify']) {
        const r = await runCli([stage, '--root', root]);
        expect(r.code, r.stderr).toBe(0);
      }
      expect(readdirSync(join(root, 'work')).sort()).toEqual(['prereg.duckdb']);
      return tables(root);
    };
    const usual = await runStages(study());
    vi.stubEnv(MEMORY_LIMIT_ENV, '64MB');
    const tiny = await runStages(study());
    expect(tiny).toEqual(usual);
    expect(JSON.stringify(usual)).not.toContain('"n":"0"');
  });
});
