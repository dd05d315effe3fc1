// The one runner of the pipeline's stages (run/pipeline.ts): load the study, the stage's inputs
// (its refusals first), its predecessor (run at most once per invocation), the judge against the
// recorded run (run/stage-inputs.ts), skip or work, record. `status` judges with it, running nothing.
import { existsSync } from 'node:fs';
import type { CachedStage, PreviousRun } from '../cached-stage.ts';
import type { StageContext, StageResult } from '../command.ts';
import { studyLayout, type StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';
import { openStore, storePath } from '../store/db.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { pipelineStage, type StageName } from './pipeline.ts';
import { judge, recordedRun, recordRun, rerunRegardless, type StageVerdict } from './stage-inputs.ts';

/**
 * Runs stage `name` unless this invocation already did (StageContext.memo: `prereg run` shares one,
 * so no stage runs twice in one command).
 */
export async function runStage(name: StageName, ctx: StageContext): Promise<StageResult> {
  const done = ctx.memo?.get(name);
  if (done) return done;
  const work = await pipelineStage(name).work();
  const result = work.cached ? await runCached(name, work.stage, ctx) : await work.run(ctx);
  ctx.memo?.set(name, result);
  return result;
}

/** The recorded run as the store holds it (a stage's own `previous` reads it otherwise). */
async function storedRun(layout: StudyLayout, name: StageName): Promise<PreviousRun> {
  const store = await openStore(storePath(layout), { readOnly: true });
  try {
    return await recordedRun(store.connection, name);
  } finally {
    store.close();
  }
}

async function runCached(name: StageName, stage: CachedStage<unknown, unknown, unknown>, ctx: StageContext): Promise<StageResult> {
  const layout = studyLayout(ctx.root);
  // What this stage stands on, read once; its predecessor reads its own.
  const prepared = await stage.prepare(ctx, loadStudyFiles(layout));
  const after = pipelineStage(name).after;
  // The predecessor runs with no option of this command but the secret file and the verified
  // shards (`run --verified-shards`: verify loads them; no --force).
  const secretFile = ctx.values['secret-file'];
  const shards = ctx.values['verified-shards'];
  const upstream =
    after === null
      ? null
      : (
          (
            await runStage(after, {
              ...ctx,
              values: {
                ...(typeof secretFile === 'string' ? { 'secret-file': secretFile } : {}),
                ...(typeof shards === 'string' ? { 'verified-shards': shards } : {}),
              },
            })
          ).json as {
            inputs_digest: string;
          }
        ).inputs_digest;
  const previous = await (stage.previous ? stage.previous(layout) : storedRun(layout, name));
  const force = ctx.values.force === true || stage.forced?.(prepared) === true;
  const regardless = rerunRegardless(previous, force);
  const consumed = await stage.inputs(prepared, upstream, regardless === null, ctx);
  const before = regardless === null ? judge(previous, consumed, stage.labels, force) : null;
  if (before?.current)
    return stage.result(ctx, prepared, { skipped: true, reason: before.reason, digest: before.digest, outputs: before.outputs });
  const outputs = await stage.work(ctx, prepared, consumed, (connection, o) => recordRun(connection, name, consumed, o));
  // Judged again only when the work filled in what the digest needs (ingest's files' hashes).
  const verdict = before ?? judge(previous, consumed, stage.labels, force);
  return stage.result(ctx, prepared, { skipped: false, reason: verdict.reason, digest: verdict.digest, outputs });
}

export type StageJudgement = Pick<StageVerdict, 'current' | 'digest' | 'reason'>;

/**
 * Whether stage `name` is current, given its predecessor's inputs digest, and the inputs it would
 * record (`status`: nothing run, nothing written). `rebuilt`: the first stage is stale, so the store
 * it rebuilds keeps no later stage's record.
 */
export async function judgeStage(
  name: StageName,
  ctx: StageContext,
  loaded: LoadedStudy,
  upstream: string | null,
  rebuilt: boolean,
): Promise<{ judgement: StageJudgement; consumed: unknown }> {
  const work = await pipelineStage(name).work();
  if (!work.cached) throw new Error(`${name} is not a cached stage`);
  const stage = work.stage;
  const consumed = await stage.inputs(await stage.prepare(ctx, loaded), upstream, true, ctx);
  if (stage.previous) return { judgement: judge(await stage.previous(loaded.layout), consumed, stage.labels), consumed };
  if (rebuilt) return { judgement: { current: false, digest: '', reason: 'no recorded run once ingest rebuilds the store' }, consumed };
  // No store, or one that cannot be read, means never run (ingest rebuilds it).
  if (!existsSync(storePath(loaded.layout))) return { judgement: { current: false, digest: '', reason: 'no recorded run' }, consumed };
  try {
    return { judgement: judge(await storedRun(loaded.layout, name), consumed, stage.labels), consumed };
  } catch (err) {
    if (err instanceof PreregError) throw err;
    return {
      judgement: { current: false, digest: '', reason: `the database could not be read (${(err as Error).message.split('\n')[0]})` },
      consumed,
    };
  }
}
