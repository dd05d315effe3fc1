// The ingest stage's work (SPEC §2, §5.1), below its command (stages/ingest.ts): what it consumes,
// whether the recorded run covers it, and the store built from every inputs/submissions/*.jsonl.
//
// Rejected lines are data, not a failure of the stage: they are recorded with their reason code
// and the stage exits 0. It exits 3 when the frozen items cannot be established (freeze.json or
// the items file missing, invalid, or drifted from the freeze). The database is a cache: when the
// inputs digest recorded by the last run matches, the stage skips and says so; otherwise it
// rebuilds every table from scratch into a new file renamed into place.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../formats/hash.ts';
import { requireSealedInputs } from '../intake/files.ts';
import { lineProtocolOf, loadStudy, type StudyConfig } from '../study/study.ts';
import { formatCounts, megabytes, scanFile, studyMaxLineBytes, studyMaxSystems, totalsOf, type FileSummary, type Totals } from './scan.ts';
import { evidenceRow, receiptRow, recordRow, rejectRow, submissionFileRow } from './rows.ts';
import { listSubmissionFiles, type SubmissionFile } from './submission-files.ts';
import { startLineWorkers } from './parallel-check.ts';
import type { SplitLine } from './lines.ts';
import { SubmissionChecker, type AcceptedRecord, type Reject } from './submission.ts';
import { studyLayout, studyRelative } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import {
  buildStoreAtomically,
  duckdbVersion,
  openStore,
  readEveryBlock,
  readStageRun,
  runSqlFile,
  storePath,
  TABLES_SQL_PATH,
  TableAppender,
} from '../store/db.ts';
import { execute } from '../store/query.ts';
import { hashFileStreamed } from '../io/file-hash.ts';
import { TOOL_VERSION } from '../version.ts';
import type { StageContext } from '../command.ts';
import type { CachedStage, PreviousRun } from '../cached-stage.ts';
import { loadFrozenItems } from '../freeze/frozen-items.ts';
import { shown } from '../text/display.ts';
import type { LoadedStudy } from '../study/loaded-study.ts';
import type { DuckDBConnection } from '@duckdb/node-api';

/** What the ingest run consumed; its canonical JSON's SHA-256 is the inputs digest. */
/** The submission schema's file: its digest is part of what the tables depend on. */
const SUBMISSION_SCHEMA_PATH = fileURLToPath(new URL('../../schemas/submission.schema.json', import.meta.url));

interface IngestInputs {
  stage: 'ingest';
  max_line_bytes: number;
  max_systems: number;
  items: { file: string; sha256: string };
  /** The frozen protocol the line checks apply (SPEC §12.5): registered systems, attempts per item. */
  protocol: { systems: string[] | null; attempts_per_item: number | null };
  submissions: Array<{ file: string; sha256: string; bytes: number }>;
  /** The code that shapes the tables: a change forces a rebuild. */
  code: { tool_version: string; duckdb_version: string; tables_sql_sha256: string; submission_schema_sha256: string };
}

interface IngestOutputs {
  files: FileSummary[];
  totals: Totals;
}

// How ingest's recorded inputs are named when they change.
const INGEST_LABELS = {
  max_line_bytes: 'limits.max_line_bytes',
  max_systems: 'limits.max_systems',
  protocol: 'study.json systems or protocol.attempts_per_item',
  code: 'the tool, DuckDB, table definitions or submission schema changed',
};

async function previousRun(path: string): Promise<PreviousRun> {
  if (!existsSync(path)) return { missing: 'no database yet' };
  let store;
  try {
    store = await openStore(path, { readOnly: true });
  } catch (err) {
    return { missing: `the database could not be opened (${(err as Error).message.split('\n')[0]})` };
  }
  try {
    const run = await readStageRun(store.connection, 'ingest');
    if (!run) return { missing: 'the database has no completed ingest' };
    // The store is a cache (SPEC §2): a corrupted block means rebuild it, not fail every later stage.
    await readEveryBlock(store.connection);
    return {
      inputs: JSON.parse(run.inputs_json) as IngestInputs,
      outputs: JSON.parse(run.outputs_json) as IngestOutputs,
      digest: run.inputs_digest,
    };
  } catch (err) {
    return { missing: `the database could not be read (${(err as Error).message.split('\n')[0]})` };
  } finally {
    store.close();
  }
}

