// Commitment lines (SPEC §5.2): the strict shape, one row per rule, and the file reader that
// reports a malformed line with its file and line and goes on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexCommitments, readCommitmentLine } from '../../../pipeline/evidence/aer1/index.ts';
import { canonicalJson, parseJson } from '../../../pipeline/formats/canonical-json.ts';
import { sha256Hex } from '../../../pipeline/formats/hash.ts';
import { readCommitments } from '../../../pipeline/verify/inputs.ts';
import { COMMITMENTS_FILE, commitmentsText } from './helpers.ts';

const GOOD = {
  job_id: 'job-7a1f',
  final_entry_digest: '79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0',
  entry_count: 5,
  published_at: '2026-10-01T18:30:00Z',
  witness: 'aer1 conformance kit',
  retrieved_via: 'https://witness.example/aer1/commitments',
  retrieved_at: '2026-10-02T00:00:00Z',
};
const AT = { file: COMMITMENTS_FILE, line: 7, byte_offset: 1200, line_sha256: 'e'.repeat(64) };
/** GOOD with one member replaced by raw JSON text (so number lexemes stay as written), or removed. */
function withMember(key: string, raw: string | undefined): string {
  const { [key]: _drop, ...rest } = GOOD as Record<string, unknown>;
  const text = canonicalJson(rest);
  return raw === undefined ? text : `${text.slice(0, -1)},"${key}":${raw}}`;
}

describe('readCommitmentLine: one row per rule', () => {
  it.each<[string, string, boolean]>([
    ["the kit's commitment with the witness members", canonicalJson(GOOD), true],
    ['published_at with 9 fraction digits', withMember('published_at', '"2026-10-01T18:30:00.123456789Z"'), true],
    ['published_at with one fraction digit', withMember('published_at', '"2026-10-01T18:30:00.7Z"'), true],
    ['published_at with an offset', withMember('published_at', '"2026-10-01T20:30:00+02:00"'), true],
    ['published_at on 2024-02-29', withMember('published_at', '"2024-02-29T00:00:00Z"'), true],
    ['entry_count written 5.0', withMember('entry_count', '5.0'), false],
    ['entry_count written 5e0', withMember('entry_count', '5e0'), false],
    ['entry_count a string', withMember('entry_count', '"5"'), false],
    ['entry_count true', withMember('entry_count', 'true'), false],
    ['entry_count 0', withMember('entry_count', '0'), false],
    ['entry_count -1', withMember('entry_count', '-1'), false],
    ['entry_count beyond 2^53', withMember('entry_count', '9007199254740993'), false],
    ['final_entry_digest in upper case', withMember('final_entry_digest', `"${GOOD.final_entry_digest.toUpperCase()}"`), false],
    ['final_entry_digest with a sha256: prefix', withMember('final_entry_digest', `"sha256:${GOOD.final_entry_digest}"`), false],
    ['final_entry_digest with a final newline', withMember('final_entry_digest', `"${GOOD.final_entry_digest}\\n"`), false],
    ['published_at 2023-02-29', withMember('published_at', '"2023-02-29T00:00:00Z"'), false],
    ['published_at 1900-02-29', withMember('published_at', '"1900-02-29T00:00:00Z"'), false],
    ['published_at without an offset', withMember('published_at', '"2026-10-01T18:30:00"'), false],
    ['published_at a date only', withMember('published_at', '"2026-10-01"'), false],
    ['published_at hour 24', withMember('published_at', '"2026-10-01T24:00:00Z"'), false],
    ['retrieved_at 30 February', withMember('retrieved_at', '"2026-02-30T00:00:00Z"'), false],
    ['job_id empty', withMember('job_id', '""'), false],
    ['job_id a number', withMember('job_id', '7'), false],
    ['witness empty', withMember('witness', '""'), false],
    ['retrieved_via a number', withMember('retrieved_via', '3'), false],
    ['job_id missing', withMember('job_id', undefined), false],
    // The draft publishes the four members alone (its kit's commitment): accepted as published.
    ['witness missing', withMember('witness', undefined), true],
    ['witness null (not recorded)', withMember('witness', 'null'), true],
    ['retrieved_at null (not recorded)', withMember('retrieved_at', 'null'), true],
    [
      "the draft's four members alone",
      canonicalJson({
        job_id: GOOD.job_id,
        final_entry_digest: GOOD.final_entry_digest,
        entry_count: GOOD.entry_count,
        published_at: GOOD.published_at,
      }),
      true,
    ],
    ['retrieved_at not a date-time', withMember('retrieved_at', '"yesterday"'), false],
    ['an unknown member', withMember('publised_at', '"2026-10-01T18:30:00Z"'), false],
    ['not an object', `[${canonicalJson(GOOD)}]`, false],
  ])('%s → %s', (_name, text, ok) => {
    const line = readCommitmentLine(parseJson(text), AT);
    expect(line.ok, line.ok ? '' : line.problems.join('; ')).toBe(ok);
    expect(line).toMatchObject(AT);
    if (!line.ok) expect(line.problems.length).toBeGreaterThan(0);
  });

  it('reads a well-formed line into the commitment, entry_count a number', () => {
    expect(readCommitmentLine(parseJson(canonicalJson(GOOD)), AT)).toEqual({ ...AT, ok: true, commitment: GOOD });
  });

  it("reads the draft's four members alone with the witness members not recorded (null)", () => {
    const { job_id, final_entry_digest, entry_count, published_at } = GOOD;
    expect(readCommitmentLine(parseJson(canonicalJson({ job_id, final_entry_digest, entry_count, published_at })), AT)).toEqual({
      ...AT,
      ok: true,
      commitment: { job_id, final_entry_digest, entry_count, published_at, witness: null, retrieved_via: null, retrieved_at: null },
    });
  });

  it('names every problem of a line and keeps its job when it has one', () => {
    const line = readCommitmentLine(parseJson(withMember('entry_count', '5.0').replace('"aer1 conformance kit"', '""')), AT);
    expect(line).toMatchObject({ ok: false, job_id: 'job-7a1f' });
    expect(!line.ok && line.problems).toEqual([
      '"entry_count" must be a positive JSON integer (5, not 5.0), got 5.0',
      '"witness" must be a non-empty string, got ""',
    ]);
    expect(readCommitmentLine(parseJson(withMember('job_id', '7')), AT)).toMatchObject({ ok: false, job_id: null });
  });
});

