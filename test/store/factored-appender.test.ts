// FactoredAppender must leave exactly the table a plain TableAppender would: same rows, same
// order, every type (lists, JSON, NULLs), and no staging tables behind.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStore, TableAppender, type CellValue, type Store } from '../../pipeline/store/db.ts';
import { FactoredAppender, rowFactoring } from '../../pipeline/store/factored-appender.ts';
import { factorRow } from '../../pipeline/store/row-factoring.ts';

const DDL = `(
  id BIGINT NOT NULL, status VARCHAR NOT NULL, codes VARCHAR[] NOT NULL, note VARCHAR, n INTEGER,
  ok BOOLEAN, score DOUBLE, doc JSON, hash VARCHAR
)`;

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prereg-factored-'));
  store = await openStore(join(dir, 'db.duckdb'));
  await store.connection.run(`CREATE TABLE plain ${DDL}; CREATE TABLE factored ${DDL};`);
});

afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** 500 rows in a scrambled id order: few distinct (status, codes, note, n, ok, score, doc), every hash distinct. */
function rows(): CellValue[][] {
  return Array.from({ length: 500 }, (_, i) => {
    const id = (i * 7919) % 500;
    return [
      id,
      ['VERIFIED', 'TAMPERED', 'MALFORMED'][i % 3]!,
      i % 3 === 1 ? ['PROOF_CHAIN_HASH_MISMATCH', 'PROOF_RESPONSE_HASH_MISMATCH'] : [],
      i % 5 === 0 ? null : `note ${i % 2} with "quotes", ü and a \\ backslash`,
      i % 4 === 0 ? null : i % 2,
      i % 6 === 0 ? null : i % 2 === 0,
      i % 2 === 0 ? 0.1 : 1e21,
      i % 7 === 0 ? null : '{"a":[1,2.50,"x"],"b":null}',
      `${id.toString(16).padStart(64, '0')}`,
    ];
  });
}

async function dump(table: string): Promise<unknown[]> {
  const reader = await store.connection.runAndReadAll(`SELECT * EXCLUDE (doc), doc::VARCHAR AS doc FROM ${table}`);
  return reader.getRowsJson();
}

describe('FactoredAppender', () => {
  it('stores the same rows, in append order, as TableAppender; each distinct profile once', async () => {
    const plain = await TableAppender.create(store.connection, 'plain');
    for (const row of rows()) plain.append(row);
    plain.close();

    const factoring = await rowFactoring(store.connection, 'factored', ['id', 'hash']);
    expect(factoring).toEqual({ varying: [0, 8], shared: [1, 2, 3, 4, 5, 6, 7] });
    const factored = await FactoredAppender.create(store.connection, 'factored', factoring);
    for (const row of rows()) factored.append(factorRow(row, factoring));
    expect(factored.profileCount).toBeGreaterThan(1);
    expect(factored.profileCount).toBeLessThan(50);
    await factored.close();

    const expected = await dump('plain');
    expect(expected).toHaveLength(500);
    expect(await dump('factored')).toEqual(expected);
    // Append order, not id order, is kept (the ids were appended scrambled).
    expect((await dump('factored')).slice(0, 3).map((r) => (r as unknown[])[0])).toEqual(['0', '419', '338']);
    const left = await store.connection.runAndReadAll("SELECT count(*) AS n FROM duckdb_tables() WHERE table_name LIKE '%factored_%'");
    expect(Number(left.getRowObjectsJson()[0]!.n)).toBe(0);
  });

  it('every column varying, or none: still the same table', async () => {
    for (const varying of [['id', 'status', 'codes', 'note', 'n', 'ok', 'score', 'doc', 'hash'], []]) {
      await store.connection.run('DELETE FROM plain; DELETE FROM factored;');
      const plain = await TableAppender.create(store.connection, 'plain');
      const factoring = await rowFactoring(store.connection, 'factored', varying);
      const factored = await FactoredAppender.create(store.connection, 'factored', factoring);
      for (const row of rows().slice(0, 50)) {
        plain.append(row);
        factored.append(factorRow(row, factoring));
      }
      plain.close();
      await factored.close();
      expect(await dump('factored')).toEqual(await dump('plain'));
    }
  });

  it('past the profiles it remembers, new ones are stored unremembered: still the same table', async () => {
    const plain = await TableAppender.create(store.connection, 'plain');
    const factoring = await rowFactoring(store.connection, 'factored', ['id', 'hash']);
    const factored = await FactoredAppender.create(store.connection, 'factored', factoring, 2);
    const distinct = new Set<string>();
    for (const row of rows()) {
      plain.append(row);
      const split = factorRow(row, factoring);
      distinct.add(split.shared);
      factored.append(split);
    }
    plain.close();
    // Only two profiles were remembered: the others were stored again each time they came back.
    expect(distinct.size).toBeGreaterThan(2);
    expect(factored.profileCount).toBeGreaterThan(distinct.size);
    expect(factored.profileCount).toBeLessThan(500);
    await factored.close();
    expect(await dump('factored')).toEqual(await dump('plain'));
  });

  it('moved into the table a range of rows at a time (500 rows, 64 per INSERT): still the same table, in append order', async () => {
    const plain = await TableAppender.create(store.connection, 'plain');
    const factoring = await rowFactoring(store.connection, 'factored', ['id', 'hash']);
    const factored = await FactoredAppender.create(store.connection, 'factored', factoring, undefined, 64);
    for (const row of rows()) {
      plain.append(row);
      factored.append(factorRow(row, factoring));
    }
    plain.close();
    await factored.close();
    const expected = await dump('plain');
    expect(expected).toHaveLength(500);
    expect(await dump('factored')).toEqual(expected);
  });

  it('refuses a varying column the table does not have', async () => {
    await expect(rowFactoring(store.connection, 'factored', ['id', 'nope'])).rejects.toThrow('factored has no column nope');
  });

  it('a create after an interrupted run replaces the staging tables it left', async () => {
    // What a killed run leaves: staging tables (here of another shape) with rows in them.
    await store.connection.run(`CREATE TABLE factored__factored_rows (x INTEGER); INSERT INTO factored__factored_rows VALUES (1);
      CREATE TABLE factored__factored_profiles (y VARCHAR); INSERT INTO factored__factored_profiles VALUES ('old');`);
    const factoring = await rowFactoring(store.connection, 'factored', ['id', 'hash']);
    const again = await FactoredAppender.create(store.connection, 'factored', factoring);
    again.append(factorRow(rows()[1]!, factoring));
    await again.close();
    expect(await dump('factored')).toHaveLength(1);
  });
});
