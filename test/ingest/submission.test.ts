import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { inspectLine } from '../../pipeline/ingest/lines.ts';
import { SubmissionChecker, type LineOutcome } from '../../pipeline/ingest/submission.ts';
import { submissionLine } from './helpers.ts';

const ITEMS = new Set(['mp-001', 'mp-002']);

function check(text: string | Buffer, checker = new SubmissionChecker(ITEMS), lineNo = 1): LineOutcome {
  return checker.check(inspectLine('inputs/submissions/a.jsonl', lineNo, 10 * lineNo, typeof text === 'string' ? Buffer.from(text) : text));
}

function deep(levels: number): string {
  return '['.repeat(levels) + ']'.repeat(levels);
}

describe('SubmissionChecker: one rule per row, first failure wins', () => {
  it.each([
    ['LINE_EMPTY', ''],
    ['LINE_CRLF', `${submissionLine()}\r`],
    ['LINE_NOT_UTF8', Buffer.from([0x7b, 0xc3, 0x28, 0x7d])],
    ['JSON_SYNTAX', '{"format": "prereg.submission/1",}'],
    ['JSON_SYNTAX', '\ufeff{}'],
    ['JSON_SYNTAX', `{"format":"prereg.submission/1","receipts":${deep(64)}}`],
    ['JSON_DUPLICATE_KEY', submissionLine().replace('"attempt":1', '"attempt":1,"attempt":2')],
    ['JSON_DUPLICATE_KEY', submissionLine({ evidence: [{ proof: { a: 1 } }] }).replace('"proof":{"a":1}', '"proof":{"a":1,"a":1}')],
    ['JSON_NUMBER_INVALID', submissionLine().replace('"attempt":1', '"attempt":1e400')],
    ['JSON_NUMBER_INVALID', submissionLine().replace('"attempt":1', '"attempt":NaN')],
    ['SUBMISSION_FORMAT_UNKNOWN', submissionLine({ format: 'prereg.submission/2' })],
    ['SUBMISSION_FORMAT_UNKNOWN', submissionLine({ format: 1 })],
    ['SUBMISSION_FORMAT_UNKNOWN', submissionLine({ format: null })],
    ['SUBMISSION_SCHEMA', submissionLine({ format: undefined })],
    ['SUBMISSION_SCHEMA', '[1,2]'],
    ['SUBMISSION_SCHEMA', submissionLine({ extra: true })],
    ['SUBMISSION_SCHEMA', submissionLine({ attempt: 0 })],
    ['SUBMISSION_SCHEMA', submissionLine({ attempt: 101 })],
    ['SUBMISSION_SCHEMA', submissionLine({ attempt: 1.5 })],
    ['SUBMISSION_SCHEMA', submissionLine({ attempt: '1' })],
    ['SUBMISSION_SCHEMA', submissionLine({ system_id: 'has space' })],
    ['SUBMISSION_SCHEMA', submissionLine({ system_id: 'a'.repeat(65) })],
    ['SUBMISSION_SCHEMA', submissionLine({ answer: { text: 'x', refused: false } })],
    ['SUBMISSION_SCHEMA', submissionLine({ answer: { text: 'x'.repeat(65537), refused: false, truncated: false } })],
    ['SUBMISSION_SCHEMA', submissionLine({ answer: { text: '\ud800', refused: false, truncated: false } })],
    ['SUBMISSION_SCHEMA', submissionLine({ evidence: undefined })],
    ['SUBMISSION_SCHEMA', submissionLine({ evidence: [{ request: {} }] })],
    ['SUBMISSION_SCHEMA', submissionLine({ evidence: [{ proof: [] }] })],
    ['SUBMISSION_SCHEMA', submissionLine({ evidence: [{ proof: 5 }] })],
    ['SUBMISSION_SCHEMA', submissionLine({ evidence: [{ proof: {}, note: 'x' }] })],
    ['SUBMISSION_SCHEMA', submissionLine({ evidence: Array.from({ length: 65 }, () => ({ proof: {} })) })],
    ['SUBMISSION_SCHEMA', submissionLine({ evidence: [{ proof: {}, response: { passages: Array.from({ length: 257 }, () => ({})) } }] })],
    ['SUBMISSION_SCHEMA', submissionLine({ evidence: [{ proof: {}, disclosure: 'x' }] })],
    ['SUBMISSION_SCHEMA', submissionLine({ evidence: [{ proof: {}, transparency_log_entry: 'x' }] })],
    ['SUBMISSION_SCHEMA', submissionLine({ evidence: [{ proof: {}, transparency_log_entry: [] }] })],
    // receipts: an AER-1 timeline (a bare array) or the envelope; anything else is not one.
    ['SUBMISSION_SCHEMA', submissionLine({ receipts: {} })],
    ['SUBMISSION_SCHEMA', submissionLine({ receipts: { format: 'aer-2', revision: '09', entries: [] } })],
    ['SUBMISSION_SCHEMA', submissionLine({ receipts: 'aer-1' })],
    ['SUBMISSION_SCHEMA', submissionLine({ receipts: null })],
    ['SUBMISSION_ITEM_UNKNOWN', submissionLine({ item_id: 'mp-999' })],
  ])('%s: %s', (code, line) => {
    const outcome = check(line);
    expect(outcome.rejected?.reason_code, JSON.stringify(outcome.rejected ?? outcome.accepted)).toBe(code);
    expect(outcome.rejected).toMatchObject({ file: 'inputs/submissions/a.jsonl', line_no: 1, byte_offset: 10 });
    expect(outcome.rejected!.line_sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it.each([
    ['no evidence', submissionLine()],
    ['nesting of exactly 64 levels', submissionLine({ receipts: [] }).replace('"receipts":[]', `"receipts":[${deep(62)}]`)],
    ['receipts a bare timeline (entries judged by verify, even an empty one)', submissionLine({ receipts: [] })],
    ['receipts in the envelope', submissionLine({ receipts: { format: 'aer-1', revision: '06', entries: [{}] } })],
    ['attempt written 1.0 (an integer in JSON Schema)', submissionLine().replace('"attempt":1', '"attempt":1.0')],
    ['any request and response bodies', submissionLine({ evidence: [{ proof: {}, request: null, response: [1, 'x'] }] })],
    ['a text with astral characters', submissionLine({ answer: { text: '😀 R2122-8', refused: true, truncated: true } })],
    [
      'a surrogate pair written as escapes in a response',
      submissionLine().replace('"evidence":[]', String.raw`"evidence":[{"proof":{},"response":"\ud83d\ude00 \\ud800"}]`),
    ],
  ])('accepts %s', (_, line) => {
    expect(check(line).rejected).toBeUndefined();
  });

  it.each([
    ['a passage text', { passages: [{ ref: 'R1', text: 'a \udfff b' }] }, '/evidence/0/response/passages/0/text'],
    ['a passage ref', { passages: [{ ref: 'R1\ud800', text: 'x' }] }, '/evidence/0/response/passages/0/ref'],
    ['another response field', { other: ['\udfff'] }, '/evidence/0/response/other/0'],
    ['the response as a string', '\ud800', '/evidence/0/response'],
    ['a key', { ['k\udc00']: 1 }, '/evidence/0/response/k\\udc00 (the key)'],
  ])('refuses a lone surrogate in %s (SUBMISSION_SCHEMA, with its pointer)', (_, response, pointer) => {
    const r = check(submissionLine({ evidence: [{ proof: {}, response }] })).rejected!;
    expect(r.reason_code).toBe('SUBMISSION_SCHEMA');
    expect(r.detail).toBe(`${pointer} contains a lone surrogate escape (e.g. \\ud800): it is not Unicode text`);
  });

  it('caps the detail of a line with 50,000 unknown keys: the first problems and a count', () => {
    const extra = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`unknown-key-${i}`, 1]));
    const r = check(submissionLine(extra as never)).rejected!;
    expect(r.reason_code).toBe('SUBMISSION_SCHEMA');
    expect(r.detail).toContain('(unknown-key-0)');
    expect(r.detail).toContain('… and 49980 more problems');
    expect(r.detail.length).toBeLessThan(4000);
  });

  it('keeps the column of a JSON error', () => {
    const r = check('{"a":1,"a":2}').rejected!;
    expect(r).toMatchObject({ reason_code: 'JSON_DUPLICATE_KEY', column_no: 8 });
    expect(r.detail).toContain('duplicate key "a"');
  });

  it("gives ajv's messages for a schema failure", () => {
    expect(check(submissionLine({ attempt: 101, extra: 1 })).rejected!.detail).toBe(
      '/ must NOT have additional properties (extra); /attempt must be <= 100',
    );
  });

  it('skips the item check when no items are given', () => {
    expect(check(submissionLine({ item_id: 'anything' }), new SubmissionChecker(null)).accepted?.item_id).toBe('anything');
  });

  it('rejects a later duplicate (system_id, item_id, attempt), keeping the first, across files', () => {
    const checker = new SubmissionChecker(ITEMS);
    const first = checker.check(inspectLine('a.jsonl', 3, 0, Buffer.from(submissionLine())));
    expect(first.accepted?.line_no).toBe(3);
    const again = checker.check(
      inspectLine('b.jsonl', 1, 0, Buffer.from(submissionLine({ answer: { text: 'other', refused: false, truncated: false } }))),
    );
    expect(again.rejected).toMatchObject({ reason_code: 'SUBMISSION_DUPLICATE', file: 'b.jsonl' });
    expect(again.rejected!.detail).toContain('already accepted at a.jsonl:3');
    // Another attempt, system or item is not a duplicate.
    for (const fields of [{ attempt: 2 }, { system_id: 'sys-b' }, { item_id: 'mp-002' }]) {
      expect(checker.check(inspectLine('b.jsonl', 2, 0, Buffer.from(submissionLine(fields)))).accepted).toBeDefined();
    }
  });

  it('does not let a rejected line claim a triple', () => {
    const checker = new SubmissionChecker(ITEMS);
    expect(check(submissionLine({ extra: 1 }), checker).rejected).toBeDefined();
    expect(check(submissionLine(), checker).accepted).toBeDefined();
  });
});

