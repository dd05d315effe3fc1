// The checks of one submission line (SPEC §5.1): pure, no I/O. A line is either accepted as a
// record (with its evidence items and receipts) or rejected with one reason code, its file, line
// number, byte offset and SHA-256. Checks, first failure wins:
//   1. the line itself (lines.ts): LINE_TOO_LONG, LINE_EMPTY, LINE_NOT_UTF8, LINE_CRLF;
//   2. JSON (canonical parser: exact number lexemes, no duplicate key, depth ≤ 64):
//      JSON_SYNTAX, JSON_DUPLICATE_KEY, JSON_NUMBER_INVALID;
//   3. a `format` other than "prereg.submission/1": SUBMISSION_FORMAT_UNKNOWN;
//   4. schemas/submission.schema.json, and every string and key being Unicode text (no lone
//      surrogate escape anywhere, evidence bodies included): SUBMISSION_SCHEMA;
//   5. item_id among the frozen items (when items are given): SUBMISSION_ITEM_UNKNOWN; the study's
//      protocol (SPEC §12.5, when given): a system the study did not register is SYSTEM_UNREGISTERED,
//      an attempt beyond protocol.attempts_per_item ATTEMPT_OUT_OF_PROTOCOL;
//   6. (system_id, item_id, attempt) not already accepted: SUBMISSION_DUPLICATE — the first
//      accepted line wins, a later one is rejected, never merged.
// Checks 1–5 depend on the line alone (checkLine, which worker threads run); check 6 on the lines
// before it (SubmissionChecker.admit, on the thread that takes the outcomes in file order).
// Evidence bodies are kept as canonical JSON (SPEC §3) of the parsed value, so the verifier
// hashes exactly the bytes Python would: number lexemes survive (1.0 stays 1.0).
import { parsePlainIfSafe, SURROGATE_ESCAPE } from '../formats/json-fast-path.ts';
import {
  canonicalJson,
  JsonNumber,
  JsonParseError,
  parseJson,
  toPlain,
  type JsonObject,
  type JsonParseErrorCode,
  type JsonValue,
  isRecord,
} from '../formats/canonical-json.ts';
import { validator, describeErrors } from '../formats/schemas.ts';
import type { LineProblem, RawLine } from './lines.ts';
import type { LineProtocol } from '../study/study.ts';

export type { LineProtocol };

export const SUBMISSION_FORMAT = 'prereg.submission/1';
/** Nesting limit of a submission line (objects and arrays), enforced by the parser. */
export const MAX_JSON_DEPTH = 64;

export type SubmissionRejectCode =
  | LineProblem
  | JsonParseErrorCode
  | 'SUBMISSION_FORMAT_UNKNOWN'
  | 'SUBMISSION_SCHEMA'
  | 'SUBMISSION_ITEM_UNKNOWN'
  | 'SYSTEM_UNREGISTERED'
  | 'ATTEMPT_OUT_OF_PROTOCOL'
  | 'SUBMISSION_CONFIG_TOO_LARGE'
  | 'SUBMISSION_DUPLICATE';

/** Where a line is: what every record and reject carries. */
export interface LineLocation {
  file: string;
  line_no: number;
  byte_offset: number;
  line_sha256: string;
}

export interface Reject extends LineLocation {
  reason_code: SubmissionRejectCode;
  /** 1-based column (in characters) of a JSON error; null otherwise. */
  column_no: number | null;
  detail: string;
}

/** One item of a line's `evidence`, as ingest stores it: canonical texts, verified later by the verify stage. */
export interface IngestedEvidence {
  /** 0-based position in the line's `evidence` array. */
  evidence_index: number;
  proof_json: string;
  /** Canonical JSON of the body; null when the key is absent (a JSON null is the text "null"). */
  request_json: string | null;
  response_json: string | null;
  disclosure_json: string | null;
  /** Canonical JSON of transparency_log_entry (checked by the verify stage); null when absent. */
  tlog_entry_json: string | null;
}

/** What check 6 needs of a line checks 1–5 accept: where it is and its (system_id, item_id, attempt). */
export interface AcceptedKey extends LineLocation {
  system_id: string;
  item_id: string;
  attempt: number;
}

export interface AcceptedRecord extends AcceptedKey {
  answer_text: string;
  refused: boolean;
  truncated: boolean;
  evidence: IngestedEvidence[];
  /** Canonical JSON of the receipts timeline (bare array or envelope); null when absent. */
  receipts_json: string | null;
  /** Canonical JSON of the line's configuration (model, temperature…); null when absent. Never splits attempts. */
  config_json: string | null;
}

export type Outcome<R extends AcceptedKey> = { accepted: R; rejected?: undefined } | { rejected: Reject; accepted?: undefined };
export type LineOutcome = Outcome<AcceptedRecord>;

