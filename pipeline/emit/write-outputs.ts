// Writing outputs/<run_id>/ (SPEC §7): the data files into a temporary directory, manifest.json
// after all of them, then SHA256SUMS, manifest.sig and manifest.p7s, then one rename into place.
// Nothing is visible under outputs/<run_id>/ until every file is written; a failure removes the
// temporary directory.
import type { DuckDBConnection } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { closeSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { hashFileStreamed } from '../io/file-hash.ts';
import { writeFailure } from '../io/write-failures.ts';
import { canonicalFrame, canonicalJson, STREAMED_ARRAY } from '../formats/canonical-json.ts';
import { renderHtml, renderMarkdown, type ReportInput } from '../report/render.ts';
import { duckdbVersion } from '../store/db.ts';
import { copyCsv, copyParquet, copyScoresCsv, withEmitDatabase } from '../store/emit-database.ts';
import { TOOL_VERSION } from '../version.ts';
import { crashPoint, createTemporaryDir, publish, removeStaleTemporaries } from './directory.ts';
import {
  CMS_FILE,
  DATA_FILES,
  decisionFrame,
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
import { BASE_TABLES, columnsOf, RESULT_TABLES, streamRows, type Row, type Schema } from './tables.ts';
import type { HeldResultName, StoreFacts } from '../results/shapes.ts';

export interface OutputsToWrite {
  connection: DuckDBConnection;
  /** The store `connection` attaches: each Parquet file is written by a database of its own on it. */
  storeFile: string;
  schema: Schema;
  study: { study_id: string; as_of: string };
  run_id: string;
  inputs: EmitInputs;
  /** Every result but assertion_classes, which is streamed from the store as it is written. */
  results: Record<HeldResultName, Row[]>;
  facts: StoreFacts;
  report: ReportInput;
  keys: OperatorKeys | null;
  /** Where <run_id>/ is created, and the final directory. */
  outputsDir: string;
  finalDir: string;
  progress: (message: string) => void;
}

/** A written file's size and SHA-256, read in chunks (results.json and the Parquet files grow with the study). */
async function describeFile(dir: string, file: string): Promise<OutputFile> {
  const { sha256, bytes } = await hashFileStreamed(join(dir, file));
  return { file, bytes, sha256 };
}

/**
 * results.json, with assertion_classes (a row per assertion and record) streamed from the store a
 * chunk at a time between the canonical text around it; the decision digest (SPEC §7) hashed from
 * the same rows in the same pass. Byte for byte what canonicalJson of the whole document gives.
 */
async function writeResults(o: OutputsToWrite, path: string): Promise<string> {
  const doc = {
    format: RESULTS_FORMAT,
    study_id: o.study.study_id,
    as_of: o.study.as_of,
    run_id: o.run_id,
    ...o.results,
    assertion_classes: STREAMED_ARRAY,
    evidence: o.facts.evidence,
    coverage: o.facts.coverage,
  };
  const [before, after] = canonicalFrame(doc);
  const [decisionBefore, decisionAfter] = decisionFrame(o.results);
  const decision = createHash('sha256').update(decisionBefore);
  const fd = openSync(path, 'wx');
  try {
    writeSync(fd, before);
    let first = true;
    for await (const rows of streamRows(o.connection, o.schema, RESULT_TABLES.assertion_classes.table)) {
      if (rows.length === 0) continue;
      const text = (first ? '' : ',') + rows.map((r) => canonicalJson(r)).join(',');
      first = false;
      writeSync(fd, text);
      decision.update(text);
    }
    writeSync(fd, `${after}\n`);
  } finally {
    closeSync(fd);
  }
  return decision.update(decisionAfter).digest('hex');
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
    const decision_digest = await writeResults(o, join(tmp, 'results.json'));
    wrote('results.json');
    await copyScoresCsv(c, columnsOf(o.schema, RESULT_TABLES.scores.table), join(tmp, 'scores.csv'));
    wrote('scores.csv');
    for (const name of ['assertions', 'proof_checks', 'chain_checks'] as const) {
      const t = BASE_TABLES[name].table;
      await withEmitDatabase(o.storeFile, (own) => copyParquet(own, t, columnsOf(o.schema, t), join(tmp, `${name}.parquet`)));
      wrote(`${name}.parquet`);
    }
    await copyCsv(c, BASE_TABLES.rejects.table, columnsOf(o.schema, BASE_TABLES.rejects.table), join(tmp, 'rejects.csv'));
    wrote('rejects.csv');
    writeText('report.md', renderMarkdown(o.report));
    writeText('report.html', renderHtml(o.report));

    const manifest = sealManifest({
      format: MANIFEST_FORMAT,
      study_id: o.study.study_id,
      as_of: o.study.as_of,
      run_id: o.run_id,
      inputs: o.inputs,
      tool: { name: 'prereg', version: TOOL_VERSION },
      duckdb_version: duckdbVersion(),
      outputs: await Promise.all(DATA_FILES.map((f) => describeFile(tmp, f))),
      decision_digest,
    });
    const manifestData = manifestBytes(manifest);
    writeText(MANIFEST_FILE, manifestData);
    writeText(SUMS_FILE, sha256sums([...manifest.outputs, await describeFile(tmp, MANIFEST_FILE)]));
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