/**
 * How the tables are loaded (bench:ingest, 200 MB: DuckDB's share of the CPU from ≈ 3.1 s to ≈ 2.3 s,
 * the file as large as before): in one transaction, so that an appender flush adds its rows to
 * transaction-local storage instead of committing them to the WAL (and checkpointing past 16 MB
 * of it) on the main thread; on one DuckDB thread, as the others only spin-wait for a checkpoint's
 * compression; without FSST string compression, which the evidence bodies (signatures, base64
 * tokens, all different) repay poorly for ≈ 0.7 s of CPU per 200 MB; and with a checkpoint at
 * the commit itself (threshold 0), which then writes the rows to the file once, not to the WAL first.
 */
const LOAD_SETTINGS = "SET threads = 1; SET disabled_compression_methods = 'fsst'; SET checkpoint_threshold = '0b'";

/** The protocol as ingest records it: plain, sorted data (lineProtocolOf). */
function protocolInputs(study: StudyConfig): IngestInputs['protocol'] {
  const p = lineProtocolOf(study);
  return { systems: p.systems === null ? null : [...p.systems].sort(), attempts_per_item: p.attemptsPerItem };
}

/**
 * Rebuilds the store from `files`. When `inputs.submissions` is empty (ingestInputs without
 * hashing), each file's SHA-256 and size are those its scan read, recorded as the inputs;
 * otherwise the scan must read exactly the bytes hashed before (SUBMISSION_FILE_CHANGED).
 */
async function build(
  ctx: StageContext,
  dbPath: string,
  files: SubmissionFile[],
  inputs: IngestInputs,
  items: Set<string>,
  record: (connection: DuckDBConnection, outputs: IngestOutputs) => Promise<void>,
  keep?: (line: SplitLine) => boolean,
): Promise<IngestOutputs> {
  const summaries: FileSummary[] = [];
  const hashed = inputs.submissions.length === files.length;
  // One total over every file, so the ETA is the stage's, not one file's.
  const sizes = hashed ? inputs.submissions.map((f) => f.bytes) : files.map((f) => statSync(f.path).size);
  const totalBytes = sizes.reduce((n, b) => n + b, 0);
  const { systems, attempts_per_item } = inputs.protocol;
  const checker = new SubmissionChecker(items, true, {
    systems: systems === null ? null : new Set(systems),
    attemptsPerItem: attempts_per_item,
  });
  // Started before the store is opened, so that their start-up overlaps it; one core is left to
  // this thread, which appends (bench:ingest: one worker used less CPU than two, no more wall).
  const workers = startLineWorkers(totalBytes, checker, { env: ctx.env, threads: availableParallelism() - 1 });
  try {
    await buildStoreAtomically(dbPath, async (store) => {
      const c = store.connection;
      await runSqlFile(c, TABLES_SQL_PATH);
      await execute(c, LOAD_SETTINGS);
      await execute(c, 'BEGIN TRANSACTION');
      const records = await TableAppender.declared(c, 'records');
      const evidence = await TableAppender.declared(c, 'evidence');
      const receipts = await TableAppender.declared(c, 'receipts');
      const rejects = await TableAppender.declared(c, 'rejects');
      let recordId = 0;
      const systems = new Set<string>();
      const sinks = {
        record(r: AcceptedRecord) {
          systems.add(r.system_id);
          if (systems.size > inputs.max_systems) {
            throw new PreregError(
              'STUDY_TOO_MANY_SYSTEMS',
              `${r.file}:${r.line_no}: system_id ${JSON.stringify(r.system_id)} is system number ${systems.size}; the study accepts at most ${inputs.max_systems} (study.json limits.max_systems). Sign tests compare every pair of systems, so nothing was ingested`,
              { file: r.file, line: r.line_no, max_systems: inputs.max_systems },
            );
          }
          recordId++;
          records.appendNamed(recordRow(recordId, r));
          for (const e of r.evidence) evidence.appendNamed(evidenceRow(recordId, e));
          if (r.receipts_json !== null) receipts.appendNamed(receiptRow(recordId, r.receipts_json));
        },
        reject(r: Reject) {
          rejects.appendNamed(rejectRow(r));
        },
      };
      let readBefore = 0;
      for (const [i, f] of files.entries()) {
        const summary = await scanFile(f.path, f.file, checker, sinks, {
          maxLineBytes: inputs.max_line_bytes,
          workers,
          ...(keep ? { keep } : {}),
          progress: (done) =>
            ctx.progress(
              `ingest: ${shown(f.file)} (${i + 1}/${files.length}) ${megabytes(done)} of ${megabytes(sizes[i]!)}`,
              readBefore + done,
              totalBytes,
            ),
        });
        const expected = hashed ? inputs.submissions[i]! : null;
        if (expected && (summary.sha256 !== expected.sha256 || summary.bytes !== expected.bytes)) {
          throw new PreregError(
            'SUBMISSION_FILE_CHANGED',
            `${f.file} changed while it was read (SHA-256 ${expected.sha256} before, ${summary.sha256} while reading)`,
            { file: f.file },
          );
        }
        summaries.push(summary);
        readBefore += sizes[i]!;
      }
      if (!hashed) inputs.submissions = summaries.map((x) => ({ file: x.file, sha256: x.sha256, bytes: x.bytes }));
      for (const a of [records, evidence, receipts, rejects]) a.close();
      await execute(c, 'COMMIT');
      const fileRows = await TableAppender.declared(c, 'submission_files');
      for (const s of summaries) fileRows.appendNamed(submissionFileRow(s));
      fileRows.close();
      const outputs: IngestOutputs = { files: summaries, totals: totalsOf(summaries) };
      await record(c, outputs);
    });
  } finally {
    await workers?.pool.close();
  }
  return { files: summaries, totals: totalsOf(summaries) };
}

