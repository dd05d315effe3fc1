// Differential test against CPython itself: a seeded corpus of tricky JSON documents, written as
// text one per line, is read by `json.loads` and written by
// `json.dumps(sort_keys=True, separators=(",", ":"))` in ONE python3 run; our
// canonicalJson(parseJson(line)) must equal Python's line byte for byte.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, parseJson } from '../../pipeline/formats/canonical-json.ts';

const DOCUMENTS = 2500;
const SEED = 0x5eed_c0de;

/** mulberry32: small, fast, deterministic. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const JSON_NUMBER = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/;

const TRICKY_NUMBERS = [
  '0',
  '-0',
  '0.0',
  '-0.0',
  '0e0',
  '-0E-0',
  '1',
  '-1',
  '1.0',
  '1.10',
  '1E5',
  '1e5',
  '1.0e1',
  '1e-07',
  '1E-7',
  '1e16',
  '1e+16',
  '1e15',
  '1E+15',
  '9999999999999998',
  '9999999999999998.0',
  '1e-4',
  '0.0001',
  '0.00001',
  '1e-5',
  '123456789012345678901234567890',
  '-123456789012345678901234567890',
  '1.5e-10',
  '2.5E+20',
  '5e-324',
  '4.9e-324',
  '2.4e-324',
  '1.7976931348623157e308',
  '-1.7976931348623157E+308',
  '2.2250738585072014e-308',
  '2.225073858507201e-308',
  '9007199254740993',
  '9007199254740993.0',
  '-9007199254740993',
  '0.1',
  '0.2',
  '0.30000000000000004',
  '1e22',
  '1e21',
  '1e23',
  '100',
  '4.35',
  '0.1e1',
  '1e-400',
  '-1e-400',
  '12345678901234567890.123',
  '9.999999999999999e15',
  '999999999999999.9',
  '1.00000000000000011102230246251565404236316680908203125',
  '0.000123456789',
  '123e-2',
  '1E0',
  '1e00',
  '18446744073709551616',
  '-18446744073709551617',
  '3.141592653589793238462643383279',
];

const TRICKY_KEYS = [
  '',
  'a',
  'A',
  'b',
  'aa',
  'ab',
  'B',
  '_',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  '0',
  '1',
  '10',
  '2',
  '01',
  '-1',
  '1.5',
  'é',
  'e\u0301',
  '\u00ff',
  '\u0100',
  '\u2028',
  '\ue000',
  '\ufb01',
  '\ufeff',
  '\ufffd',
  '\uffff',
  '😀',
  '\u{10000}',
  '\u{10ffff}',
  '\u{1f600}x',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  'a\ud800',
  'a\udc00',
  'a😀',
  'a\uffff',
  'a\ue000',
  ' ',
  '\u007f',
  '\u0000',
  '\n',
  '\t',
  'key"q',
  'back\\slash',
  'sl/ash',
  '\u0080',
  '日本語',
];

const SPECIAL_CHARS = [
  '"',
  '\\',
  '/',
  '\u007f',
  '\u0000',
  '\u0001',
  '\b',
  '\f',
  '\n',
  '\r',
  '\t',
  '\u000b',
  '\u001f',
  'é',
  '€',
  '日',
  '\u0080',
  '\u00ff',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\ue000',
  '\u0301',
  '😀',
  '\u{10000}',
  '\u{10ffff}',
  '\u{1d11e}',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
];

class Generator {
  private readonly rand: () => number;
  constructor(seed: number) {
    this.rand = prng(seed);
  }
  int(n: number): number {
    return Math.floor(this.rand() * n);
  }
  chance(p: number): boolean {
    return this.rand() < p;
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  digits(n: number, leadingNonZero: boolean): string {
    let s = leadingNonZero ? String(1 + this.int(9)) : String(this.int(10));
    for (let i = 1; i < n; i++) s += String(this.int(10));
    return s;
  }
  ws(): string {
    // No newline: the corpus is one document per line.
    return this.chance(0.7) ? '' : this.pick([' ', '  ', '\t', ' \t ']);
  }

  /** A finite double from random bits. */
  randomDouble(): number {
    const view = new DataView(new ArrayBuffer(8));
    for (;;) {
      view.setUint32(0, Math.floor(this.rand() * 2 ** 32));
      view.setUint32(4, Math.floor(this.rand() * 2 ** 32));
      const x = view.getFloat64(0);
      if (Number.isFinite(x)) return x;
    }
  }

  numberLexeme(): string {
    for (;;) {
      const lex = this.numberCandidate();
      // Only documents both sides accept: no overflow to ±Infinity (we refuse, Python reads inf).
      if (JSON_NUMBER.test(lex) && Number.isFinite(Number(lex))) return lex;
    }
  }

  private numberCandidate(): string {
    const sign = this.chance(0.3) ? '-' : '';
    switch (this.int(8)) {
      case 0:
      case 1:
        return this.pick(TRICKY_NUMBERS);
      case 2: // integers of every size, up to Python's 4,300-digit limit now and then
        return (
          sign +
          (this.chance(0.02) ? this.digits(4300, true) : this.chance(0.5) ? String(this.int(1000)) : this.digits(1 + this.int(60), true))
        );
      case 3: {
        // a double from random bits, formatted in one of several ways
        const x = this.randomDouble();
        const k = 1 + this.int(20);
        const forms = [String(x), x.toExponential(), x.toExponential(k), x.toPrecision(k), String(x).toUpperCase()];
        if (Math.abs(x) < 1e21) forms.push(x.toFixed(this.int(21)));
        return this.pick(forms);
      }
      case 4: {
        // a "nice" decimal: random digits with a random point
        const intPart = this.chance(0.3) ? '0' : this.digits(1 + this.int(12), true);
        return sign + intPart + '.' + this.digits(1 + this.int(20), false);
      }
      case 5: {
        // mantissa and exponent written out, every exponent form
        const mant = this.digits(1 + this.int(25), true);
        const m = mant.length > 1 && this.chance(0.6) ? mant[0] + '.' + mant.slice(1) : mant;
        const e = this.pick(['e', 'E']) + this.pick(['', '+', '-']) + (this.chance(0.2) ? '0' : '') + String(this.int(330));
        return sign + m + e;
      }
      case 6: {
        // near the boundaries of Python's fixed notation (1e-4 and 1e16)
        const x = (this.chance(0.5) ? 1e-4 : 1e16) * (0.5 + this.rand());
        return sign + this.pick([String(x), x.toExponential(), x.toPrecision(1 + this.int(17))]);
      }
      default: {
        const x = this.int(2000) / this.pick([1, 2, 4, 10, 100, 1000, 3]);
        return sign + this.pick([String(x), x.toFixed(1 + this.int(5)), x.toExponential()]);
      }
    }
  }

  /** A decoded string value; may hold lone surrogates. */
  stringValue(maxLen = 12): string {
    const n = this.int(maxLen + 1);
    let s = '';
    for (let i = 0; i < n; i++) {
      const r = this.int(10);
      if (r < 5)
        s += String.fromCharCode(0x20 + this.int(0x5f)); // printable ASCII
      else if (r < 8) s += this.pick(SPECIAL_CHARS);
      else if (r < 9)
        s += String.fromCharCode(0x80 + this.int(0xd800 - 0x80)); // BMP below surrogates
      else s += String.fromCodePoint(0x10000 + this.int(0x100000)); // astral
    }
    return s;
  }

  /** Writes a decoded string as JSON text, choosing among equivalent spellings at random. */
  encodeString(s: string): string {
    const hex = (c: number) => {
      const h = c.toString(16).padStart(4, '0');
      return '\\u' + (this.chance(0.5) ? h : h.toUpperCase());
    };
    let out = '"';
    for (let i = 0; i < s.length; ) {
      const cp = s.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      i += cp > 0xffff ? 2 : 1;
      const short: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
      if (cp >= 0xd800 && cp <= 0xdfff)
        out += hex(cp); // a lone surrogate: only as an escape
      else if (ch === '"' || ch === '\\') out += this.chance(0.8) ? short[ch] : hex(cp);
      else if (cp < 0x20) out += short[ch] !== undefined && this.chance(0.7) ? short[ch] : hex(cp);
      else if (ch === '/') out += this.chance(0.5) ? '\\/' : '/';
      else if (cp > 0xffff) out += this.chance(0.7) ? ch : hex(0xd800 + ((cp - 0x10000) >> 10)) + hex(0xdc00 + ((cp - 0x10000) & 0x3ff));
      else out += this.chance(0.1) ? hex(cp) : ch; // raw (DEL included) or escaped
    }
    return out + '"';
  }

  key(): string {
    return this.chance(0.6) ? this.pick(TRICKY_KEYS) : this.stringValue(6);
  }

  value(depth: number): string {
    const r = this.int(depth >= 6 ? 6 : 10);
    switch (r) {
      case 0:
        return this.pick(['true', 'false', 'null']);
      case 1:
      case 2:
      case 3:
        return this.numberLexeme();
      case 4:
      case 5:
        return this.encodeString(this.stringValue());
      case 6:
      case 7:
        return this.array(depth + 1);
      default:
        return this.object(depth + 1);
    }
  }

  array(depth: number, minItems = 0): string {
    const n = minItems + this.int(7);
    const items: string[] = [];
    for (let i = 0; i < n; i++) items.push(this.ws() + this.value(depth) + this.ws());
    return '[' + (n === 0 ? this.ws() : items.join(',')) + ']';
  }

  object(depth: number, minItems = 0): string {
    const n = minItems + this.int(8);
    const seen = new Set<string>(); // decoded keys: no duplicates, whatever their spelling
    const members: string[] = [];
    for (let i = 0; i < n; i++) {
      const k = this.key();
      if (seen.has(k)) continue;
      seen.add(k);
      members.push(this.ws() + this.encodeString(k) + this.ws() + ':' + this.ws() + this.value(depth) + this.ws());
    }
    return '{' + (members.length === 0 ? this.ws() : members.join(',')) + '}';
  }

  document(): string {
    const top = this.int(10);
    const body = top < 5 ? this.object(0, 2) : top < 9 ? this.array(0, 2) : this.value(6);
    return this.ws() + body + this.ws();
  }
}

