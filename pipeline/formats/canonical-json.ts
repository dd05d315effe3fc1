// Canonical JSON (SPEC §3, ArkForge proof-spec §3): the function every hash goes through.
//
// - parseJson (json-parse.ts, re-exported here): strict RFC 8259 parser that keeps each number's
//   lexeme, refuses duplicate keys, NaN/Infinity, doubles that overflow and integers longer than
//   Python's 4,300-digit limit; iterative, so deep input meets the depth limit, never the JS stack.
// - canonicalJson: byte-identical to Python 3's
//   json.dumps(x, sort_keys=True, separators=(",", ":")) (ensure_ascii=True) for the value
//   Python's json.loads reads from the same text.

import { JsonNumber, MAX_INTEGER_DIGITS, type JsonValue } from './json-parse.ts';

export {
  DEFAULT_MAX_DEPTH,
  JsonNumber,
  JsonParseError,
  MAX_INTEGER_DIGITS,
  parseJson,
  type JsonObject,
  type JsonParseErrorCode,
  type JsonValue,
} from './json-parse.ts';

// ------------------------------------------------------------------------------------------
// Writer

/**
 * A value already written in canonical form (e.g. read back from the store, where ingest wrote it
 * with canonicalJson): the writer embeds the text as is, so hashing it costs no re-parse.
 * Only wrap text that canonicalJson produced.
 */
export class CanonicalText {
  constructor(readonly text: string) {}
}

/**
 * A JSON object, parsed here (JsonObject) or plain JS: never null, an array, a JsonNumber or a
 * CanonicalText. The one test of "is an object" every reader of parsed input uses.
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof JsonNumber) &&
    !(value instanceof CanonicalText)
  );
}

/** An object's own member (a plain object may inherit others); undefined for a non-object. */
export function member(o: unknown, key: string): unknown {
  return isRecord(o) && Object.hasOwn(o, key) ? o[key] : undefined;
}

/** Python json.dumps(value, sort_keys=True, separators=(",", ":")), ensure_ascii=True. */
export function canonicalJson(value: unknown): string {
  try {
    return write(value, 0);
  } catch (e) {
    // A cyclic or absurdly deep plain value exhausts the stack before MAX_WRITE_DEPTH.
    if (e instanceof RangeError && e.message.includes('call stack'))
      throw new TypeError(`value nested too deeply to write as canonical JSON (cyclic?)`);
    throw e;
  }
}

/**
 * Stands, in a value given to canonicalFrame, for an array its caller writes element by element.
 * Its text holds a raw NUL, which canonical JSON never holds (it writes one as \u0000).
 */
export const STREAMED_ARRAY = new CanonicalText('[\u0000]');

/**
 * canonicalJson(value) cut at STREAMED_ARRAY's one NUL: the text up to and including that array's
 * "[", and the text from its "]". The caller writes each element's canonicalJson between them,
 * ","-separated, and gets canonicalJson of the value holding those elements — without ever holding
 * them all (a per-record table of results.json).
 */
export function canonicalFrame(value: unknown): [before: string, after: string] {
  const parts = canonicalJson(value).split('\u0000');
  if (parts.length !== 2) throw new TypeError(`canonicalFrame: the value holds STREAMED_ARRAY ${parts.length - 1} times, not once`);
  return [parts[0]!, parts[1]!];
}

/** The canonical form as bytes (pure ASCII, so UTF-8 and ASCII agree). */
export function canonicalJsonBytes(value: unknown): Buffer {
  return Buffer.from(canonicalJson(value), 'latin1');
}

/** Deeper than this the value is assumed cyclic; Python itself stops near 1,000. */
const MAX_WRITE_DEPTH = 10_000;

function write(v: unknown, depth: number): string {
  switch (typeof v) {
    case 'string':
      return quote(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      if (Number.isSafeInteger(v)) return String(v); // -0 prints as "0"
      return pythonFloatRepr(v);
    case 'bigint': {
      const s = v.toString();
      if (s.length - (v < 0n ? 1 : 0) > MAX_INTEGER_DIGITS) {
        throw new TypeError(`integer of more than ${MAX_INTEGER_DIGITS} digits cannot be written as canonical JSON`);
      }
      return s;
    }
    case 'object': {
      if (v === null) return 'null';
      if (v instanceof JsonNumber) return canonicalNumber(v.lexeme);
      if (v instanceof CanonicalText) return v.text;
      if (depth >= MAX_WRITE_DEPTH) throw new TypeError(`value nested deeper than ${MAX_WRITE_DEPTH} levels (cyclic?)`);
      if (Array.isArray(v)) {
        const n = v.length;
        if (n === 0) return '[]';
        let s = '[' + write(v[0], depth + 1);
        for (let i = 1; i < n; i++) s += ',' + write(v[i], depth + 1);
        return s + ']';
      }
      const proto = Object.getPrototypeOf(v) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        const name = (v as { constructor?: { name?: string } }).constructor?.name ?? 'object';
        throw new TypeError(`cannot write a ${name} as canonical JSON (plain objects only)`);
      }
      return writeObject(v as Record<string, unknown>, depth);
    }
    default:
      throw new TypeError(`cannot write a value of type ${typeof v} as canonical JSON`);
  }
}

const SURROGATE = /[\ud800-\udfff]/;

