// One file of `prereg verify FILE|DIR…` (SPEC §9): read, recognised (§6.1), parsed once with the
// canonical parser and verified by the same code as the pipeline's tasks (evidence/task/).
// Runs on the one JavaScript thread of verify/file-verify.ts, which reads, parses and checks the
// files and hands only the signatures' arithmetic to other threads (evidence/signature-check.ts).
import { DEFAULT_MAX_DEPTH, isRecord, JsonParseError, parseJson, type JsonObject, type JsonValue } from '../formats/canonical-json.ts';
import { parsePlainIfSafe } from '../formats/json-fast-path.ts';
import { verifyParsedDocument, type ParsedDocument, type VerifyContext, type VerifyOutcome } from '../evidence/task/index.ts';
import type { ReasonCode } from '../reasons.ts';
import { readRegularFileCapped } from '../io/regular-file.ts';

export type FileKind = 'chain' | 'receipt' | 'evidence' | 'proof';

export interface FileVerification {
  file: string;
  /** For a submission file (*.jsonl): the line, and which part of it (`evidence[0]`, `receipts`). */
  line?: number;
  part?: string;
  kind: FileKind | 'unknown';
  status: string;
  reason_codes: ReasonCode[];
  /** The codes of reason_codes that do not change the status (SPEC §6.1 for proofs; §12.3 COMMITMENT_FOREIGN, COMMITMENT_SIGNATURE_INVALID for timelines). */
  informational_codes: ReasonCode[];
  checks: Record<string, string>;
  /** Proofs only: the seller the proof binds (preimage below 3.0, an opened 3.x commitment) and how; null when it binds none (SPEC §12.4). */
  seller?: { value: string; source: 'preimage' | 'opening' } | null;
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

type Where = { file: string; line?: number; part?: string };
type Prepared = (Where & { kind: FileKind; doc: ParsedDocument }) | { failed: FileVerification };

const failure = (where: Where, codes: ReasonCode[], problems: string[]): FileVerification => ({
  ...where,
  kind: 'unknown',
  status: 'MALFORMED',
  reason_codes: codes,
  informational_codes: [],
  checks: {},
  problems,
});

/**
 * The document, read by JSON.parse when its text shows the canonical parser would read the same
 * values (formats/json-fast-path.ts, as ingest reads submission lines): native code, nothing to
 * warm up. Only a proof or an evidence item of proof and bodies keeps the plain value (numbers as
 * doubles, equal to the lexemes the text shows: its canonical JSON is the same); a timeline, a
 * receipt, a disclosure or a log entry is read by the canonical parser, whose lexemes their checks
 * read. Every refusal, with its code and column, is the canonical parser's.
 */
function parsed(where: Where, text: () => string, fastPath: boolean): { doc: JsonValue; plain: boolean } | { failed: FileVerification } {
  try {
    const t = text();
    const plain = fastPath ? (parsePlainIfSafe(t, DEFAULT_MAX_DEPTH) as JsonValue | undefined) : undefined;
    if (plain !== undefined && plainKeeps(plain)) return { doc: plain, plain: true };
    return { doc: parseJson(t), plain: false };
  } catch (err) {
    if (!(err instanceof JsonParseError)) return { failed: failure(where, ['VERIFY_FILE_UNREADABLE'], [String((err as Error).message)]) };
    return { failed: failure(where, [err.code], [`line ${err.line} column ${err.column}: ${err.message}`]) };
  }
}

/** A proof object, or an evidence item with nothing but a proof object and bodies. */
function plainKeeps(doc: JsonValue): boolean {
  const kind = kindOf(doc);
  if (kind === 'proof') return isRecord(doc);
  const item = doc as JsonObject;
  return kind === 'evidence' && isRecord(item.proof) && item.disclosure === undefined && item.transparency_log_entry === undefined;
}

/**
 * What verifies one document: a proof, an evidence item, a timeline or a receipt. (Built by
 * assignment, not by spreading: in code not yet optimised, a spread costs as much as a check.)
 */
function taskOf(where: Where, doc: JsonValue, plain = false, owner?: string): Prepared {
  const key = where.line !== undefined ? `${where.file}:${where.line}:${where.part}` : where.file;
  const kind = kindOf(doc);
  const prepared = (parsedDoc: ParsedDocument): Prepared => {
    const p = { file: where.file } as Where & { kind: FileKind; doc: ParsedDocument };
    if (where.line !== undefined) {
      p.line = where.line;
      p.part = where.part!;
    }
    p.kind = kind;
    p.doc = parsedDoc;
    return p;
  };
  if (kind === 'chain')
    return prepared(owner === undefined ? { kind: 'chain', key, chain: doc } : { kind: 'chain', key, chain: doc, owner });
  if (kind === 'receipt') return prepared({ kind: 'receipt', key, receipt: doc });
  const evidence: ParsedDocument & { kind: 'evidence' } = {
    kind: 'evidence',
    key,
    proof: kind === 'proof' ? doc : (doc as JsonObject).proof!,
  };
  if (plain) evidence.plain = true;
  if (kind === 'evidence') {
    const item = doc as JsonObject;
    if (item.request !== undefined) evidence.request = item.request;
    if (item.response !== undefined) evidence.response = item.response;
    if (item.disclosure !== undefined) evidence.disclosure = item.disclosure;
    if (item.transparency_log_entry !== undefined) evidence.transparency_log_entry = item.transparency_log_entry;
  }
  return prepared(evidence);
}

/**
 * A submission file (docs/submission.md): every evidence item and the receipts of every line, a
 * result each with its line; the line's other fields are `validate`'s concern.
 */
function prepareSubmissions(file: string, text: string, fastPath: boolean): Prepared[] {
  const out: Prepared[] = [];
  text.split('\n').forEach((lineText, i) => {
    if (lineText === '') return;
    const line = i + 1;
    const result = parsed({ file, line }, () => lineText, fastPath);
    if ('failed' in result) {
      out.push(result);
      return;
    }
    const doc = result.doc;
    if (!isRecord(doc)) {
      out.push({ failed: failure({ file, line }, ['SUBMISSION_SCHEMA'], ['the line is not a JSON object']) });
      return;
    }
    // A line read by JSON.parse keeps its plain value only for items of a proof and bodies.
    const reread =
      result.plain && (!Array.isArray(doc.evidence) || !doc.evidence.every(plainKeeps) || doc.receipts !== undefined)
        ? parseJson(lineText)
        : doc;
    const items = (reread as JsonObject).evidence;
    (Array.isArray(items) ? items : []).forEach((item, j) => {
      out.push(taskOf({ file, line, part: `evidence[${j}]` }, item, reread === doc && result.plain));
    });
    // The line's system owns its timeline, as in the study: only a commitment binding it can cancel.
    const { receipts, system_id: system } = reread as JsonObject;
    if (receipts !== undefined)
      out.push(taskOf({ file, line, part: 'receipts' }, receipts, false, typeof system === 'string' ? system : undefined));
  });
  return out;
}

/**
 * The largest file `prereg verify FILE` reads (docs/aer1.md, "prereg verify FILE… and exit codes"):
 * a file is read and parsed whole and each of its documents or evidence items becomes a result, so
 * a pathological file costs hundreds of times its size (a 4 MiB array of `{}` peaked at 1.9 GB, a
 * 16 MiB one at 4.4 GB and crashed; just under 2 MiB, 1.0–1.3 GB). A larger file is refused,
 * checked on the open file before a byte is read. A proof, receipt or timeline is a few KiB.
 */
export const MAX_VERIFY_FILE_BYTES = 2 * 1024 * 1024;

/** The file's text, read whole if it is at most MAX_VERIFY_FILE_BYTES. */
function readWhole(file: string): { text: string } | { failed: FileVerification } {
  let bytes: Buffer | null;
  try {
    bytes = readRegularFileCapped(file, MAX_VERIFY_FILE_BYTES);
  } catch (err) {
    return { failed: failure({ file }, ['VERIFY_FILE_UNREADABLE'], [String((err as Error).message)]) };
  }
  if (bytes === null)
    return {
      failed: failure(
        { file },
        ['VERIFY_FILE_TOO_LARGE'],
        [`the file is larger than ${MAX_VERIFY_FILE_BYTES} bytes (2 MiB), the limit on one file of prereg verify FILE; it was not read`],
      ),
    };
  return { text: bytes.toString('utf8') };
}

function prepare(file: string, fastPath: boolean): Prepared[] {
  const read = readWhole(file);
  if ('failed' in read) return [read];
  if (file.endsWith('.jsonl')) return prepareSubmissions(file, read.text, fastPath);
  const result = parsed({ file }, () => read.text, fastPath);
  return ['failed' in result ? result : taskOf({ file }, result.doc, result.plain)];
}

/** The file's result line, its fields in the order of FileVerification (assigned in that order: no spreads). */
function toFileResult(where: Where, kind: FileKind, outcome: VerifyOutcome): FileVerification {
  const r = outcome.result;
  const out = { file: where.file } as FileVerification;
  if (where.line !== undefined) {
    out.line = where.line;
    out.part = where.part!;
  }
  out.kind = kind;
  out.status = r.status;
  out.reason_codes = r.reason_codes.slice() as ReasonCode[];
  out.informational_codes = outcome.kind === 'evidence' || outcome.kind === 'chain' ? outcome.result.informational_codes.slice() : [];
  out.checks = { ...r.checks };
  if (outcome.kind === 'evidence') {
    const { seller, seller_source: source } = outcome.result;
    out.seller = seller !== null && source !== null ? { value: seller, source } : null;
  }
  out.problems = r.problems;
  return out;
}

/**
 * Reads, recognises and verifies one file: one result, or for a submission file (*.jsonl) one per
 * evidence item and receipts of each line. What cannot be read or parsed is MALFORMED with its code.
 * `fastPath: false` reads every document with the canonical parser (the differential tests).
 */
export async function verifyFile(file: string, ctx: VerifyContext, options: { fastPath?: boolean } = {}): Promise<FileVerification[]> {
  const results: FileVerification[] = [];
  for (const p of prepare(file, options.fastPath ?? true)) {
    if ('failed' in p) results.push(p.failed);
    else results.push(toFileResult(p, p.kind, await verifyParsedDocument(p.doc, ctx)));
  }
  return results;
}

/**
 * A file passes when it reached the best status of its kind: a proof or evidence item VERIFIED, a
 * timeline ANCHORED, a receipt CONFORMANT. A conformant receipt passes the only check a lone
 * receipt has (it is internally consistent); it is still its producer's word, never evidence.
 */
export function fileVerified(r: FileVerification): boolean {
  return r.status === 'VERIFIED' || r.status === 'ANCHORED' || r.status === 'CONFORMANT';
}
