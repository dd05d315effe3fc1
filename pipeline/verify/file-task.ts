// One file of `prereg verify FILE|DIR…` (SPEC §9): read, recognised (§6.1), parsed with the
// canonical parser and verified by the same task as the pipeline's (evidence/task/).
// Runs in a worker thread (verify/files-worker.ts) or in-process for a few files: either
// way the file is read where it is verified, off the main thread when there are many.
import { canonicalJson, isRecord, JsonParseError, parseJson, type JsonObject, type JsonValue } from '../formats/canonical-json.ts';
import { runVerifyTask, type VerifyContext, type VerifyOutcome, type VerifyTask } from '../evidence/task/index.ts';
import type { ReasonCode } from '../reasons.ts';
import { readRegularFile } from '../io/regular-file.ts';

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
    doc = parseJson(readRegularFile(file).toString('utf8'));
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

/** Reads, recognises and verifies one file; a file that cannot be read or parsed is MALFORMED with its code. */
export async function verifyFile(file: string, ctx: VerifyContext): Promise<FileVerification> {
  const p = prepare(file);
  return 'failed' in p ? p.failed : toFileResult(p.file, p.kind, await runVerifyTask(p.task, ctx));
}

/**
 * A file passes when it reached the best status of its kind: a proof or evidence item VERIFIED, a
 * timeline ANCHORED, a receipt CONFORMANT. A conformant receipt passes the only check a lone
 * receipt has (it is internally consistent); it is still its producer's word, never evidence.
 */
export function fileVerified(r: FileVerification): boolean {
  return r.status === 'VERIFIED' || r.status === 'ANCHORED' || r.status === 'CONFORMANT';
}
