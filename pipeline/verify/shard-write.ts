// `prereg verify --shard I/N --out DIR` (docs/scaling.md): one machine's share of the per-item
// checks. It reads the study's sealed input files itself (ingest's parsing, into a store of its own
// inside the temporary directory), checks the records shardOf gives index I, and writes their rows
// as Parquet with shard.json (shard-manifest.ts); the directory appears whole or not at all.
import { rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { StageContext, StageResult } from '../command.ts';
import { createTemporaryDir, publish, refuseExisting, refuseOutputsInsideStudy } from '../emit/directory.ts';
import { ingestInto } from '../ingest/stage.ts';
import { studyLayout } from '../layout.ts';
import { EXIT } from '../reasons.ts';
import { PARQUET_OPTIONS } from '../store/emit-database.ts';
import { openStore } from '../store/db.ts';
import { execute, readObjects } from '../store/query.ts';
import { copyTo, shardRows, tableRowCount } from '../store/statements.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { fileSha256, SHARD_MANIFEST, SHARD_TABLES, shardSource, type ShardManifest, type ShardTable } from './shard-manifest.ts';
import { mayBeInShare, type ShardSpec } from './shard-share.ts';
import { storeVerifyInputs, verifyInputs } from './study-stage.ts';
import { verifyPerItem } from './study-verify.ts';

export async function verifyShard(ctx: StageContext, spec: ShardSpec, out: string): Promise<StageResult> {
  const layout = studyLayout(ctx.root);
  const final = resolve(out);
  refuseOutputsInsideStudy(final, layout);
  refuseExisting(final);
  const loaded = loadStudyFiles(layout);
  // verify's own refusals (a drifted trust policy or corpus, missing commitments) and digests.
  const consumed = verifyInputs(loaded, '');
  const tmp = createTemporaryDir(dirname(final), basename(final));
  try {
    const db = join(tmp, 'work.duckdb');
    // Only the lines that may be this shard's: N shards check each line about once between them.
    // The files are hashed by the scan that reads them: the manifest names the bytes verified.
    const source = shardSource(loaded, await ingestInto(ctx, loaded, db, (line) => mayBeInShare(line, spec)));
    const store = await openStore(db);
    const tables = {} as ShardManifest['tables'];
    let counts;
    try {
      ({ counts } = await verifyPerItem(store, storeVerifyInputs(loaded, consumed), { progress: ctx.progress }, spec));
      for (const table of Object.keys(SHARD_TABLES) as ShardTable[]) {
        const file = `${table}.parquet`;
        await execute(store.connection, copyTo(shardRows(table, SHARD_TABLES[table]), join(tmp, file), PARQUET_OPTIONS));
        const [row] = await readObjects(store.connection, tableRowCount(table));
        tables[table] = { file, rows: Number(row!.n), sha256: await fileSha256(join(tmp, file)) };
      }
    } finally {
      store.close();
    }
    rmSync(db, { force: true });
    rmSync(`${db}.wal`, { force: true });
    const manifest: ShardManifest = { format: 'prereg.verify-shard-manifest/1', shard: spec, ...source, tables };
    writeFileSync(join(tmp, SHARD_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    publish(tmp, final, dirname(final));
    const json = {
      ok: true,
      stage: 'verify',
      shard: spec,
      out: final,
      evidence: counts.evidence,
      chains: counts.chains,
      proofs_by_status: counts.proofs_by_status,
      chains_by_status: counts.chains_by_status,
      tables,
    };
    return {
      exitCode: EXIT.ok,
      json,
      text: `verify: shard ${spec.index}/${spec.count}: ${counts.evidence} evidence item(s), ${counts.chains} receipt timeline(s) checked into ${final}`,
    };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}
