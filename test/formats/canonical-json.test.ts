import { describe, expect, it } from 'vitest';
import {
  JsonNumber,
  JsonParseError,
  canonicalJson,
  canonicalJsonBytes,
  parseJson,
  toPlain,
  type JsonParseErrorCode,
} from '../../pipeline/formats/canonical-json.ts';
import { sha256Hex } from '../../pipeline/formats/hash.ts';

// Every expected string below is written by hand from what CPython 3's
// json.dumps(json.loads(text), sort_keys=True, separators=(",", ":")) prints.
const r = String.raw;

function canon(text: string): string {
  return canonicalJson(parseJson(text));
}

function parseError(text: string, limits?: { maxDepth?: number }): JsonParseError {
  try {
    parseJson(text, limits);
  } catch (e) {
    if (e instanceof JsonParseError) return e;
    throw e;
  }
  throw new Error(`parsed without error: ${JSON.stringify(text.slice(0, 80))}`);
}

describe('numbers: the value Python reads, written as Python writes it', () => {
  const rows: [string, string][] = [
    ['0', '0'],
    ['-0', '0'], // the int 0
    ['0.0', '0.0'],
    ['-0.0', '-0.0'], // the float keeps its sign
    ['0e0', '0.0'],
    ['-0e-0', '-0.0'],
    ['1', '1'],
    ['100', '100'],
    ['-42', '-42'],
    ['1.0', '1.0'], // JavaScript would print 1
    ['1.10', '1.1'],
    ['0.1', '0.1'],
    ['4.35', '4.35'],
    ['1E5', '100000.0'],
    ['1.0e1', '10.0'],
    ['1e-07', '1e-07'],
    ['1E-7', '1e-07'],
    ['0.0001', '0.0001'], // fixed notation down to 1e-4 …
    ['0.00001', '1e-05'], // … exponent form below
    ['1e-4', '0.0001'],
    ['1.5e-10', '1.5e-10'],
    ['1e15', '1000000000000000.0'], // fixed notation below 1e16 …
    ['1e16', '1e+16'], // … exponent form from 1e16
    ['1e+16', '1e+16'],
    ['2.5E+20', '2.5e+20'],
    ['1e22', '1e+22'],
    ['1.5e300', '1.5e+300'],
    ['5e-324', '5e-324'], // the smallest subnormal
    ['1e-400', '0.0'], // underflows to zero: Python accepts it
    ['1.7976931348623157e308', '1.7976931348623157e+308'], // the largest double
    ['-1.7976931348623157E+308', '-1.7976931348623157e+308'],
    ['2.2250738585072014e-308', '2.2250738585072014e-308'],
    ['0.30000000000000004', '0.30000000000000004'],
    ['9007199254740993', '9007199254740993'], // an int stays exact beyond 2^53
    ['9007199254740993.0', '9007199254740992.0'], // a float does not
    ['123456789012345678901234567890', '123456789012345678901234567890'],
    ['-123456789012345678901234567890', '-123456789012345678901234567890'],
    ['1' + '0'.repeat(4299), '1' + '0'.repeat(4299)], // 4,300 digits: Python's limit, allowed
    ['-' + '9'.repeat(4300), '-' + '9'.repeat(4300)], // the sign is not a digit
  ];
  it.each(rows)('%s → %s', (text, expected) => {
    expect(canon(text)).toBe(expected);
    expect(canon(`[${text}]`)).toBe(`[${expected}]`);
  });
});

describe('strings: ensure_ascii and Python escapes', () => {
  const rows: [string, string, string][] = [
    ['plain ASCII', '"hello world"', '"hello world"'],
    ['Latin-1', '"café"', r`"caf\u00e9"`],
    ['BMP beyond Latin-1', '"€ 日本語"', r`"\u20ac \u65e5\u672c\u8a9e"`],
    ['astral as surrogate pair', '"😀"', r`"\ud83d\ude00"`],
    ['escaped pair stays a pair', r`"\uD83D\uDE00"`, r`"\ud83d\ude00"`],
    ['lone high surrogate escape', r`"\ud800"`, r`"\ud800"`],
    ['lone low surrogate escape', r`"x\uDC00y"`, r`"x\udc00y"`],
    ['hex digits written lowercase', r`"\u00E9\u00C9"`, r`"\u00e9\u00c9"`],
    ['DEL (0x7f) raw is escaped', '"a\u007fb"', r`"a\u007fb"`],
    ['short escapes', r`"\b\f\n\r\t"`, r`"\b\f\n\r\t"`],
    ['other controls as \\u00XX', r`"\u0000\u0001\u001f\u000B"`, r`"\u0000\u0001\u001f\u000b"`],
    ['quote and backslash', r`"a\"b\\c"`, r`"a\"b\\c"`],
    ['solidus is not escaped', r`"a\/b/c"`, '"a/b/c"'],
    ['U+2028 and U+FFFF', '"\u2028\uffff"', r`"\u2028\uffff"`],
    ['U+0080 boundary', r`"\u0080~"`, r`"\u0080~"`],
  ];
  it.each(rows)('%s', (_name, text, expected) => {
    expect(canon(text)).toBe(expected);
  });
});

