// Small readers shared by the AER-1 verifiers: member shapes as draft-zambo-aer1-09's reference
// runner reads them (Python's json types: an int is not a float, a bool is not an int).
// Values are the canonical parser's JsonValue (numbers as JsonNumber lexemes, objects without a
// prototype) or plain JS; a plain number cannot tell 5 from 5.0, so callers that must refuse
// 5.0 pass the parsed JsonValue.
import { JsonNumber } from '../../formats/canonical-json.ts';
import { BASE64_STD } from '../../formats/checkpoint.ts';

export const ZERO_DIGEST = '0'.repeat(64);
const INTEGER_LEXEME = /^-?(?:0|[1-9][0-9]*)$/;
/** The three provenance classes of draft §5, with spaces; NAME in upper case. */
const PROVENANCE_CLASS = /^(?:EXECUTED BY [A-Z0-9][A-Z0-9 ._-]*|OBSERVED VIA GATEWAY|LOGGED BY AGENT)$/;

export function isNonEmptyString(v: unknown): v is string {
  return typeof v === 'string' && v !== '';
}

export { isHex64 } from '../../formats/hash.ts';

export function isProvenanceClass(v: unknown): v is string {
  return typeof v === 'string' && PROVENANCE_CLASS.test(v);
}

/** The bytes a strict base64 text encodes; null for anything else (unpadded, URL-safe, spaces). */
export function strictBase64(v: unknown): Buffer | null {
  // Node's decoder is lenient; the pattern is what makes it strict. Non-zero padding bits are
  // accepted, as Python's b64decode(validate=True) accepts them.
  return typeof v === 'string' && BASE64_STD.test(v) ? Buffer.from(v, 'base64') : null;
}

/**
 * A JSON integer as a bigint; null for anything else. With `integralFloat`, a float whose value
 * is an integer (`2.0`, `2e0`) counts as that integer, as the reference reads `seq`; without, only
 * an integer literal does (`entry_count`: `5.0` is not an integer). Booleans, strings and null
 * are never integers.
 */
export function integerOf(v: unknown, integralFloat: boolean): bigint | null {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : null;
  if (!(v instanceof JsonNumber)) return null;
  if (INTEGER_LEXEME.test(v.lexeme)) return BigInt(v.lexeme);
  if (!integralFloat) return null;
  const x = Number(v.lexeme); // Python's float(): the parser already refused overflow
  return Number.isInteger(x) ? BigInt(x) : null;
}

export function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof JsonNumber) return v.lexeme;
  if (typeof v === 'object') return 'an object';
  if (typeof v === 'string') return JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v);
  return String(v);
}
