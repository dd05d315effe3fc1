// `prereg verify FILE|DIR…`: proofs, evidence items, AER-1 timelines and single receipts outside
// a study, with the same code and reason codes as the pipeline (SPEC §9). Directories are walked in sorted order for
// *.json files; results come back in the order given.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, isRecord, JsonParseError, parseJson, type JsonObject, type JsonValue } from '../formats/canonical-json.ts';
import { buildVerifyContext, runVerifyTask, type VerifyContextInputs, type VerifyOutcome, type VerifyTask } from '../evidence/verify-task.ts';
import { WorkerPool } from '../parallel/pool.ts';
import { EXIT, PreregError, type ReasonCode } from '../reasons.ts';

export type FileKind = 'chain' | 'receipt' | 'evidence' | 'proof';

export interface FileVerification {
  file: string;
  /** For a submission file (*.jsonl): the line, and which part of it (`evidence[0]`, `receipts`). */
  line?: number;
  part?: string;
  kind: FileKind | 'unknown';
  status: string;
  reason_codes: ReasonCode[];
  /** The codes of reason_codes that do not change the status (proofs only; SPEC §6.1 informational codes). */
  informational_codes: ReasonCode[];
  checks: Record<string, string>;
  problems: string[];
}

const WORKER = new URL('../parallel/verify-worker.ts', import.meta.url);
/** Below this many files, starting worker threads costs more than it saves. */
const POOL_THRESHOLD = 64;

export function expandPaths(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) throw new PreregError('FILE_NOT_FOUND', `${p} does not exist`, EXIT.blocked, { path: p });
    if (st.isDirectory()) {
      const names = readdirSync(p).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      out.push(...expandPaths(names.filter((n) => n.endsWith('.json') || n.endsWith('.jsonl') || lstatSync(join(p, n)).isDirectory()).map((n) => join(p, n))));
    } else {
      out.push(p);
    }
  }
  return out;
}


/**
 * SPEC §6.1: a JSON array or an object with "format": "aer-1" is an AER-1 timeline ('chain'), an
 * object with receipt_schema_version a single receipt, one with a top-level proof an evidence
 * item, anything else a bare proof.
 */
export function kindOf(doc: JsonValue): FileKind {
  if (Array.isArray(doc)) return 'chain';
  if (!isRecord(doc)) return 'proof';
  if (doc.format === 'aer-1') return 'chain';
  if ('receipt_schema_version' in doc) return 'receipt';
  return 'proof' in doc ? 'evidence' : 'proof';
}

type Where = { file: string; line?: number; part?: string };
type Prepared = (Where & { key: string; kind: FileKind; task: VerifyTask }) | { key: string; failed: FileVerification };

const failure = (where: Where, codes: ReasonCode[], problems: string[]): FileVerification => ({
  ...where, kind: 'unknown', status: 'MALFORMED', reason_codes: codes, informational_codes: [], checks: {}, problems,
});

function parsed(where: Where, text: string): { doc: JsonValue } | { failed: FileVerification } {
  try {
    return { doc: parseJson(text) };
  } catch (err) {
    if (!(err instanceof JsonParseError)) return { failed: failure(where, ['VERIFY_FILE_UNREADABLE'], [String((err as Error).message)]) };
    return { failed: failure(where, [err.code], [`line ${err.line} column ${err.column}: ${err.message}`]) };
  }
}

/** The task that verifies one document (a proof, an evidence item, a timeline, a receipt). */
function taskOf(where: Where, key: string, doc: JsonValue): Prepared {
  const kind = kindOf(doc);
  const text = (v: JsonValue | undefined) => (v === undefined ? null : canonicalJson(v));
  if (kind === 'chain') return { ...where, key, kind, task: { kind: 'chain', key, chain: canonicalJson(doc) } };
  if (kind === 'receipt') return { ...where, key, kind, task: { kind: 'receipt', key, receipt: canonicalJson(doc) } };
  if (kind === 'evidence') {
    const item = doc as JsonObject;
    return {
      ...where,
      key,
      kind,
      task: {
        kind: 'evidence',
        key,
        proof: canonicalJson(item.proof!),
        request: text(item.request),
        response: text(item.response),
        disclosure: text(item.disclosure),
        transparency_log_entry: text(item.transparency_log_entry),
      },
    };
  }
  return { ...where, key, kind, task: { kind: 'evidence', key, proof: canonicalJson(doc), request: null, response: null, disclosure: null, transparency_log_entry: null } };
}