describe('readCommitments: every line of the file, a malformed one never stopping the others', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-commitments-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** The file of these bytes, read as the verify stage reads it. */
  const read = (content: string | Buffer) => {
    const path = join(dir, `${Math.random().toString(16).slice(2)}.jsonl`);
    writeFileSync(path, content);
    return readCommitments(path, COMMITMENTS_FILE);
  };
  const other = { ...GOOD, job_id: 'job-2' };
  const text =
    commitmentsText(GOOD, '{"job_id": "job-2", "entry_count": 5.0}', 'not json', '{"a": 1, "a": 2}', other) + '\n' + commitmentsText(GOOD);

  it('reports each malformed line with its file, line number, byte offset and SHA-256', async () => {
    const lines = await read(text);
    expect(lines.map((l) => [l.line, l.ok])).toEqual([
      [1, true],
      [2, false],
      [3, false],
      [4, false],
      [5, true],
      [6, false],
      [7, true],
    ]);
    expect(lines.every((l) => l.file === COMMITMENTS_FILE)).toBe(true);
    const bad = lines.flatMap((l) => (l.ok ? [] : [[l.line, l.job_id, l.problems.join('; ')]]));
    expect(bad).toEqual([
      [
        2,
        'job-2',
        'missing member "final_entry_digest"; missing member "published_at"; "entry_count" must be a positive JSON integer (5, not 5.0), got 5.0',
      ],
      [3, null, expect.stringMatching(/^JSON_SYNTAX: /)],
      [4, null, expect.stringMatching(/^JSON_DUPLICATE_KEY: /)],
      [6, null, expect.stringMatching(/^LINE_EMPTY: /)],
    ]);
    // Offsets and hashes of the bytes as written (computed here from the text, line by line).
    const raw = text.split('\n').slice(0, 7);
    const offsets = raw.map((_, i) => raw.slice(0, i).reduce((n, l) => n + Buffer.byteLength(l) + 1, 0));
    expect(lines.map((l) => [l.byte_offset, l.line_sha256])).toEqual(raw.map((l, i) => [offsets[i], sha256Hex(l)]));
  });

  it('indexes the well-formed lines by job, in file order; a malformed one by its job when it names one', async () => {
    const index = indexCommitments(await read(text));
    expect(index.jobs.get('job-7a1f')!.valid.map((v) => v.line)).toEqual([1, 7]);
    expect(index.jobs.get('job-2')).toMatchObject({ valid: [{ line: 5, commitment: other }], malformed: [{ line: 2, job_id: 'job-2' }] });
    expect(index.unattributed.map((m) => m.line)).toEqual([3, 4, 6]);
  });

  it('reads an empty file as no lines, and a last line without its newline', async () => {
    expect(await read('')).toEqual([]);
    const line = canonicalJson(GOOD);
    expect(await read(line)).toEqual([
      { file: COMMITMENTS_FILE, line: 1, byte_offset: 0, line_sha256: sha256Hex(line), ok: true, commitment: GOOD },
    ]);
  });

  it('refuses, line by line as a submission line is rejected, a BOM, CRLF and bytes that are not UTF-8', async () => {
    const line = canonicalJson(GOOD);
    const lines = await read(
      Buffer.concat([Buffer.from(`\ufeff${line}\n${line}\r\n`), Buffer.from([0x7b, 0xff, 0x7d, 0x0a]), Buffer.from(`${line}\n`)]),
    );
    expect(lines.map((l) => [l.line, l.ok, l.ok ? '' : l.problems[0]!.split(':')[0]])).toEqual([
      [1, false, 'JSON_SYNTAX'], // U+FEFF is kept and refused by the parser, as Python's json.loads does
      [2, false, 'LINE_CRLF'],
      [3, false, 'LINE_NOT_UTF8'],
      [4, true, ''],
    ]);
    // The offsets count the BOM's three bytes.
    expect(lines.map((l) => l.byte_offset)).toEqual([
      0,
      3 + line.length + 1,
      3 + 2 * (line.length + 1) + 1,
      3 + 2 * (line.length + 1) + 1 + 4,
    ]);
  });
});