function corpus(): string[] {
  const g = new Generator(SEED);
  const docs: string[] = [
    // Fixed documents first: every tricky number, every tricky key in one object.
    '[' + TRICKY_NUMBERS.join(',') + ']',
    '{' + TRICKY_KEYS.map((k, i) => g.encodeString(k) + ':' + i).join(',') + '}',
    '[' + SPECIAL_CHARS.map((c) => g.encodeString(c)).join(',') + ']',
    '[' + g.digits(4300, true) + ',-' + g.digits(4300, true) + ']',
  ];
  while (docs.length < DOCUMENTS) docs.push(g.document());
  return docs;
}

const PYTHON = String.raw`
import json, sys
with open(sys.argv[1], encoding="utf-8", newline="") as f:
    docs = f.read().split("\n")
out = []
for d in docs:
    try:
        out.append(json.dumps(json.loads(d), sort_keys=True, separators=(",", ":")))
    except Exception as e:
        out.append("PYTHON-ERROR " + type(e).__name__ + ": " + str(e)[:200])
sys.stdout.write("\n".join(out))
`;

describe('agreement with CPython json.dumps(sort_keys=True, separators=(",", ":"))', () => {
  let dir: string;
  let docs: string[];
  let expected: string[];

  beforeAll(() => {
    docs = corpus();
    dir = mkdtempSync(path.join(tmpdir(), 'canonical-json-'));
    const file = path.join(dir, 'corpus.jsonl');
    writeFileSync(file, docs.join('\n'), 'utf8');
    const stdout = execFileSync('python3', ['-c', PYTHON, file], { encoding: 'utf8', maxBuffer: 1 << 28 });
    expected = stdout.split('\n');
  });

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`generates ${DOCUMENTS} distinct documents, all of them read by Python`, () => {
    expect(docs.length).toBe(DOCUMENTS);
    expect(new Set(docs).size).toBeGreaterThan(DOCUMENTS * 0.98);
    expect(expected.length).toBe(DOCUMENTS);
    expect(expected.filter((line) => line.startsWith('PYTHON-ERROR')).slice(0, 5)).toEqual([]);
  });

  it('covers the tricky cases', () => {
    const all = docs.join('\n');
    for (const needle of [
      '\\ud800',
      '\\uDC00',
      '😀',
      '\u007f',
      '\\u0000',
      '1E5',
      '-0',
      '1e-07',
      '1e16',
      '123456789012345678901234567890',
    ]) {
      expect(all).toContain(needle);
    }
    expect(docs.some((d) => /\d{4300}/.test(d))).toBe(true);
  });

  it('writes every document byte for byte as Python does', () => {
    const differences: { line: number; document: string; ours: string; python: string }[] = [];
    docs.forEach((doc, i) => {
      let ours: string;
      try {
        ours = canonicalJson(parseJson(doc));
      } catch (e) {
        ours = `OUR-ERROR ${(e as Error).message}`;
      }
      const python = expected[i]!;
      if (ours !== python)
        differences.push({ line: i + 1, document: doc.slice(0, 300), ours: ours.slice(0, 300), python: python.slice(0, 300) });
    });
    expect(differences.length, JSON.stringify(differences.slice(0, 5), null, 2)).toBe(0);
  });

  it('writes plain JavaScript doubles as Python writes floats', () => {
    // Non-integral doubles (and integral ones of 1e21 and more, which String() writes in
    // exponent form) from random bits, as JSON.parse would hand them over.
    const g = new Generator(SEED + 1);
    const xs: number[] = [];
    while (xs.length < 2000) {
      const x = g.randomDouble();
      if (!Number.isInteger(x) || Math.abs(x) >= 1e21) xs.push(x);
    }
    const text = '[' + xs.map(String).join(',') + ']';
    const file = path.join(dir, 'doubles.json');
    writeFileSync(file, text, 'utf8');
    const python = execFileSync('python3', ['-c', PYTHON, file], { encoding: 'utf8', maxBuffer: 1 << 26 });
    expect(canonicalJson(xs)).toBe(python);
    expect(canonicalJson(JSON.parse(text))).toBe(python);
  });
});
