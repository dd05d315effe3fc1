// `prereg verify FILE|DIR…`: proofs, evidence items, AER-1 timelines and single receipts outside
// a study, with the same code and reason codes as the pipeline (SPEC §9). Directories are walked in sorted order for
// *.json files; results come back in the order given.
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson, isRecord, JsonParseError, parseJson, type JsonObject, type JsonValue } from '../formats/canonical-json.ts';
import { buildVerifyContext, runVerifyTask, type VerifyContextInputs, type VerifyOutcome, type VerifyTask } from '../evidence/task/index.ts';
import { WorkerPool } from '../parallel/pool.ts';
import { EXIT, PreregError, type ReasonCode } from '../reasons.ts';

export type FileKind = 'chain' | 'receipt' | 'evidence' | 'proof';

export interface FileVerification {
  file: string;
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
    if (!st) throw new PreregError('FILE_NOT_FOUND', `${p} does not exist`, { path: p }, EXIT.usage);
    if (st.isDirectory()) {
      const names = readdirSync(p).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
      out.push(...expandPaths(names.filter((n) => n.endsWith('.json') || lstatSync(join(p, n)).isDirectory()).map((n) => join(p, n))));
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

type Prepared = { file: string; kind: FileKind; task: VerifyTask } | { file: string; failed: FileVerification };

function prepare(file: string): Prepared {
  let doc: JsonValue;
  try {
    doc = parseJson(readFileSync(file, 'utf8'));
  } catch (err) {
    if (!(err instanceof JsonParseError)) {
      return { file, failed: { file, kind: 'unknown', status: 'MALFORMED', reason_codes: ['VERIFY_FILE_UNREADABLE'], informational_codes: [], checks: {}, problems: [String((err as Error).message)] } };
    }
    return { file, failed: { file, kind: 'unknown', status: 'MALFORMED', reason_codes: [err.code], informational_codes: [], checks: {}, problems: [`line ${err.line} column ${err.column}: ${err.message}`] } };
  }
  const kind = kindOf(doc);
  const text = (v: JsonValue | undefined) => (v === undefined ? null : canonicalJson(v));
  if (kind === 'chain') return { file, kind, task: { kind: 'chain', key: file, chain: canonicalJson(doc) } };
  if (kind === 'receipt') return { file, kind, task: { kind: 'receipt', key: file, receipt: canonicalJson(doc) } };
  if (kind === 'evidence') {
    const item = doc as JsonObject;
    return {
      file,
      kind,
      task: {
        kind: 'evidence',
        key: file,
        proof: canonicalJson(item.proof!),
        request: text(item.request),
        response: text(item.response),
        disclosure: text(item.disclosure),
        transparency_log_entry: text(item.transparency_log_entry),
      },
    };
  }
  return { file, kind, task: { kind: 'evidence', key: file, proof: canonicalJson(doc), request: null, response: null, disclosure: null, transparency_log_entry: null } };
}

function toFileResult(file: string, kind: FileKind, outcome: VerifyOutcome): FileVerification {
  const r = outcome.result;
  const informational = outcome.kind === 'evidence' ? [...outcome.result.informational_codes] : [];
  return { file, kind, status: r.status, reason_codes: [...r.codes] as ReasonCode[], informational_codes: informational, checks: { ...r.checks }, problems: r.problems };
}

export async function verifyFiles(files: readonly string[], inputs: VerifyContextInputs): Promise<FileVerification[]> {
  const prepared = files.map(prepare);
  const tasks = prepared.flatMap((p) => ('task' in p ? [p] : []));
  const outcomes = new Map<string, VerifyOutcome>();
  if (tasks.length >= POOL_THRESHOLD) {
    const pool = new WorkerPool<VerifyContextInputs, VerifyTask, VerifyOutcome>({ module: WORKER, init: inputs });
    try {
      const batches = async function* () {
        for (let i = 0; i < tasks.length; i += 128) yield tasks.slice(i, i + 128);
      };
      await pool.mapOrdered(batches(), (p) => p.task, (results, items) => results.forEach((o, i) => outcomes.set(items[i]!.file, o)));
    } finally {
      await pool.close();
    }
  } else {
    const ctx = buildVerifyContext(inputs);
    for (const t of tasks) outcomes.set(t.file, await runVerifyTask(t.task, ctx));
  }
  return prepared.map((p) => ('failed' in p ? p.failed : toFileResult(p.file, p.kind, outcomes.get(p.file)!)));
}

/**
 * A file passes when it reached the best status of its kind: a proof or evidence item VERIFIED, a
 * timeline ANCHORED, a receipt CONFORMANT. A conformant receipt passes the only check a lone
 * receipt has (it is internally consistent); it is still its producer's word, never evidence.
 */
export function fileVerified(r: FileVerification): boolean {
  return r.status === 'VERIFIED' || r.status === 'ANCHORED' || r.status === 'CONFORMANT';
}