describe('objects and arrays', () => {
  const rows: [string, string, string][] = [
    ['keys sorted, no whitespace', '{"b": 1, "a": 2}', '{"a":2,"b":1}'],
    ['empty containers', '{"x": [], "a": {}}', '{"a":{},"x":[]}'],
    ['nested objects sorted too', '{"z": {"b": [1, 2], "a": null}}', '{"z":{"a":null,"b":[1,2]}}'],
    ['uppercase before lowercase, empty key first', '{"b":1,"a":2,"B":3,"":4}', '{"":4,"B":3,"a":2,"b":1}'],
    ['integer-like keys sort as strings', '{"10":1,"9":2,"1":3}', '{"1":3,"10":1,"9":2}'],
    ['__proto__ is an ordinary key', '{"__proto__": {"polluted": true}}', '{"__proto__":{"polluted":true}}'],
    ['literals', '[true, false, null]', '[true,false,null]'],
    ['surrounding whitespace', ' \t\r\n{ "a" :\n[ 1 ,\t2 ] }\r\n ', '{"a":[1,2]}'],
    // Code-point order: U+FFFF < U+1F600, though UTF-16 units say 0xD83D < 0xFFFF.
    ['astral key after U+FFFF', '{"😀": 2, "\uffff": 1}', r`{"\uffff":1,"\ud83d\ude00":2}`],
    ['astral key after U+FFFF (other input order)', '{"\uffff": 1, "😀": 2}', r`{"\uffff":1,"\ud83d\ude00":2}`],
    ['private use vs astral', r`{"\ud83d\ude00": 2, "\ue000": 1, "\ud800": 3}`, r`{"\ud800":3,"\ue000":1,"\ud83d\ude00":2}`],
    ['lone low surrogate before astral', r`{"😀": 1, "\udc00": 2}`, r`{"\udc00":2,"\ud83d\ude00":1}`],
    ['common prefix then astral', '{"a😀": 1, "a\uffff": 2, "a": 3}', r`{"a":3,"a\uffff":2,"a\ud83d\ude00":1}`],
    ['key with escapes', r`{"k\"q": 1, "k\\b": 2}`, r`{"k\"q":1,"k\\b":2}`],
  ];
  it.each(rows)('%s', (_name, text, expected) => {
    expect(canon(text)).toBe(expected);
  });

  it('is idempotent', () => {
    const text = r`{"b":[1.0,1E5,-0,"é😀\ud800"],"a":{"\uffff":0.1,"😀":1e16}}`;
    const once = canon(text);
    expect(canon(once)).toBe(once);
  });
});

