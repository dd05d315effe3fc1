// Canonical JSON's parser (SPEC §3): a strict RFC 8259 parser that keeps each number's lexeme,
// refuses duplicate keys, NaN/Infinity, doubles that overflow and integers longer than Python's
// 4,300-digit limit. Iterative (an explicit stack), so deep input meets the depth limit, never the
// JS stack. The writer, and the module the rest of the code imports, is canonical-json.ts.

/** A JSON number as written in the source text; the writer decides its canonical form. */
export class JsonNumber {
  constructor(readonly lexeme: string) {}
}

export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;
/** Created with Object.create(null), so "__proto__" is an ordinary key. */
export interface JsonObject {
  [key: string]: JsonValue;
}

export type JsonParseErrorCode = 'JSON_SYNTAX' | 'JSON_DUPLICATE_KEY' | 'JSON_NUMBER_INVALID';

/** A refusal of the parser; line and column are 1-based (column in code points, as Python). */
export class JsonParseError extends Error {
  readonly line: number;
  readonly column: number;
  constructor(
    readonly code: JsonParseErrorCode,
    readonly detail: string,
    /** UTF-16 code-unit index into the text. */
    readonly offset: number,
    text: string,
  ) {
    const { line, column } = lineAndColumn(text, offset);
    super(`${detail} at line ${line}, column ${column}`);
    this.name = 'JsonParseError';
    this.line = line;
    this.column = column;
  }
}

export const DEFAULT_MAX_DEPTH = 512;
/** Python's sys.int_info.default_max_str_digits: longer integer literals raise in json.loads. */
export const MAX_INTEGER_DIGITS = 4300;

// ------------------------------------------------------------------------------------------
// Parser