/**
 * A submission file (docs/submission.md): every evidence item and the receipts of every line, each
 * a result of its own with its line. The line's other fields are ingest's and validate's concern.
 */
function prepareSubmissions(file: string, text: string): Prepared[] {
  const out: Prepared[] = [];
  text.split('\n').forEach((lineText, i) => {
    if (lineText === '') return;
    const line = i + 1;
    const result = parsed({ file, line }, lineText);
    if ('failed' in result) return void out.push({ key: `${file}:${line}`, failed: result.failed });
    const doc = result.doc;
    if (!isRecord(doc)) return void out.push({ key: `${file}:${line}`, failed: failure({ file, line }, ['SUBMISSION_SCHEMA'], ['the line is not a JSON object']) });
    const evidence = Array.isArray(doc.evidence) ? doc.evidence : [];
    evidence.forEach((item, j) => out.push(taskOf({ file, line, part: `evidence[${j}]` }, `${file}:${line}:evidence[${j}]`, item)));
    if (doc.receipts !== undefined) out.push(taskOf({ file, line, part: 'receipts' }, `${file}:${line}:receipts`, doc.receipts));
  });
  return out;
}

function prepare(file: string): Prepared[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    return [{ key: file, failed: failure({ file }, ['VERIFY_FILE_UNREADABLE'], [String((err as Error).message)]) }];
  }
  if (file.endsWith('.jsonl')) return prepareSubmissions(file, text);
  const result = parsed({ file }, text);
  return ['failed' in result ? { key: file, failed: result.failed } : taskOf({ file }, file, result.doc)];
}

function toFileResult(where: Where, kind: FileKind, outcome: VerifyOutcome): FileVerification {
  const r = outcome.result;
  const informational = outcome.kind === 'evidence' ? [...outcome.result.informational_codes] : [];
  return { ...where, kind, status: r.status, reason_codes: [...r.codes] as ReasonCode[], informational_codes: informational, checks: { ...r.checks }, problems: r.problems };
}

export async function verifyFiles(files: readonly string[], inputs: VerifyContextInputs): Promise<FileVerification[]> {
  const prepared = files.flatMap(prepare);
  const tasks = prepared.flatMap((p) => ('task' in p ? [p] : []));
  const outcomes = new Map<string, VerifyOutcome>();
  if (tasks.length >= POOL_THRESHOLD) {
    const pool = new WorkerPool<VerifyContextInputs, VerifyTask, VerifyOutcome>({ module: WORKER, init: inputs });
    try {
      const batches = async function* () {
        for (let i = 0; i < tasks.length; i += 128) yield tasks.slice(i, i + 128);
      };
      await pool.mapOrdered(batches(), (p) => p.task, (results, items) => results.forEach((o, i) => outcomes.set(items[i]!.key, o)));
    } finally {
      await pool.close();
    }
  } else {
    const ctx = buildVerifyContext(inputs);
    for (const t of tasks) outcomes.set(t.key, await runVerifyTask(t.task, ctx));
  }
  return prepared.map((p) => {
    if ('failed' in p) return p.failed;
    const where: Where = { file: p.file, ...(p.line !== undefined ? { line: p.line } : {}), ...(p.part !== undefined ? { part: p.part } : {}) };
    return toFileResult(where, p.kind, outcomes.get(p.key)!);
  });
}

/**
 * A file passes when it reached the best status of its kind: a proof or evidence item VERIFIED, a
 * timeline ANCHORED, a receipt CONFORMANT. A conformant receipt passes the only check a lone
 * receipt has (it is internally consistent); it is still its producer's word, never evidence.
 */
export function fileVerified(r: FileVerification): boolean {
  return r.status === 'VERIFIED' || r.status === 'ANCHORED' || r.status === 'CONFORMANT';
}
