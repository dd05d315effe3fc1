// The fast path for submission lines (pipeline/formats/json-fast-path.ts) against the canonical
// parser, on generated hostile lines: whenever the fast path gives a value, the canonical parser
// accepts the line and gives the same value (same canonical JSON, same plain value), and the
// submission checker gives the same outcome, accepted record or reject, with and without it.
// The lines are the example study's submissions mutated by a seeded generator: duplicate keys
// (also written with escapes, also nested), number lexemes a double would change, surrogate
// escapes, "__proto__" keys, nesting at the depth limit, strings full of JSON punctuation,
// whitespace, a BOM, and random single-character edits.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalJson, JsonParseError, parseJson, toPlain } from '../../pipeline/formats/canonical-json.ts';
import { parsePlainIfSafe } from '../../pipeline/formats/json-fast-path.ts';
import { inspectLine } from '../../pipeline/ingest/lines.ts';
import { MAX_JSON_DEPTH, SubmissionChecker } from '../../pipeline/ingest/submission.ts';
import { PROJECT_ROOT } from '../support/cli.ts';
import { pick, random } from '../support/seeded-random.ts';

const BASE = ['sys-honest.jsonl', 'sys-tampered.jsonl', 'sys-truncated.jsonl'].flatMap((f) =>
  readFileSync(join(PROJECT_ROOT, 'inputs/submissions', f), 'utf8')
    .trim()
    .split('\n'),
);

const NUMBERS = [
  '1',
  '2',
  '0',
  '-0',
  '1.0',
  '0.0',
  '-0.0',
  '1.5',
  '0.1',
  '0.10',
  '2.50',
  '1e0',
  '1E2',
  '1e400',
  '-1',
  '01',
  '100',
  '101',
  '12345678901234567',
  '9007199254740991',
  '9007199254740992',
  '9007199254740993',
  '123456789.125',
  '3.0e1',
  '1.7976931348623157e308',
  '5e-324',
];
const STRINGS = [
  '":{',
  '\\"',
  '\\\\',
  '\\u0000',
  '\\ud800',
  '\\udfff',
  '\\uD83D\\uDE00',
  '\\ud83d\\ude00',
  '__proto__',
  '\\/',
  'é',
  '\\u00e9',
  '[1,2]',
  '"a":1,"a":2',
  '\\n\\t',
];
const EDITS = ['"', '\\', ',', ':', '{', '}', '[', ']', '0', '.', 'e', '-', ' ', '\t', 'x'];