describe('parser refusals: code, line and column', () => {
  const rows: [string, string, JsonParseErrorCode, number, number][] = [
    // name, text, code, line, column (1-based; column in characters)
    ['duplicate key', '{"a":1,"a":2}', 'JSON_DUPLICATE_KEY', 1, 8],
    ['duplicate key on a later line', '{\n  "a": 1,\n  "b": {"c": 1, "c": 2}\n}', 'JSON_DUPLICATE_KEY', 3, 17],
    ['duplicate key spelled with an escape', r`{"A":1,"\u0041":2}`, 'JSON_DUPLICATE_KEY', 1, 8],
    ['duplicate astral key, column in characters', '{"😀":1,"😀":2}', 'JSON_DUPLICATE_KEY', 1, 8],
    ['duplicate __proto__', '{"__proto__":1,"__proto__":2}', 'JSON_DUPLICATE_KEY', 1, 16],
    ['NaN', '[NaN]', 'JSON_NUMBER_INVALID', 1, 2],
    ['Infinity', '{"x": Infinity}', 'JSON_NUMBER_INVALID', 1, 7],
    ['-Infinity', '-Infinity', 'JSON_NUMBER_INVALID', 1, 1],
    ['float overflowing a double', '[1e400]', 'JSON_NUMBER_INVALID', 1, 2],
    ['negative overflow', '-1.8e308', 'JSON_NUMBER_INVALID', 1, 1],
    ['integer of 4,301 digits', '1' + '0'.repeat(4300), 'JSON_NUMBER_INVALID', 1, 1],
    ['trailing comma in an array', '[1,2,]', 'JSON_SYNTAX', 1, 5],
    ['trailing comma in an object', '{"a":1,}', 'JSON_SYNTAX', 1, 7],
    ['leading zero', '[01]', 'JSON_SYNTAX', 1, 2],
    ['negative leading zero', '-012', 'JSON_SYNTAX', 1, 1],
    ['raw tab in a string', '"a\tb"', 'JSON_SYNTAX', 1, 3],
    ['raw newline in a string', '["a\nb"]', 'JSON_SYNTAX', 1, 4],
    ['raw NUL in a string', '"\u0000"', 'JSON_SYNTAX', 1, 2],
    ['line comment', '[1] // no', 'JSON_SYNTAX', 1, 5],
    ['block comment', '/* no */ 1', 'JSON_SYNTAX', 1, 1],
    ['single quotes', "'a'", 'JSON_SYNTAX', 1, 1],
    ['unquoted key', '{a:1}', 'JSON_SYNTAX', 1, 2],
    ['missing colon', '{"a" 1}', 'JSON_SYNTAX', 1, 6],
    ['missing comma', '[1 2]', 'JSON_SYNTAX', 1, 4],
    ['digit needed after the point', '1.', 'JSON_SYNTAX', 1, 3],
    ['no leading point', '.5', 'JSON_SYNTAX', 1, 1],
    ['no plus sign', '+1', 'JSON_SYNTAX', 1, 1],
    ['empty exponent', '1e+', 'JSON_SYNTAX', 1, 4],
    ['hex number', '0x10', 'JSON_SYNTAX', 1, 2],
    ['invalid escape', r`"\x41"`, 'JSON_SYNTAX', 1, 2],
    ['short \\u escape', r`"\u12"`, 'JSON_SYNTAX', 1, 2],
    ['unterminated string', '{"a":"abc', 'JSON_SYNTAX', 1, 6],
    ['unclosed array', '[1', 'JSON_SYNTAX', 1, 3],
    ['empty text', '', 'JSON_SYNTAX', 1, 1],
    ['whitespace only', ' \n ', 'JSON_SYNTAX', 2, 2],
    ['two values', '{}{}', 'JSON_SYNTAX', 1, 3],
    ['byte order mark', '\ufeff{}', 'JSON_SYNTAX', 1, 1],
    ['capitalised literal', 'True', 'JSON_SYNTAX', 1, 1],
  ];
  it.each(rows)('%s', (_name, text, code, line, column) => {
    const e = parseError(text);
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('JsonParseError');
    expect({ code: e.code, line: e.line, column: e.column }).toEqual({ code, line, column });
    expect(e.message).toContain(`line ${line}, column ${column}`);
  });

  it('gives the UTF-16 offset next to the line and column', () => {
    const e = parseError('{"😀":1,"😀":2}');
    expect(e.offset).toBe(8); // column 8 counts 😀 as one character; its UTF-16 column would be 9
    expect(e.column).toBe(8);
    expect(e.message).toMatch(/duplicate key "😀"/);
  });

  it('accepts the neighbours of each refusal', () => {
    expect(canon('{"a":1,"b":2}')).toBe('{"a":1,"b":2}');
    expect(canon('[1,2]')).toBe('[1,2]');
    expect(canon('"a\\tb"')).toBe('"a\\tb"');
    expect(canon('[0, -0, 0.5, -0.5]')).toBe('[0,0,0.5,-0.5]');
    expect(canon('1.7976931348623157e308')).toBe('1.7976931348623157e+308');
  });
});

describe('nesting depth', () => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('accepts 512 levels by default', () => {
    expect(canon(nested(512))).toBe(nested(512));
  });

  it('refuses 513 levels with JSON_SYNTAX at the 513th bracket', () => {
    const e = parseError(nested(513));
    expect(e.code).toBe('JSON_SYNTAX');
    expect(e.column).toBe(513);
    expect(e.message).toMatch(/nesting deeper than the limit of 512 levels/);
  });

  it.each([10_000, 1_000_000])('refuses %i levels without exhausting the JS stack', (n) => {
    expect(parseError('['.repeat(n)).code).toBe('JSON_SYNTAX');
    expect(parseError('{"a":'.repeat(n)).code).toBe('JSON_SYNTAX');
  });

  it('takes a smaller or larger limit', () => {
    expect(parseError('{"a":[[1]]}', { maxDepth: 2 }).column).toBe(7);
    expect(canon('{"a":[1]}')).toBe('{"a":[1]}');
    expect(canonicalJson(parseJson(nested(2000), { maxDepth: 2000 }))).toBe(nested(2000));
  });
});

