// `prereg emit` (SPEC §7): the signed, reproducible outputs/<run_id>/ from the store's result and
// base tables. emitOutputs is also what `prereg run` calls last.
//
// Order: every refusal first (freeze, trust drift, the operator keys against the pinned key, the
// store's tables, an existing outputs/<run_id>/), then the data files into a temporary directory,
// manifest.json after all of them, then SHA256SUMS, manifest.sig and manifest.p7s, then one rename.
import { sha256OfFile, sha256OfFileIfAny } from '../io/file-hash.ts';
import { existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { crashPoint, createTemporaryDir, publish, refuseExisting, refuseOutputsInsideStudy, removeStaleTemporaries } from '../emit/directory.ts';
import {
  CMS_FILE,
  DATA_FILES,
  decisionDigest,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  manifestBytes,
  RESULTS_FORMAT,
  runIdOf,
  sealManifest,
  sha256sums,
  SIGNATURE_FILE,
  SUMS_FILE,
  type EmitInputs,
  type Manifest,
  type OutputFile,
} from '../emit/manifest.ts';
import { KEY_OPTIONS, resolveOperatorKeys } from '../emit/operator-keys.ts';
import { checkOperatorKeys, loadOperatorKeys, signCmsDetached, signEd25519, type OperatorKeyPems } from '../emit/sign.ts';
import {
  BASE_TABLES,
  columnsOf,
  DECISION_RESULTS,
  describeStore,
  readRows,
  readStoreFacts,
  RESULT_NAMES,
  RESULT_TABLES,
  type ResultName,
  type Row,
} from '../emit/tables.ts';
import { copyCsv, copyParquet, copyScoresCsv, openEmitDatabase } from '../emit/writers.ts';
import { canonicalJson } from '../formats/canonical-json.ts';
import { intakeRecordFiles } from '../intake/files.ts';
import { countIndependentWitnesses, listAnchorFiles, listAnchorTokens, verifyAnchor } from '../freeze/anchors.ts';
import { refuseDrift, trustDrift } from '../study/drift.ts';
import { digestTree } from '../study/file-tree.ts';
import { freezeDigest, loadFreezeRecord } from '../study/freeze-record.ts';
import { loadStudy } from '../study/study.ts';
import { loadTrust } from '../study/trust.ts';
import { pinnedOperatorKey } from '../study/operator-key.ts';
import { studyLayout, type StudyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { renderHtml, renderMarkdown, type ReportInput } from '../report/render.ts';
import { duckdbVersion, storePath } from '../store/db.ts';
import { TOOL_VERSION } from '../version.ts';
import type { Command } from '../command.ts';
import { writeFailure } from '../io/write-failures.ts';

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

function studyRelative(layout: StudyLayout, path: string): string {
  return relative(layout.root, path).split(sep).join('/');
}

function describeFile(dir: string, file: string): OutputFile {
  const path = join(dir, file);
  return { file, bytes: statSync(path).size, sha256: sha256OfFile(path) };
}


/** What run_id derives from: the freeze, the ingested submission files, the commitments and the anchors. */
export function emitInputs(layout: StudyLayout, frozen: ReturnType<typeof loadFreezeRecord>, submissions: Array<{ file: string; sha256: string; bytes: number }>): EmitInputs {
  return {
    corpus_root: frozen.corpus.root,
    section5_sha256: frozen.section5_sha256,
    answer_key_root: frozen.answer_key.root,
    trust_root: frozen.trust.root,
    freeze_digest: freezeDigest(frozen),
    submissions: submissions
      .map((r) => ({ file: r.file, sha256: r.sha256, bytes: r.bytes }))
      .sort((a, b) => Buffer.compare(Buffer.from(a.file), Buffer.from(b.file))),
    commitments_sha256: sha256OfFileIfAny(layout.commitments),
    // Each token and its metadata: an edit of either after this run is an audit finding.
    anchors: listAnchorFiles(layout.anchors).map((f) => ({ file: studyRelative(layout, join(layout.anchors, f)), sha256: sha256OfFile(join(layout.anchors, f)) })),
    intake_files: intakeRecordFiles(layout),
  };
}

export async function emitOutputs(layout: StudyLayout, options: EmitOptions): Promise<EmitResult> {
  const progress = options.progress ?? (() => {});

  // --- Refusals, before anything is written -------------------------------------------------
  if (!existsSync(layout.freeze)) {
    throw new PreregError('FREEZE_MISSING', `${layout.freeze} does not exist; run \`prereg freeze\``);
  }
  const frozen = loadFreezeRecord(layout.freeze);
  const study = loadStudy(layout.study);
  // The trust directory must still be the frozen one: the operator key is pinned there.
  refuseDrift(trustDrift(frozen.trust, digestTree(layout.trust)), 'emit signs only with the frozen trust directory');
  const trust = loadTrust(layout.trust);
  const pinned = pinnedOperatorKey(layout.trust, trust.policy);
  // An audit's rerun has no operator key: it writes everything but the two signatures.
  const keys = options.keys === null ? null : loadOperatorKeys(options.keys);
  if (keys) checkOperatorKeys(keys, pinned);

  const storeFile = options.storeFile ?? storePath(layout);
  if (!existsSync(storeFile)) {
    throw new PreregError('OUTPUT_STORE_INCOMPLETE', `no store at ${storeFile}; run the pipeline up to score first`, { path: storeFile });
  }
  const db = await openEmitDatabase(storeFile);
  try {
    const c = db.connection;
    const schema = await describeStore(c, [...Object.values(RESULT_TABLES), ...Object.values(BASE_TABLES)]);
    const facts = await readStoreFacts(c, schema);

    const anchorFiles = listAnchorTokens(layout.anchors);
    const inputs = emitInputs(
      layout,
      frozen,
      facts.submission_files.map((r) => ({ file: String(r.file), sha256: String(r.sha256), bytes: Number(r.bytes) })),
    );
    const runId = runIdOf(inputs);
    const outputsDir = options.outputsDir ?? layout.outputs;
    refuseOutputsInsideStudy(outputsDir, layout);
    const finalDir = join(outputsDir, runId);
    refuseExisting(finalDir);

    progress('emit: reading results');
    const results = {} as Record<ResultName, Row[]>;
    for (const name of RESULT_NAMES) {
      const t = RESULT_TABLES[name].table;
      results[name] = await readRows(c, t, columnsOf(schema, t));
    }
    const primary = study.report?.primary_metric ?? null;
    if (primary !== null && !results.scores.some((row) => row.metric === primary)) {
      throw new PreregError('REPORT_METRIC_UNKNOWN', `preregistration/study.json report.primary_metric ${JSON.stringify(primary)} is not a metric of section 5's scores`, {
        metric: primary,
      });
    }
    const witnesses = [];
    for (const f of anchorFiles) witnesses.push(await verifyAnchor(layout.anchors, f, inputs.freeze_digest, { study: trust.tsa, auditor: null }, frozen.window.opens_at));
    const report: ReportInput = {
      title: study.title,
      study_id: study.study_id,
      as_of: study.as_of,
      run_id: runId,
      inputs,
      witnesses: witnesses.map((w) => ({ witness: w.witness, ok: w.ok, codes: [...w.codes], signer: w.signer })),
      independent_witnesses: countIndependentWitnesses(witnesses),
      min_witnesses: study.anchors.min_witnesses,
      primary_metric: primary,
      metric_labels: study.report?.metrics ?? {},
      results,
      facts,
    };

    // --- Writing: a temporary directory, renamed into place at the end ----------------------
    let removed: string[];
    let tmp: string;
    try {
      removed = removeStaleTemporaries(outputsDir, runId);
      tmp = createTemporaryDir(outputsDir, runId);
    } catch (err) {
      throw writeFailure(err, outputsDir) ?? err;
    }
    try {
      let written = 0;
      const wrote = (file: string) => {
        written++;
        progress(`emit: wrote ${file}`);
        crashPoint(written);
      };
      const writeText = (file: string, text: string | Uint8Array) => {
        writeFileSync(join(tmp, file), text, { flag: 'wx' });
        wrote(file);
      };
      const resultsDoc = { format: RESULTS_FORMAT, study_id: study.study_id, as_of: study.as_of, run_id: runId, ...results, evidence: facts.evidence, coverage: facts.coverage };
      writeText('results.json', `${canonicalJson(resultsDoc)}\n`);
      await copyScoresCsv(c, columnsOf(schema, RESULT_TABLES.scores.table), join(tmp, 'scores.csv'));
      wrote('scores.csv');
      for (const name of ['assertions', 'proof_checks', 'chain_checks'] as const) {
        const t = BASE_TABLES[name].table;
        await copyParquet(c, t, columnsOf(schema, t), join(tmp, `${name}.parquet`));
        wrote(`${name}.parquet`);
      }
      await copyCsv(c, BASE_TABLES.rejects.table, columnsOf(schema, BASE_TABLES.rejects.table), join(tmp, 'rejects.csv'));
      wrote('rejects.csv');
      writeText('report.md', renderMarkdown(report));
      writeText('report.html', renderHtml(report));

      const decisionRows = Object.fromEntries(DECISION_RESULTS.map((n) => [n, results[n]])) as Record<(typeof DECISION_RESULTS)[number], Row[]>;
      const manifest = sealManifest({
        format: MANIFEST_FORMAT,
        study_id: study.study_id,
        as_of: study.as_of,
        run_id: runId,
        inputs,
        tool: { name: 'prereg', version: TOOL_VERSION },
        duckdb_version: duckdbVersion(),
        outputs: DATA_FILES.map((f) => describeFile(tmp, f)),
        decision_digest: decisionDigest(decisionRows),
      });
      const manifestData = manifestBytes(manifest);
      writeText(MANIFEST_FILE, manifestData);
      writeText(SUMS_FILE, sha256sums([...manifest.outputs, describeFile(tmp, MANIFEST_FILE)]));
      if (keys) {
        writeText(SIGNATURE_FILE, signEd25519(keys, manifestData));
        writeText(CMS_FILE, await signCmsDetached(keys, manifestData));
      }
      publish(tmp, finalDir, outputsDir);
      return { run_id: runId, dir: finalDir, manifest, removed_temporaries: removed };
    } catch (err) {
      rmSync(tmp, { recursive: true, force: true });
      throw writeFailure(err, outputsDir) ?? err;
    }
  } finally {
    db.close();
  }
}

export { KEY_OPTIONS } from '../emit/operator-keys.ts';

export const emit: Command = {
  name: 'emit',
  summary: 'write the signed, reproducible outputs/<run_id>/ (results, tables, report, manifest, signatures)',
  help: [
    'usage: prereg emit [--operator-key FILE] [--cms-key FILE] [--cms-cert FILE] [--outputs DIR] [--root DIR] [--json]',
    '',
    '  --operator-key FILE  Ed25519 private key (PEM) whose public half is pinned as',
    '                       operator_public_key in preregistration/trust/ ($PREREG_OPERATOR_KEY)',
    '  --cms-key FILE       RSA private key (PEM) that signs manifest.p7s ($PREREG_OPERATOR_CMS_KEY)',
    '  --cms-cert FILE      its certificate, issued by the operator key, optionally followed by the',
    '                       operator certificate ($PREREG_OPERATOR_CMS_CERT)',
    '  --outputs DIR        where <run_id>/ is created (default: outputs/)',
    '',
    'Reads the result and base tables of work/prereg.duckdb (tables only, never section-5 views)',
    'and writes outputs/<run_id>/: results.json, scores.csv, assertions.parquet, proof_checks.parquet,',
    'chain_checks.parquet, rejects.csv, report.md, report.html, manifest.json (last), SHA256SUMS,',
    'manifest.sig and manifest.p7s, under a temporary name renamed into place. run_id derives from',
    'the input digests; the same inputs give byte-identical files. Exit 4 (OUTPUT_EXISTS) when',
    'outputs/<run_id>/ exists; exit 3 when a key is missing or not the pinned one, or the store is',
    'incomplete. See docs/outputs.md.',
  ].join('\n'),
  options: { ...KEY_OPTIONS, outputs: { type: 'string' } },
  stage: true,
  writesStudy: () => true,
  async run(ctx) {
    const layout = studyLayout(ctx.root);
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
  },
};