describe('accepted records keep the evidence bytes exactly', () => {
  const line =
    '{"format":"prereg.submission/1","system_id":"sys-a","item_id":"mp-002","attempt":2,' +
    '"answer":{"text":"R2122-8 \\u00e9","refused":false,"truncated":true},' +
    '"evidence":[{"proof":{"z":1.0,"a":1E5,"big":123456789012345678901234567890,"neg":-0,"s":"é\\u007f😀"},' +
    '"request":{"q":"x","k":1.10},"response":null},{"proof":{},"disclosure":{"disclosed":{}},"transparency_log_entry":{"logIndex":7,"integratedTime":1.0E9}}],' +
    '"receipts":{"format":"aer-1","entries":[]}}';

  it('stores canonical JSON of the parsed bodies (number lexemes kept), null for an absent key', () => {
    const r = check(line).accepted!;
    expect(r).toMatchObject({
      system_id: 'sys-a',
      item_id: 'mp-002',
      attempt: 2,
      answer_text: 'R2122-8 é',
      refused: false,
      truncated: true,
    });
    expect(r.evidence).toEqual([
      {
        evidence_index: 0,
        proof_json: '{"a":100000.0,"big":123456789012345678901234567890,"neg":0,"s":"\\u00e9\\u007f\\ud83d\\ude00","z":1.0}',
        request_json: '{"k":1.1,"q":"x"}',
        response_json: 'null',
        disclosure_json: null,
        tlog_entry_json: null,
      },
      {
        evidence_index: 1,
        proof_json: '{}',
        request_json: null,
        response_json: null,
        disclosure_json: '{"disclosed":{}}',
        tlog_entry_json: '{"integratedTime":1000000000.0,"logIndex":7}',
      },
    ]);
    expect(r.receipts_json).toBe('{"entries":[],"format":"aer-1"}');
  });

  const python = spawnSync('python3', ['--version']).status === 0;
  it.skipIf(!python)('matches Python json.dumps(sort_keys=True, separators=(",", ":")) byte for byte', () => {
    const script = [
      'import json, sys',
      'd = json.loads(sys.stdin.read())',
      'c = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"))',
      'print(json.dumps([[c(e["proof"]), c(e["request"]) if "request" in e else None, c(e["response"]) if "response" in e else None] for e in d["evidence"]] + [c(d["receipts"])]))',
    ].join('\n');
    const py = spawnSync('python3', ['-c', script], { input: line, encoding: 'utf8' });
    expect(py.status, py.stderr).toBe(0);
    const r = check(line).accepted!;
    const ours = [...r.evidence.map((e) => [e.proof_json, e.request_json, e.response_json]), r.receipts_json];
    expect(ours).toEqual(JSON.parse(py.stdout));
  });
});

describe("the study's protocol (SPEC §12.5): registered systems and attempts per item", () => {
  const protocol = { systems: new Set(['sys-a']), attemptsPerItem: 3 };
  const checker = () => new SubmissionChecker(ITEMS, true, protocol);
  it('rejects a system the study does not register (SYSTEM_UNREGISTERED) and an attempt beyond the protocol (ATTEMPT_OUT_OF_PROTOCOL)', () => {
    expect(check(submissionLine({ system_id: 'sys-b' }), checker()).rejected?.reason_code).toBe('SYSTEM_UNREGISTERED');
    expect(check(submissionLine({ attempt: 4 }), checker()).rejected?.reason_code).toBe('ATTEMPT_OUT_OF_PROTOCOL');
    expect(check(submissionLine({ attempt: 3 }), checker()).accepted?.attempt).toBe(3);
  });
  it('checks neither without a protocol (validate outside a study, a study/1 without systems)', () => {
    expect(check(submissionLine({ system_id: 'sys-b', attempt: 4 })).accepted?.system_id).toBe('sys-b');
  });
});