/**
 * One submission line as schemas/submission.schema.json admits it (test/formats/schema-types.test.ts
 * checks that the two agree). `V` is what the members checked by later stages hold (the proof, the
 * bodies, the disclosure, the log entry, the timeline): plain values once validated here, the
 * canonical parser's values where a participant builds a line (participant/submission-line.ts).
 */
export interface SubmissionLine<V = unknown> {
  format: typeof SUBMISSION_FORMAT;
  system_id: string;
  item_id: string;
  attempt: number;
  answer: { text: string; refused: boolean; truncated: boolean };
  evidence: Array<SubmissionEvidence<V>>;
  config?: Record<string, string | number | boolean>;
  receipts?: V;
}

/** One item of a line's `evidence`. */
export interface SubmissionEvidence<V = unknown> {
  proof: V;
  request?: V;
  response?: V;
  disclosure?: V;
  transparency_log_entry?: V;
}

/** A line's `config`, as canonical JSON, in bytes at most (SPEC §13.2; the schema bounds its members). */
export const MAX_CONFIG_BYTES = 1024;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * The JSON pointer of the first string or key holding a lone surrogate, or null. Such a string is
 * not Unicode text: it has no UTF-8 form, so DuckDB, the reports and every later stage would
 * refuse it; canonical JSON can write it, but an accepted line must never stop a later stage.
 */
function loneSurrogateAt(value: JsonValue, pointer = ''): string | null {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? pointer || '/' : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = loneSurrogateAt(value[i]!, `${pointer}/${i}`);
      if (at !== null) return at;
    }
    return null;
  }
  if (value === null || typeof value !== 'object' || value instanceof JsonNumber) return null;
  for (const key of Object.keys(value)) {
    const here = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (LONE_SURROGATE.test(key)) return `${here} (the key)`;
    const at = loneSurrogateAt(value[key]!, here);
    if (at !== null) return at;
  }
  return null;
}

function shown(s: string, max = 80): string {
  return JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
}

/** What the stateless checks need: the frozen item ids (null skips that check) and whether the fast path is taken. */
export interface LineCheckConfig extends LineProtocol {
  items: ReadonlySet<string> | null;
  /** false reads every line with the canonical parser (the differential test compares the two). */
  fastPath: boolean;
}

/**
 * Checks 1–5 of one line, which need nothing but the line: a reject, or the record it would be
 * accepted as unless check 6 (SubmissionChecker.admit) finds its triple already accepted. Pure,
 * so worker threads run it (ingest/parallel-check.ts) as the main thread does.
 */
