// `prereg run --verified-shards DIR` (docs/scaling.md): the shards `verify --shard` wrote, checked
// to be this study's, 0..N-1 once each and unchanged, before anything runs (checkShards); then
// their rows loaded into the store in the order one machine appends them, and checked to cover
// every evidence item and timeline exactly once (loadShards). Whoever holds the shards could
// drop or replace the one holding a rival's good evidence: coverage and digests refuse both.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { schemaProblems } from '../formats/schemas.ts';
import { PreregError } from '../reasons.ts';
import { execute, readObjects } from '../store/query.ts';
import { insertShardRows, SHARD_COVERAGE, shardRowsOfNoRecord } from '../store/statements.ts';
import { fileSha256, SHARD_MANIFEST, SHARD_TABLES, type ShardManifest, type ShardSource, type ShardTable } from './shard-manifest.ts';

/** The shards, checked: each table's Parquet files, in shard order. */
export interface CheckedShards {
  count: number;
  files: Record<ShardTable, string[]>;
}

const TABLES = Object.keys(SHARD_TABLES) as ShardTable[];

function readManifest(dir: string): ShardManifest {
  const path = join(dir, SHARD_MANIFEST);
  if (!existsSync(path))
    throw new PreregError('SHARD_MANIFEST_INVALID', `${path}: no ${SHARD_MANIFEST} (not a verify shard)`, { file: path });
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new PreregError('SHARD_MANIFEST_INVALID', `${path}: not JSON (${(err as Error).message})`, { file: path });
  }
  const problems = schemaProblems('verify-shard', value);
  if (problems.length > 0) throw new PreregError('SHARD_MANIFEST_INVALID', `${path}: ${problems.join('; ')}`, { file: path });
  return value as ShardManifest;
}

/** What of `source` the manifest differs in, or null. */
function foreignIn(manifest: ShardManifest, source: ShardSource): string | null {
  for (const key of ['freeze_digest', 'seal_sha256', 'tool_version', 'duckdb_version'] as const)
    if (manifest[key] !== source[key]) return `${key} ${manifest[key] ?? 'null'}, the study's ${source[key] ?? 'null'}`;
  const made = manifest.inputs.map((f) => `${f.file} ${f.sha256 ?? 'none'}`);
  const now = source.inputs.map((f) => `${f.file} ${f.sha256 ?? 'none'}`);
  const differ = [...made.filter((f) => !now.includes(f)), ...now.filter((f) => !made.includes(f))];
  return differ.length > 0 || made.length !== now.length ? `input files differ: ${differ.join(', ') || 'their order'}` : null;
}

/** Every shard under `dir` (its subdirectories, one per shard), checked against the study's source; refuses before anything runs. */
export async function checkShards(dir: string, source: ShardSource): Promise<CheckedShards> {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new PreregError('FILE_NOT_FOUND', `--verified-shards ${dir}: not a directory`);
  const dirs = readdirSync(dir)
    .sort()
    .map((name) => join(dir, name))
    .filter((p) => statSync(p).isDirectory());
  if (dirs.length === 0) throw new PreregError('SHARD_MISSING', `${dir}: no shard directory (each shard's --out directory, one per shard)`);
  const byIndex = new Map<number, { dir: string; manifest: ShardManifest }>();
  let count: number | null = null;
  for (const d of dirs) {
    const manifest = readManifest(d);
    const foreign = foreignIn(manifest, source);
    if (foreign !== null) throw new PreregError('SHARD_FOREIGN', `${d}: made from other inputs than the study's: ${foreign}`, { file: d });
    if (count !== null && manifest.shard.count !== count)
      throw new PreregError('SHARD_FOREIGN', `${d}: shard ${manifest.shard.index}/${manifest.shard.count}, the others of ${count}`, {
        file: d,
      });
    count = manifest.shard.count;
    const twin = byIndex.get(manifest.shard.index);
    if (twin) throw new PreregError('SHARD_DUPLICATE', `${d} and ${twin.dir} are both shard ${manifest.shard.index}/${count}`, { file: d });
    byIndex.set(manifest.shard.index, { dir: d, manifest });
  }
  const missing = Array.from({ length: count! }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    throw new PreregError('SHARD_MISSING', `${dir}: no shard ${missing.map((i) => `${i}/${count}`).join(', ')}`, { missing });
  const files = Object.fromEntries(TABLES.map((t) => [t, [] as string[]])) as Record<ShardTable, string[]>;
  for (let i = 0; i < count!; i++) {
    const { dir: d, manifest } = byIndex.get(i)!;
    for (const table of TABLES) {
      const entry = manifest.tables[table];
      const path = join(d, entry.file);
      const sha256 = existsSync(path) ? await fileSha256(path) : 'none (the file is missing)';
      if (sha256 !== entry.sha256)
        throw new PreregError('SHARD_DIGEST_MISMATCH', `${path}: SHA-256 ${sha256}, its ${SHARD_MANIFEST} records ${entry.sha256}`, {
          file: path,
        });
      files[table].push(path);
    }
  }
  return { count: count!, files };
}

/** Loads the checked shards' rows into the per-item tables (created empty by verify), then refuses a missing, doubled or foreign item. */
export async function loadShards(connection: DuckDBConnection, shards: CheckedShards): Promise<void> {
  for (const table of TABLES) {
    const [foreign] = await readObjects(connection, shardRowsOfNoRecord(shards.files[table]));
    if (foreign !== undefined)
      throw new PreregError(
        'SHARD_FOREIGN',
        `${table}: a row of record (${[foreign.record_system_id, foreign.record_item_id, foreign.record_attempt].map((v) => JSON.stringify(v)).join(', ')}), which is none of the study's accepted submission lines`,
        { table },
      );
    // The rows in the order one machine appends them: the tables downstream read the same store.
    await execute(connection, insertShardRows(table, shards.files[table], SHARD_TABLES[table]));
  }
  for (const [table, sql] of Object.entries(SHARD_COVERAGE)) {
    const [bad] = await readObjects(connection, sql);
    if (bad === undefined) continue;
    const item =
      bad.evidence_index === null
        ? `record ${String(bad.record_id)}'s timeline`
        : `record ${String(bad.record_id)} evidence ${String(bad.evidence_index)}`;
    const n = Number(bad.n);
    if (bad.foreign_row === true)
      throw new PreregError('SHARD_FOREIGN', `${table}: ${item} is not an item of the study's submissions`, { table });
    if (n === 0) throw new PreregError('SHARD_MISSING', `${table}: ${item} is in no shard`, { table });
    throw new PreregError('SHARD_DUPLICATE', `${table}: ${item} is in ${n} shards' rows`, { table });
  }
}