/** One hostile variant of a real line. */
function mutate(line: string, r: () => number): string {
  const n = pick(r, NUMBERS);
  const depth = 58 + Math.floor(r() * 10);
  switch (Math.floor(r() * 14)) {
    case 0:
      return line.replace('"attempt":1', '"attempt":1,"attempt":1');
    case 1:
      return line.replace('"attempt":1', '"attempt":1,"\\u0061ttempt":1');
    case 2:
      return line.replace('"spec_version":', '"spec_version":"x","spec_version":');
    case 3:
      return line.replace('"attempt":1', `"attempt":${n}`);
    case 4:
      return line.replace(/"top_k":\d+|"amount":[\d.]+/, (m) => `${m.split(':')[0]}:${n}`);
    case 5:
      return line.replace(/"text":"/, `"text":"${pick(r, STRINGS)}`);
    case 6:
      return line.replace('{"answer":', `{"${pick(r, ['__proto__', '\\u005f_proto__', 'extra'])}":{},"answer":`);
    case 7:
      return line.replace('{"answer":', `{"deep":${'['.repeat(depth)}${']'.repeat(depth)},"answer":`);
    case 8:
      return line.replace(/":/g, () => (r() < 0.3 ? '" :\t' : '":')).replace(/,"/g, () => (r() < 0.3 ? ', "' : ',"'));
    case 9:
      return `\ufeff${line}`;
    case 10:
      return line.slice(0, Math.floor(r() * line.length));
    case 11:
      return line.replace(/"text":"/, `"text":"${pick(r, STRINGS)}","text":"`);
    case 12:
      return line.replace('"attempt":1', `"attempt":1,"nested":{"k":${n},"k":${n}}`);
    default: {
      const at = Math.floor(r() * line.length);
      return line.slice(0, at) + pick(r, EDITS) + line.slice(at + (r() < 0.5 ? 1 : 0));
    }
  }
}

const r = random(20261201);
const LINES = [...BASE, ...Array.from({ length: 3000 }, () => mutate(pick(r, BASE), r))];

describe('the JSON fast path for submission lines', () => {
  it('gives a value only where the canonical parser gives the same one', () => {
    let fast = 0;
    let canonicalOnly = 0;
    for (const text of LINES) {
      const plain = parsePlainIfSafe(text, MAX_JSON_DEPTH);
      let canonical: ReturnType<typeof parseJson> | JsonParseError;
      try {
        canonical = parseJson(text, { maxDepth: MAX_JSON_DEPTH });
      } catch (err) {
        if (!(err instanceof JsonParseError)) throw err;
        canonical = err;
      }
      if (plain === undefined) {
        if (!(canonical instanceof JsonParseError)) canonicalOnly++;
        continue;
      }
      fast++;
      expect(canonical, text).not.toBeInstanceOf(JsonParseError);
      expect(canonicalJson(plain), text).toBe(canonicalJson(canonical));
      expect(plain, text).toEqual(toPlain(canonical as never));
    }
    // Not vacuous: many lines take the fast path, and many valid ones are left to the canonical parser.
    expect(fast).toBeGreaterThan(500);
    expect(canonicalOnly).toBeGreaterThan(300);
  });

  it('changes no outcome of the submission checker: every accepted record and every reject the same', () => {
    const withFastPath = new SubmissionChecker(null);
    const canonicalOnly = new SubmissionChecker(null, false);
    const outcomes = { accepted: 0, rejected: new Set<string>() };
    LINES.forEach((text, i) => {
      const line = () => inspectLine('hostile.jsonl', i + 1, 0, Buffer.from(text, 'utf8'));
      const a = withFastPath.check(line());
      expect(a, text).toEqual(canonicalOnly.check(line()));
      if (a.accepted) outcomes.accepted++;
      else outcomes.rejected.add(a.rejected.reason_code);
    });
    expect(outcomes.accepted).toBeGreaterThan(100);
    expect([...outcomes.rejected]).toEqual(
      expect.arrayContaining(['JSON_DUPLICATE_KEY', 'JSON_SYNTAX', 'SUBMISSION_SCHEMA', 'SUBMISSION_DUPLICATE']),
    );
  });

  it('leaves to the canonical parser each kind of line it must not read (each shown once)', () => {
    const line = BASE[0]!;
    const cases = {
      'duplicate key': line.replace('"attempt":1', '"attempt":1,"attempt":1'),
      'duplicate key written with an escape': line.replace('"attempt":1', '"attempt":1,"\\u0061ttempt":1'),
      'lexeme 1.0': line.replace('"attempt":1', '"attempt":1.0'),
      'lexeme 2^53': line.replace('"attempt":1', '"attempt":9007199254740992'),
      exponent: line.replace('"attempt":1', '"attempt":1e0'),
      'negative zero': line.replace('"attempt":1', '"attempt":-0'),
      'lone surrogate escape': line.replace('"text":"', '"text":"\\ud800'),
      '__proto__ key': line.replace('{"answer":', '{"__proto__":{},"answer":'),
      'nesting at the limit': line.replace('{"answer":', `{"deep":${'['.repeat(63)}${']'.repeat(63)},"answer":`),
    };
    for (const [what, text] of Object.entries(cases)) expect(parsePlainIfSafe(text, MAX_JSON_DEPTH), what).toBeUndefined();
    expect(parsePlainIfSafe(line, MAX_JSON_DEPTH)).toEqual(JSON.parse(line));
  });
});