describe('parseJson result', () => {
  it('keeps number lexemes and makes prototype-free objects', () => {
    const v = parseJson('{"n": 1.10, "__proto__": [2E5]}') as Record<string, unknown>;
    expect(Object.getPrototypeOf(v)).toBe(null);
    expect(v.n).toBeInstanceOf(JsonNumber);
    expect((v.n as JsonNumber).lexeme).toBe('1.10');
    // biome-ignore lint/suspicious/noProto: the parser must keep a member named __proto__ as data
    expect(((v.__proto__ as unknown[])[0] as JsonNumber).lexeme).toBe('2E5');
  });

  it('keeps lone surrogates', () => {
    expect(parseJson(r`"\ud800x"`)).toBe('\ud800x');
  });
});

describe('canonicalJson of plain JavaScript values', () => {
  const rows: [string, unknown, string][] = [
    ['object', { b: 1, a: [true, false, null, 'x'] }, '{"a":[true,false,null,"x"],"b":1}'],
    ['prototype-free object', Object.assign(Object.create(null) as object, { b: 2, a: 1 }), '{"a":1,"b":2}'],
    ['undefined members are omitted', { a: undefined, b: 2 }, '{"b":2}'],
    ['safe integer', 42, '42'],
    ['negative zero is the integer 0', -0, '0'],
    ['non-integral double', 1.5, '1.5'],
    ['double sum', 0.1 + 0.2, '0.30000000000000004'],
    ['unsafe integral double', 1e20, '1e+20'],
    ['small double', 1e-7, '1e-07'],
    ['bigint', 2n ** 70n, '1180591620717411303424'],
    ['negative bigint', -(10n ** 30n), '-1000000000000000000000000000000'],
    ['string with non-ASCII', 'é\u007f', r`"\u00e9\u007f"`],
    ['JsonNumber inside plain values', { x: new JsonNumber('1.0'), y: new JsonNumber('-0') }, '{"x":1.0,"y":0}'],
    ['astral key order', { '😀': 1, '\uffff': 2 }, r`{"\uffff":2,"\ud83d\ude00":1}`],
  ];
  it.each(rows)('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  class Thing {
    a = 1;
  }
  const refused: [string, unknown][] = [
    ['undefined', undefined],
    ['undefined in an array', [1, undefined]],
    // biome-ignore lint/suspicious/noSparseArray: a hole is the input under test
    ['array hole', [1, , 3]],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['-Infinity', [-Infinity]],
    ['function', () => 1],
    ['symbol', Symbol('s')],
    ['Date', new Date(0)],
    ['Map', new Map()],
    ['Buffer', Buffer.from('a')],
    ['class instance', new Thing()],
    ['cyclic object', cyclic],
    ['JsonNumber not a JSON number', new JsonNumber('01')],
    ['JsonNumber NaN', new JsonNumber('NaN')],
    ['JsonNumber overflowing', new JsonNumber('1e400')],
    ['bigint over 4,300 digits', 10n ** 4300n],
  ];
  it.each(refused)('refuses %s with TypeError', (_name, value) => {
    expect(() => canonicalJson(value)).toThrow(TypeError);
  });
});

describe('bytes and hashes', () => {
  it('canonicalJsonBytes is the ASCII of the canonical form', () => {
    expect(canonicalJsonBytes(parseJson('{"café": true}')).equals(Buffer.from(r`{"caf\u00e9":true}`, 'ascii'))).toBe(true);
  });

  it('sha256Hex gives lowercase hex (FIPS 180-2 examples)', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(sha256Hex(new Uint8Array([0x61, 0x62, 0x63]))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('sha256Hex hashes a string as UTF-8', () => {
    expect(sha256Hex('é')).toBe(sha256Hex(new Uint8Array([0xc3, 0xa9])));
  });
});

describe('toPlain', () => {
  it('turns numbers into number or bigint and keeps __proto__ as an own property', () => {
    const plain = toPlain(parseJson('{"a":1.0,"b":9007199254740993,"c":-0,"d":9007199254740991,"__proto__":[1E5]}')) as Record<
      string,
      unknown
    >;
    expect(Object.getPrototypeOf(plain)).toBe(Object.prototype);
    expect(plain.a).toBe(1);
    expect(plain.b).toBe(9007199254740993n);
    expect(Object.is(plain.c, 0)).toBe(true);
    expect(plain.d).toBe(9007199254740991);
    expect(Object.hasOwn(plain, '__proto__')).toBe(true);
    expect(Object.getOwnPropertyDescriptor(plain, '__proto__')?.value).toEqual([100000]);
  });
});

describe('CanonicalText', () => {
  it('is embedded as written, so stored canonical bodies hash without a re-parse', async () => {
    const { CanonicalText } = await import('../../pipeline/formats/canonical-json.ts');
    expect(canonicalJson({ b: new CanonicalText('{"x":1.0}'), a: 1 })).toBe('{"a":1,"b":{"x":1.0}}');
  });
});
