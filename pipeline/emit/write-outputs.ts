// Writing outputs/<run_id>/ (SPEC §7): the data files into a temporary directory, manifest.json
// after all of them, then SHA256SUMS, manifest.sig and manifest.p7s, then one rename into place.
// Nothing is visible under outputs/<run_id>/ until every file is written; a failure removes the
// temporary directory.
import type { DuckDBConnection } from '@duckdb/node-api';
import { rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256OfFile } from '../io/file-hash.ts';
import { writeFailure } from '../io/write-failures.ts';
import { canonicalJson } from '../formats/canonical-json.ts';
import { renderHtml, renderMarkdown, type ReportInput } from '../report/render.ts';
import { duckdbVersion } from '../store/db.ts';
import { copyCsv, copyParquet, copyScoresCsv } from '../store/emit-database.ts';
import { TOOL_VERSION } from '../version.ts';
import { crashPoint, createTemporaryDir, publish, removeStaleTemporaries } from './directory.ts';
import {
  CMS_FILE,
  DATA_FILES,
  decisionDigest,
  MANIFEST_FILE,
  MANIFEST_FORMAT,
  manifestBytes,
  RESULTS_FORMAT,
  sealManifest,
  sha256sums,
  SIGNATURE_FILE,
  SUMS_FILE,
  type Manifest,
  type OutputFile,
} from './manifest.ts';
import type { EmitInputs } from '../results/shapes.ts';
import { signCmsDetached, signEd25519, type OperatorKeys } from './sign.ts';
import { BASE_TABLES, columnsOf, DECISION_RESULTS, RESULT_TABLES, type Row, type Schema } from './tables.ts';
import type { ResultName, StoreFacts } from '../results/shapes.ts';

export interface OutputsToWrite {
  connection: DuckDBConnection;
  schema: Schema;
  study: { study_id: string; as_of: string };
  run_id: string;
  inputs: EmitInputs;
  results: Record<ResultName, Row[]>;
  facts: StoreFacts;
  report: ReportInput;
  keys: OperatorKeys | null;
  /** Where <run_id>/ is created, and the final directory. */
  outputsDir: string;
  finalDir: string;
  progress: (message: string) => void;
}

function describeFile(dir: string, file: string): OutputFile {
  const path = join(dir, file);
  return { file, bytes: statSync(path).size, sha256: sha256OfFile(path) };
}

/** Writes every output, signs the manifest when keys are given, and publishes the directory; returns its manifest. */
export async function writeOutputs(o: OutputsToWrite): Promise<{ manifest: Manifest; removed_temporaries: string[] }> {
  let removed: string[];
  let tmp: string;
  try {
    removed = removeStaleTemporaries(o.outputsDir, o.run_id);
    tmp = createTemporaryDir(o.outputsDir, o.run_id);
  } catch (err) {
    throw writeFailure(err, o.outputsDir) ?? err;
  }
  try {
    let written = 0;
    const wrote = (file: string) => {
      written++;
      o.progress(`emit: wrote ${file}`);
      crashPoint(written);
    };
    const writeText = (file: string, text: string | Uint8Array) => {
      writeFileSync(join(tmp, file), text, { flag: 'wx' });
      wrote(file);
    };
    const c = o.connection;
    const resultsDoc = {
      format: RESULTS_FORMAT,
      study_id: o.study.study_id,
      as_of: o.study.as_of,
      run_id: o.run_id,
      ...o.results,
      evidence: o.facts.evidence,
      coverage: o.facts.coverage,
    };
    writeText('results.json', `${canonicalJson(resultsDoc)}\n`);
    await copyScoresCsv(c, columnsOf(o.schema, RESULT_TABLES.scores.table), join(tmp, 'scores.csv'));
    wrote('scores.csv');
    for (const name of ['assertions', 'proof_checks', 'chain_checks'] as const) {
      const t = BASE_TABLES[name].table;
      await copyParquet(c, t, columnsOf(o.schema, t), join(tmp, `${name}.parquet`));
      wrote(`${name}.parquet`);
    }
    await copyCsv(c, BASE_TABLES.rejects.table, columnsOf(o.schema, BASE_TABLES.rejects.table), join(tmp, 'rejects.csv'));
    wrote('rejects.csv');
    writeText('report.md', renderMarkdown(o.report));
    writeText('report.html', renderHtml(o.report));

    const decisionRows = Object.fromEntries(DECISION_RESULTS.map((n) => [n, o.results[n]])) as Record<
      (typeof DECISION_RESULTS)[number],
      Row[]
    >;
    const manifest = sealManifest({
      format: MANIFEST_FORMAT,
      study_id: o.study.study_id,
      as_of: o.study.as_of,
      run_id: o.run_id,
      inputs: o.inputs,
      tool: { name: 'prereg', version: TOOL_VERSION },
      duckdb_version: duckdbVersion(),
      outputs: DATA_FILES.map((f) => describeFile(tmp, f)),
      decision_digest: decisionDigest(decisionRows),
    });
    const manifestData = manifestBytes(manifest);
    writeText(MANIFEST_FILE, manifestData);
    writeText(SUMS_FILE, sha256sums([...manifest.outputs, describeFile(tmp, MANIFEST_FILE)]));
    if (o.keys) {
      writeText(SIGNATURE_FILE, signEd25519(o.keys, manifestData));
      writeText(CMS_FILE, await signCmsDetached(o.keys, manifestData));
    }
    publish(tmp, o.finalDir, o.outputsDir);
    return { manifest, removed_temporaries: removed };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw writeFailure(err, o.outputsDir) ?? err;
  }
}