interface IngestPrepared {
  inputs: IngestInputs;
  files: SubmissionFile[];
  ignored: string[];
  items: Set<string>;
}

/**
 * What ingest would consume now, no submission file hashed yet (`submissions` empty: hashSubmissions
 * fills it in, or the scan does (build) when no digest can spare a rebuild).
 */
function ingestInputs(loaded: LoadedStudy): IngestPrepared {
  const { layout } = loaded;
  const study = loaded.study();
  const items = loadFrozenItems(loaded);
  // After the seal, exactly the sealed files (SPEC §12.2): INTAKE_DRIFT / SEAL_FREEZE_MISMATCH otherwise.
  requireSealedInputs(layout, loaded.freezeDigest());
  const { files, ignored } = listSubmissionFiles(layout);
  const submissions: IngestInputs['submissions'] = [];
  const inputs: IngestInputs = {
    stage: 'ingest',
    max_line_bytes: studyMaxLineBytes(study),
    max_systems: studyMaxSystems(study),
    items: { file: items.file, sha256: items.sha256 },
    protocol: protocolInputs(study),
    submissions,
    code: {
      tool_version: TOOL_VERSION,
      duckdb_version: duckdbVersion(),
      tables_sql_sha256: sha256Hex(readFileSync(TABLES_SQL_PATH)),
      submission_schema_sha256: sha256Hex(readFileSync(SUBMISSION_SCHEMA_PATH)),
    },
  };
  return { inputs, files, ignored, items: items.ids };
}

/** Every submission file hashed, for the digest that may spare a rebuild. */
async function hashSubmissions(files: SubmissionFile[], progress: StageContext['progress']): Promise<IngestInputs['submissions']> {
  const submissions: IngestInputs['submissions'] = [];
  for (const [i, f] of files.entries()) {
    progress(`ingest: hashing ${shown(f.file)}`, i, files.length);
    submissions.push({ file: f.file, ...(await hashFileStreamed(f.path)) });
  }
  return submissions;
}

/**
 * Builds a store of the study's submissions at `dbPath`, recording no run (`verify --shard`: a
 * machine that verifies a share reads the sealed files itself), checking only the lines `keep`
 * keeps; returns every file's SHA-256 and size as the scan read them (the bytes the store holds).
 */