export function checkLine(line: RawLine, config: LineCheckConfig): LineOutcome {
  const at: LineLocation = { file: line.file, line_no: line.line_no, byte_offset: line.byte_offset, line_sha256: line.sha256 };
  const reject = (reason_code: SubmissionRejectCode, detail: string, column_no: number | null = null): LineOutcome => ({
    rejected: { ...at, reason_code, column_no, detail },
  });

  if (line.problem !== undefined || line.text === undefined) {
    return reject(line.problem ?? 'LINE_NOT_UTF8', line.detail ?? 'the line could not be read as text');
  }
  // Plain from the fast path when the text shows it changes nothing (formats/json-fast-path.ts),
  // else from the canonical parser, number lexemes kept.
  let value: JsonValue;
  let plain = config.fastPath ? parsePlainIfSafe(line.text, MAX_JSON_DEPTH) : undefined;
  const fast = plain !== undefined;
  if (fast) {
    value = plain as JsonValue;
  } else {
    try {
      value = parseJson(line.text, { maxDepth: MAX_JSON_DEPTH });
    } catch (err) {
      if (err instanceof JsonParseError) return reject(err.code, `${err.detail} (column ${err.column})`, err.column);
      throw err;
    }
  }
  if (isRecord(value) && value.format !== undefined && !(typeof value.format === 'string' && value.format === SUBMISSION_FORMAT)) {
    const found =
      typeof value.format === 'string'
        ? shown(value.format)
        : `a ${value.format instanceof JsonNumber ? 'number' : Array.isArray(value.format) ? 'array' : value.format === null ? 'null' : typeof value.format}`;
    return reject('SUBMISSION_FORMAT_UNKNOWN', `format is ${found}; this pipeline reads ${JSON.stringify(SUBMISSION_FORMAT)}`);
  }
  plain ??= toPlain(value);
  const validate = validator('submission');
  if (!validate(plain)) return reject('SUBMISSION_SCHEMA', describeErrors(validate.errors).join('; '));
  const sub = plain as SubmissionLine;
  // The fast path took only text without a surrogate escape, so only the canonical parser's value can hold one.
  const surrogateAt = !fast && SURROGATE_ESCAPE.test(line.text) ? loneSurrogateAt(value) : null;
  if (surrogateAt !== null) {
    return reject(
      'SUBMISSION_SCHEMA',
      `${JSON.stringify(surrogateAt).slice(1, -1)} contains a lone surrogate escape (e.g. \\ud800): it is not Unicode text`,
    );
  }
  if (config.items !== null && !config.items.has(sub.item_id)) {
    return reject('SUBMISSION_ITEM_UNKNOWN', `item_id ${shown(sub.item_id)} is not an item of the frozen corpus/items.jsonl`);
  }
  if (config.systems !== null && !config.systems.has(sub.system_id)) {
    return reject('SYSTEM_UNREGISTERED', `system_id ${shown(sub.system_id)} is not a system the frozen study.json registers`);
  }
  if (config.attemptsPerItem !== null && sub.attempt > config.attemptsPerItem) {
    return reject(
      'ATTEMPT_OUT_OF_PROTOCOL',
      `attempt ${sub.attempt} is beyond the frozen protocol's ${config.attemptsPerItem} attempt(s) per item`,
    );
  }

  // The schema guarantees the shape below; the bodies are taken from the parsed value itself.
  const doc = value as JsonObject;
  const configJson = doc.config === undefined ? null : canonicalJson(doc.config);
  if (configJson !== null && Buffer.byteLength(configJson) > MAX_CONFIG_BYTES) {
    return reject(
      'SUBMISSION_CONFIG_TOO_LARGE',
      `config is ${Buffer.byteLength(configJson)} bytes as canonical JSON; at most ${MAX_CONFIG_BYTES} (a configuration names what produced the line, it does not carry it)`,
    );
  }
  const evidence = (doc.evidence as JsonValue[]).map((item, evidence_index): IngestedEvidence => {
    const ev = item as JsonObject;
    return {
      evidence_index,
      proof_json: canonicalJson(ev.proof),
      request_json: ev.request === undefined ? null : canonicalJson(ev.request),
      response_json: ev.response === undefined ? null : canonicalJson(ev.response),
      disclosure_json: ev.disclosure === undefined ? null : canonicalJson(ev.disclosure),
      tlog_entry_json: ev.transparency_log_entry === undefined ? null : canonicalJson(ev.transparency_log_entry),
    };
  });
  return {
    accepted: {
      ...at,
      system_id: sub.system_id,
      item_id: sub.item_id,
      attempt: sub.attempt,
      answer_text: sub.answer.text,
      refused: sub.answer.refused,
      truncated: sub.answer.truncated,
      evidence,
      receipts_json: doc.receipts === undefined ? null : canonicalJson(doc.receipts),
      config_json: configJson,
    },
  };
}

/**
 * Checks lines in order. It holds the (system_id, item_id, attempt) triples accepted so far, so
 * one checker spans every file of a run, files in the order they are read.
 */
export class SubmissionChecker {
  /** Accepted triples → where first accepted, packed as file index × 2^32 + line number. */
  private readonly seen = new Map<string, number>();
  private readonly files: string[] = [];
  readonly config: LineCheckConfig;

  /**
   * items: the frozen item ids, or null to skip that check (validate outside a study). fastPath:
   * false reads every line with the canonical parser (the differential test compares the two).
   * protocol: the study's registered systems and attempts per item (lineProtocolOf), none by default.
   */
  constructor(items: ReadonlySet<string> | null, fastPath = true, protocol: LineProtocol = { systems: null, attemptsPerItem: null }) {
    this.config = { items, fastPath, ...protocol };
  }

  /** All six checks of one line, in order. */
  check(line: RawLine): LineOutcome {
    return this.admit(checkLine(line, this.config));
  }

  /**
   * Check 6 on checkLine's outcome, lines taken in file order: a record whose triple was already
   * accepted is rejected (SUBMISSION_DUPLICATE), the first line kept; any other outcome passes.
   */
  admit<R extends AcceptedKey>(outcome: Outcome<R>): Outcome<R> {
    const r = outcome.accepted;
    if (r === undefined) return outcome;
    const key = `${r.system_id}\u0000${r.item_id}\u0000${r.attempt}`;
    const first = this.seen.get(key);
    if (first !== undefined) {
      const where = `${this.files[Math.floor(first / 2 ** 32)]}:${first % 2 ** 32}`;
      return {
        rejected: {
          file: r.file,
          line_no: r.line_no,
          byte_offset: r.byte_offset,
          line_sha256: r.line_sha256,
          reason_code: 'SUBMISSION_DUPLICATE',
          column_no: null,
          detail: `(system_id, item_id, attempt) = (${r.system_id}, ${r.item_id}, ${r.attempt}) was already accepted at ${where}; the first line is kept`,
        },
      };
    }
    if (this.files[this.files.length - 1] !== r.file) this.files.push(r.file);
    this.seen.set(key, (this.files.length - 1) * 2 ** 32 + r.line_no);
    return outcome;
  }
}