/**
 * Sorts in place by code point (Python's sorted() on str, the UTF-8 byte order): JavaScript's
 * UTF-16 code-unit order is the same unless a string holds a surrogate, so only then the slower sort.
 */
export function sortByCodePoint(strings: string[]): string[] {
  strings.sort();
  for (const k of strings) if (SURROGATE.test(k)) return strings.sort(compareCodePoints);
  return strings;
}

function writeObject(o: Record<string, unknown>, depth: number): string {
  const keys = sortByCodePoint(Object.keys(o));
  let s = '{';
  for (const k of keys) {
    const x = o[k];
    if (x === undefined) continue; // as JSON.stringify
    if (s.length > 1) s += ',';
    s += quote(k) + ':' + write(x, depth + 1);
  }
  return s + '}';
}

/** Python's str ordering: by code point; a lone surrogate is its own code point. */
function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; ) {
    const x = a.codePointAt(i)!;
    const y = b.codePointAt(i)!;
    if (x !== y) return x - y;
    i += x > 0xffff ? 2 : 1;
  }
  return a.length - b.length;
}

/** Anything but printable ASCII other than `"` and `\`. */
const NEEDS_ESCAPE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;

/** Python's ESCAPE_ASCII for code points below 0x80 (undefined: written as is). */
const ASCII_ESCAPES: (string | undefined)[] = Array.from({ length: 0x80 }, (_, c) => {
  const short: Record<number, string> = { 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0c: '\\f', 0x0d: '\\r', 0x22: '\\"', 0x5c: '\\\\' };
  if (short[c] !== undefined) return short[c];
  if (c < 0x20 || c === 0x7f) return '\\u' + c.toString(16).padStart(4, '0');
  return undefined;
});

function quote(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return '"' + s + '"';
  let out = '"';
  let run = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    let esc: string | undefined;
    if (c < 0x80) {
      esc = ASCII_ESCAPES[c];
      if (esc === undefined) continue;
    } else {
      // Every UTF-16 unit on its own: astral characters become their surrogate pair, as Python.
      esc = c < 0x100 ? '\\u00' + c.toString(16) : c < 0x1000 ? '\\u0' + c.toString(16) : '\\u' + c.toString(16);
    }
    if (i > run) out += s.slice(run, i);
    out += esc;
    run = i + 1;
  }
  if (run < n) out += s.slice(run);
  return out + '"';
}

const NUMBER_LEXEME = /^-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

/** What Python's json.dumps writes for the value json.loads reads from a number lexeme. */
function canonicalNumber(lexeme: string): string {
  const m = NUMBER_LEXEME.exec(lexeme);
  if (m === null) throw new TypeError(`JsonNumber ${JSON.stringify(lexeme)} is not a JSON number`);
  if (m[1] === undefined && m[2] === undefined) {
    // An int: JSON forbids leading zeros and '+', so the lexeme is its decimal form, bar -0.
    if (lexeme.length - (lexeme.charCodeAt(0) === 0x2d ? 1 : 0) > MAX_INTEGER_DIGITS) {
      throw new TypeError(`integer of more than ${MAX_INTEGER_DIGITS} digits cannot be written as canonical JSON`);
    }
    return lexeme === '-0' ? '0' : lexeme;
  }
  return pythonFloatRepr(Number(lexeme));
}

/**
 * Python's float repr: the shortest digits that round-trip (as JavaScript's), in fixed notation
 * with at least one fractional digit when 1e-4 <= |x| < 1e16, otherwise d[.ddd]e±XX with an
 * exponent of at least two digits.
 */
export function pythonFloatRepr(x: number): string {
  if (!Number.isFinite(x)) throw new TypeError(`${x} cannot be written as canonical JSON`);
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const a = x < 0 ? -x : x;
  if (a >= 1e-4 && a < 1e16) {
    // JavaScript also uses fixed notation in this range, with the same digits.
    const s = String(x);
    return Number.isInteger(x) ? s + '.0' : s;
  }
  const e = x.toExponential(); // shortest round-trip digits, e.g. "1.5e+300", "5e-324"
  const i = e.indexOf('e');
  const exp = e.slice(i + 2);
  return e.slice(0, i + 2) + (exp.length < 2 ? '0' + exp : exp);
}

// ------------------------------------------------------------------------------------------
// Convenience

/**
 * JsonNumber → number (or bigint for an integer beyond Number.MAX_SAFE_INTEGER); objects become
 * ordinary objects with "__proto__" kept as an own property, as JSON.parse does. Lossy for
 * hashing: 1.0 becomes 1, so hash the JsonValue, not this.
 */
export function toPlain(value: JsonValue): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof JsonNumber) return numberToPlain(value.lexeme);
  if (Array.isArray(value)) return value.map(toPlain);
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const x = toPlain(value[k]!);
    if (k === '__proto__') Object.defineProperty(out, k, { value: x, enumerable: true, writable: true, configurable: true });
    else out[k] = x;
  }
  return out;
}

function numberToPlain(lexeme: string): number | bigint {
  const n = Number(lexeme);
  if (/[.eE]/.test(lexeme)) return n;
  if (Number.isSafeInteger(n)) return n === 0 ? 0 : n; // "-0" is the int 0
  return BigInt(lexeme);
}