export async function ingestInto(
  ctx: StageContext,
  loaded: LoadedStudy,
  dbPath: string,
  keep?: (line: SplitLine) => boolean,
): Promise<IngestInputs['submissions']> {
  const prepared = ingestInputs(loaded);
  await build(ctx, dbPath, prepared.files, prepared.inputs, prepared.items, async () => {}, keep);
  return prepared.inputs.submissions;
}

/** Every sealed submission file of the study, hashed (what a shard records it was made from). */
export async function submissionHashes(loaded: LoadedStudy, progress: StageContext['progress']): Promise<IngestInputs['submissions']> {
  return hashSubmissions(ingestInputs(loaded).files, progress);
}

/** `prereg ingest`: skip when the recorded run covers the inputs, else rebuild the store. */
export const INGEST: CachedStage<IngestPrepared, IngestInputs, IngestOutputs> = {
  labels: INGEST_LABELS,
  prepare(ctx, loaded) {
    if (ctx.values['max-line-bytes'] !== undefined) {
      // A bound is one of the study's recorded inputs: a flag given to one stage would be undone
      // by the next stage that re-ingests (verify, run), so it is set once, in study.json.
      throw new PreregError(
        'USAGE',
        `--max-line-bytes is not an ingest option: the line limit is the study's, limits.max_line_bytes in preregistration/study.json (set before the freeze; now ${studyMaxLineBytes(loadStudy(loaded.layout.study))})`,
      );
    }
    return ingestInputs(loaded);
  },
  // A rebuild whatever the inputs (no database, one that cannot be read, --force) needs no digest
  // to decide: the files are then hashed once, by the scan that reads them, not also before it.
  async inputs(prepared, _upstream, hash, ctx) {
    if (hash) prepared.inputs.submissions = await hashSubmissions(prepared.files, ctx.progress);
    return prepared.inputs;
  },
  // A database that cannot be read is stale, not an error.
  previous: (layout) => previousRun(storePath(layout)),
  work: (ctx, prepared, consumed, record) => build(ctx, storePath(studyLayout(ctx.root)), prepared.files, consumed, prepared.items, record),
  result(ctx, prepared, outcome) {
    const json = {
      ok: true,
      stage: 'ingest',
      skipped: outcome.skipped,
      reason: outcome.skipped ? 'inputs unchanged since the last ingest' : outcome.reason,
      database: studyRelative(studyLayout(ctx.root), storePath(studyLayout(ctx.root))),
      inputs_digest: outcome.digest,
      max_line_bytes: prepared.inputs.max_line_bytes,
      files: outcome.outputs.files,
      totals: outcome.outputs.totals,
      ignored: prepared.ignored,
    };
    return { exitCode: EXIT.ok, json, text: render(json) };
  },
};

function render(r: {
  skipped: boolean;
  reason: string;
  database: string;
  files: FileSummary[];
  totals: Totals;
  ignored: string[];
}): string {
  const lines = [r.skipped ? `ingest: skipped, ${r.reason} (${r.database})` : `ingest: rebuilt ${r.database} (${r.reason})`];
  if (r.files.length === 0) lines.push('  no submission files in inputs/submissions/');
  const width = Math.max(0, ...r.files.map((f) => shown(f.file).length));
  for (const f of r.files) {
    lines.push(
      `  ${shown(f.file).padEnd(width)}  ${f.lines_read} lines = ${f.accepted} accepted + ${f.rejected} rejected${f.rejected > 0 ? ` (${formatCounts(f.rejects_by_code)})` : ''}`,
    );
  }
  const t = r.totals;
  lines.push(`total: ${t.lines_read} lines read = ${t.accepted} accepted + ${t.rejected} rejected, in ${t.files} file(s)`);
  lines.push(`rejects by code: ${formatCounts(t.rejects_by_code)}`);
  for (const f of r.ignored) lines.push(`ignored (not *.jsonl): ${shown(f)}`);
  if (t.rejected > 0) lines.push('rejected lines are in the rejects table; they are data, not a failure of the stage');
  return lines.join('\n');
}