export function parseJson(text: string, limits?: { maxDepth?: number }): JsonValue {
  const maxDepth = limits?.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (!Number.isInteger(maxDepth) || maxDepth < 0) {
    throw new RangeError(`maxDepth must be a non-negative integer, got ${String(maxDepth)}`);
  }
  return new Parser(text, maxDepth).document();
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  // As Python's JSONDecodeError: lines end at "\n" only; the column counts characters.
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  let column = 1;
  for (let i = lineStart; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    const isPairTail = c >= 0xdc00 && c <= 0xdfff && i > lineStart && isHighSurrogate(text.charCodeAt(i - 1));
    if (!isPairTail) column++;
  }
  return { line, column };
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function hexValue(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

const SIMPLE_ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: '\\',
  0x2f: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};

class Parser {
  private pos = 0;
  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
  ) {}

  private fail(code: JsonParseErrorCode, detail: string, offset = this.pos): never {
    throw new JsonParseError(code, detail, offset, this.text);
  }

  private found(): string {
    if (this.pos >= this.text.length) return 'the end of the input';
    return JSON.stringify(String.fromCodePoint(this.text.codePointAt(this.pos)!));
  }

  private skipWhitespace(): void {
    const t = this.text;
    let p = this.pos;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) p++;
      else break;
    }
    this.pos = p;
  }

  document(): JsonValue {
    const t = this.text;
    const stack: (JsonValue[] | JsonObject)[] = [];
    const keys: string[] = []; // the pending key of each object frame ('' for arrays)
    let value: JsonValue;
    this.skipWhitespace();
    for (;;) {
      // A value starts at this.pos (whitespace skipped).
      const c = t.charCodeAt(this.pos);
      if (c === 0x7b || c === 0x5b) {
        if (stack.length >= this.maxDepth) {
          this.fail('JSON_SYNTAX', `nesting deeper than the limit of ${this.maxDepth} levels`);
        }
        this.pos++;
        this.skipWhitespace();
        if (c === 0x7b) {
          const obj = Object.create(null) as JsonObject;
          if (t.charCodeAt(this.pos) === 0x7d) {
            this.pos++;
            value = obj;
          } else {
            stack.push(obj);
            keys.push(this.key(obj));
            continue;
          }
        } else {
          const arr: JsonValue[] = [];
          if (t.charCodeAt(this.pos) === 0x5d) {
            this.pos++;
            value = arr;
          } else {
            stack.push(arr);
            keys.push('');
            continue;
          }
        }
      } else if (c === 0x22) value = this.string();
      else if (c === 0x2d || isDigit(c)) value = this.number();
      else if (c === 0x74 && t.startsWith('true', this.pos)) {
        value = true;
        this.pos += 4;
      } else if (c === 0x66 && t.startsWith('false', this.pos)) {
        value = false;
        this.pos += 5;
      } else if (c === 0x6e && t.startsWith('null', this.pos)) {
        value = null;
        this.pos += 4;
      } else if (t.startsWith('NaN', this.pos) || t.startsWith('Infinity', this.pos)) {
        this.fail('JSON_NUMBER_INVALID', 'NaN and Infinity are not JSON numbers');
      } else this.fail('JSON_SYNTAX', `expected a JSON value, found ${this.found()}`);

      // Attach the finished value to its container; close containers as far as they end here.
      for (;;) {
        const top = stack.length - 1;
        this.skipWhitespace();
        if (top < 0) {
          if (this.pos < t.length) this.fail('JSON_SYNTAX', `unexpected ${this.found()} after the JSON value`);
          return value;
        }
        const frame = stack[top]!;
        const d = t.charCodeAt(this.pos);
        // One path for both containers: they differ only in how a value joins and which byte closes.
        const inArray = Array.isArray(frame);
        if (Array.isArray(frame)) frame.push(value);
        else frame[keys[top]!] = value;
        const close = inArray ? 0x5d : 0x7d; // ']' or '}'
        if (d === close) {
          this.pos++;
          stack.pop();
          keys.pop();
          value = frame;
          continue;
        }
        const container = inArray ? 'an array' : 'an object';
        if (d !== 0x2c) this.fail('JSON_SYNTAX', `expected ',' or '${inArray ? ']' : '}'}' in ${container}, found ${this.found()}`);
        const comma = this.pos++;
        this.skipWhitespace();
        if (t.charCodeAt(this.pos) === close) this.fail('JSON_SYNTAX', `trailing comma in ${container}`, comma);
        if (!Array.isArray(frame)) keys[top] = this.key(frame);
        break;
      }
    }
  }

  /** Reads `"key" :` and the whitespace after it; refuses a key the object already has. */
  private key(obj: JsonObject): string {
    const at = this.pos;
    if (this.text.charCodeAt(at) !== 0x22) {
      this.fail('JSON_SYNTAX', `expected a string key in double quotes, found ${this.found()}`);
    }
    const k = this.string();
    if (obj[k] !== undefined) {
      const shown = k.length > 60 ? `${JSON.stringify(k.slice(0, 60))}…` : JSON.stringify(k);
      this.fail('JSON_DUPLICATE_KEY', `duplicate key ${shown} in an object`, at);
    }
    this.skipWhitespace();
    if (this.text.charCodeAt(this.pos) !== 0x3a) {
      this.fail('JSON_SYNTAX', `expected ':' after an object key, found ${this.found()}`);
    }
    this.pos++;
    this.skipWhitespace();
    return k;
  }

  private string(): string {
    const t = this.text;
    const start = this.pos + 1;
    let p = start;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === 0x22) {
        this.pos = p + 1;
        return t.slice(start, p);
      }
      if (c === 0x5c || !(c >= 0x20)) break; // backslash, control character or end (NaN)
      p++;
    }
    let out = t.slice(start, p);
    let run = p;
    for (;;) {
      const c = t.charCodeAt(p);
      if (c === 0x22) {
        this.pos = p + 1;
        return out + t.slice(run, p);
      }
      if (c === 0x5c) {
        out += t.slice(run, p);
        const e = t.charCodeAt(p + 1);
        const simple = SIMPLE_ESCAPES[e];
        if (simple !== undefined) {
          out += simple;
          p += 2;
        } else if (e === 0x75) {
          // \uXXXX; a lone surrogate is kept, as Python does, and written back escaped.
          const code =
            (hexValue(t.charCodeAt(p + 2)) << 12) |
            (hexValue(t.charCodeAt(p + 3)) << 8) |
            (hexValue(t.charCodeAt(p + 4)) << 4) |
            hexValue(t.charCodeAt(p + 5));
          if (code < 0) this.fail('JSON_SYNTAX', 'invalid \\uXXXX escape: four hex digits expected', p);
          out += String.fromCharCode(code);
          p += 6;
        } else {
          this.fail('JSON_SYNTAX', 'invalid escape in a string', p);
        }
        run = p;
      } else if (c >= 0x20) {
        p++;
      } else if (p >= t.length) {
        this.fail('JSON_SYNTAX', 'unterminated string', start - 1);
      } else {
        const hex = c.toString(16).padStart(4, '0').toUpperCase();
        this.fail('JSON_SYNTAX', `raw control character U+${hex} in a string (write it as an escape)`, p);
      }
    }
  }

  private number(): JsonNumber {
    const t = this.text;
    const start = this.pos;
    let p = start;
    if (t.charCodeAt(p) === 0x2d) p++;
    const c = t.charCodeAt(p);
    if (c === 0x30) {
      p++;
      if (isDigit(t.charCodeAt(p))) this.fail('JSON_SYNTAX', 'leading zeros are not allowed in a number', start);
    } else if (isDigit(c)) {
      do p++;
      while (isDigit(t.charCodeAt(p)));
    } else if (t.startsWith('Infinity', p)) {
      this.fail('JSON_NUMBER_INVALID', 'NaN and Infinity are not JSON numbers', start);
    } else {
      this.fail('JSON_SYNTAX', "expected a digit after '-'", p);
    }
    const intEnd = p;
    let integer = true;
    if (t.charCodeAt(p) === 0x2e) {
      integer = false;
      p++;
      if (!isDigit(t.charCodeAt(p))) this.fail('JSON_SYNTAX', 'expected a digit after the decimal point', p);
      do p++;
      while (isDigit(t.charCodeAt(p)));
    }
    const e = t.charCodeAt(p);
    if (e === 0x65 || e === 0x45) {
      integer = false;
      p++;
      const s = t.charCodeAt(p);
      if (s === 0x2b || s === 0x2d) p++;
      if (!isDigit(t.charCodeAt(p))) this.fail('JSON_SYNTAX', 'expected a digit in the exponent', p);
      do p++;
      while (isDigit(t.charCodeAt(p)));
    }
    const lexeme = t.slice(start, p);
    if (integer) {
      const digits = intEnd - start - (t.charCodeAt(start) === 0x2d ? 1 : 0);
      if (digits > MAX_INTEGER_DIGITS) {
        this.fail('JSON_NUMBER_INVALID', `integer literal of ${digits} digits exceeds the limit of ${MAX_INTEGER_DIGITS} digits`, start);
      }
    } else if (!Number.isFinite(Number(lexeme))) {
      this.fail('JSON_NUMBER_INVALID', `number ${lexeme.length > 40 ? lexeme.slice(0, 40) + '…' : lexeme} overflows a double`, start);
    }
    this.pos = p;
    return new JsonNumber(lexeme);
  }
}
