// The emit stage's work (SPEC §7), below its command (stages/emit.ts): what run_id derives from, and
// the signed, reproducible outputs/<run_id>/ from the store's result and base tables. emitOutputs
// is also what `prereg run` calls last, and an audit's rerun unsigned.
//
// Order: every refusal first (freeze, trust drift, the operator keys against the pinned key, the
// store's tables, an existing outputs/<run_id>/), then the data files into a temporary directory,
// manifest.json after all of them, then SHA256SUMS, manifest.sig and manifest.p7s, then one rename.
import { sha256OfFile, sha256OfFileIfAny } from '../io/file-hash.ts';
import { join } from 'node:path';
import { runDirectory, refuseExisting, refuseOutputsInsideStudy } from './directory.ts';
import { runIdOf, type Manifest } from './manifest.ts';
import type { EmitInputs } from '../results/shapes.ts';
import { resolveOperatorKeys } from './operator-keys.ts';
import { emitPreconditions } from './preconditions.ts';
import { reportInput } from './report-input.ts';
import { refuseDeviationFindings, verifyDeviationLog } from '../deviations/log.ts';
import type { OperatorKeyPems } from './sign.ts';
import { BASE_TABLES, describeStore, readClassCounts, readResults, readStoreFacts, RESULT_TABLES } from './tables.ts';
import { openEmitDatabase } from '../store/emit-database.ts';
import { writeOutputs } from './write-outputs.ts';
import { intakeRecordFiles, requireSealedIntake } from '../intake/files.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { listAnchorFiles } from '../freeze/anchors.ts';
import { studyLayout, studyRelative, type StudyLayout } from '../layout.ts';
import { EXIT } from '../reasons.ts';
import { storePath } from '../store/db.ts';
import type { StageContext, StageResult } from '../command.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';

export interface EmitOptions {
  /**
   * The operator's keys (PEM texts; resolveOperatorKeys reads them from options or environment),
   * or null for an unsigned emit (an audit's rerun): every file but manifest.sig and manifest.p7s.
   */
  keys: OperatorKeyPems | null;
  /** Where <run_id>/ is created (default: the study's outputs/). */
  outputsDir?: string;
  /** The DuckDB store (default: work/prereg.duckdb). */
  storeFile?: string;
  progress?: (message: string) => void;
}

export interface EmitResult {
  run_id: string;
  /** The absolute path of outputs/<run_id>/. */
  dir: string;
  manifest: Manifest;
  /** Temporary directories of interrupted emits of this run_id that were removed first. */
  removed_temporaries: string[];
}

/** What run_id derives from: the freeze, the ingested submission files, the commitments and the anchors. */
export function emitInputs(loaded: LoadedStudy, submissions: Array<{ file: string; sha256: string; bytes: number }>): EmitInputs {
  const { layout } = loaded;
  const frozen = loaded.frozen();
  return {
    corpus_root: frozen.corpus.root,
    section5_sha256: frozen.section5_sha256,
    answer_key_root: frozen.answer_key.root,
    trust_root: frozen.trust.root,
    freeze_digest: loaded.freezeDigest(),
    submissions: submissions
      .map((r) => ({ file: r.file, sha256: r.sha256, bytes: r.bytes }))
      .sort((a, b) => Buffer.compare(Buffer.from(a.file), Buffer.from(b.file))),
    commitments_sha256: sha256OfFileIfAny(layout.commitments),
    deviations_sha256: sha256OfFileIfAny(layout.deviations),
    // Each token and its metadata: an edit of either after this run is an audit finding.
    anchors: listAnchorFiles(layout.anchors).map((f) => ({
      file: studyRelative(layout, join(layout.anchors, f)),
      sha256: sha256OfFile(join(layout.anchors, f)),
    })),
    intake_files: intakeRecordFiles(layout),
  };
}

export async function emitOutputs(layout: StudyLayout, options: EmitOptions): Promise<EmitResult> {
  const progress = options.progress ?? (() => {});
  const storeFile = options.storeFile ?? storePath(layout);
  const emitting = emitPreconditions(layout, options.keys, storeFile);
  // The deviations the report lists must be the ones an auditor can check: else nothing is written.
  const deviations = await verifyDeviationLog(emitting, emitting.trust.tsa);
  refuseDeviationFindings(deviations);
  const db = await openEmitDatabase(storeFile);
  try {
    const c = db.connection;
    const schema = await describeStore(c, [...Object.values(RESULT_TABLES), ...Object.values(BASE_TABLES)]);
    const facts = await readStoreFacts(c, schema);
    const inputs = emitInputs(
      emitting.loaded,
      facts.submission_files.map((r) => ({ file: String(r.file), sha256: String(r.sha256), bytes: Number(r.bytes) })),
    );
    const runId = runIdOf(inputs);
    const { outputsDir, finalDir } = runDirectory(layout, runId, options.outputsDir);
    refuseOutputsInsideStudy(outputsDir, layout);
    refuseExisting(finalDir);
    progress('emit: reading results');
    // Every result but the per-record assertion_classes, which writeOutputs streams; the report counts its classes in SQL.
    const results = await readResults(c, schema);
    const report = await reportInput(layout, emitting, {
      run_id: runId,
      inputs,
      results,
      class_counts: await readClassCounts(c),
      facts,
      deviations: deviations.checked,
    });
    const written = await writeOutputs({
      connection: c,
      storeFile,
      schema,
      study: emitting.study,
      run_id: runId,
      inputs,
      results,
      facts,
      report,
      keys: emitting.keys,
      outputsDir,
      finalDir,
      progress,
    });
    return { run_id: runId, dir: finalDir, manifest: written.manifest, removed_temporaries: written.removed_temporaries };
  } finally {
    db.close();
  }
}

/** `prereg emit`: inside the window, with the operator's keys, the signed outputs/<run_id>/. */
export async function runEmit(ctx: StageContext): Promise<StageResult> {
  const layout = studyLayout(ctx.root);
  // Nothing signed outside the window (an audit's rerun calls emitOutputs, not this, on a study it judges itself).
  requireSealedIntake(loadStudyFiles(layout), Date.now());
  const keys = resolveOperatorKeys(ctx.values, ctx.env);
  const outputs = ctx.values.outputs;
  const r = await emitOutputs(layout, {
    keys,
    ...(typeof outputs === 'string' ? { outputsDir: outputs } : {}),
    progress: ctx.progress,
  });
  const json = {
    ok: true,
    stage: 'emit',
    run_id: r.run_id,
    dir: r.dir,
    decision_digest: r.manifest.decision_digest,
    artifact_digest: r.manifest.artifact_digest,
    outputs: r.manifest.outputs,
    removed_temporaries: r.removed_temporaries,
  };
  const text = [
    `emit: wrote ${r.dir}`,
    `  run_id           ${r.run_id}`,
    `  decision_digest  ${r.manifest.decision_digest}`,
    `  artifact_digest  ${r.manifest.artifact_digest}`,
    ...r.manifest.outputs.map((o) => `  ${o.file.padEnd(21)} ${String(o.bytes).padStart(9)} bytes  ${o.sha256}`),
    ...(r.removed_temporaries.length > 0 ? [`  removed ${r.removed_temporaries.length} stale temporary director(ies) of this run`] : []),
  ].join('\n');
  return { exitCode: EXIT.ok, json, text };
}
