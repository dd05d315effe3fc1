// `prereg validate FILE…`: the same line checks as ingest, without a study database.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { frozenStudy, jsonl, submissionLine } from './helpers.ts';

describe('prereg validate', () => {
  let study: Awaited<ReturnType<typeof frozenStudy>>;
  const outside = mkdtempSync(join(tmpdir(), 'prereg-validate-'));
  const good = join(outside, 'good.jsonl');
  const bad = join(outside, 'bad.jsonl');
  const badLines = jsonl([
    submissionLine(),
    '{"format":"prereg.submission/1","a":1,"a":2}',
    submissionLine({ item_id: 'mp-404' }),
    submissionLine(),
    `${submissionLine({ attempt: 2 })}\r`,
  ]);

  beforeAll(async () => {
    study = await frozenStudy();
    writeFileSync(good, jsonl([submissionLine(), submissionLine({ attempt: 2 }), submissionLine({ item_id: 'mp-020' })]).data);
    writeFileSync(bad, badLines.data);
  });
  afterAll(() => {
    study.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });

  it('exits 0 for a file whose every line would be accepted, checking item ids against the study', async () => {
    const r = await runCli(['validate', good, '--root', study.root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${good}: 3 lines = 3 accepted + 0 rejected`);
    expect(r.stdout).toContain('validate: OK');
    expect(r.stdout).not.toContain('note:');
  });

  it('prints every problem as file:line[:column]: CODE and exits 1', async () => {
    const r = await runCli(['validate', bad, '--root', study.root]);
    expect(r.code).toBe(1);
    const problems = r.stdout.split('\n').filter((l) => l.startsWith(`${bad}:`) && !l.includes(' lines = '));
    expect(problems).toEqual([
      `${bad}:2:39: JSON_DUPLICATE_KEY: duplicate key "a" in an object (column 39) (byte offset ${badLines.offsets[1]})`,
      `${bad}:3: SUBMISSION_ITEM_UNKNOWN: item_id "mp-404" is not an item of the frozen corpus/items.jsonl (byte offset ${badLines.offsets[2]})`,
      `${bad}:4: SUBMISSION_DUPLICATE: (system_id, item_id, attempt) = (sys-a, mp-001, 1) was already accepted at ${bad}:1; the first line is kept (byte offset ${badLines.offsets[3]})`,
      `${bad}:5: LINE_CRLF: line ends in CR, U+000D (CRLF line endings); lines must end in LF, U+000A, alone (byte offset ${badLines.offsets[4]})`,
    ]);
    expect(r.stdout).toContain(`${bad}: 5 lines = 1 accepted + 4 rejected`);
    expect(r.stdout).toContain(
      'validate: 4 line(s) would be rejected (JSON_DUPLICATE_KEY 1, LINE_CRLF 1, SUBMISSION_DUPLICATE 1, SUBMISSION_ITEM_UNKNOWN 1)',
    );
  });

  it('gives the same in --json, with the totals of several files (duplicates checked across them)', async () => {
    const r = await runCli(['validate', good, bad, '--root', study.root, '--json']);
    expect(r.code).toBe(1);
    expect(r.json).toMatchObject({
      ok: false,
      items_checked: true,
      notes: [],
      totals: { files: 2, lines_read: 8, accepted: 3, rejected: 5 },
    });
    expect(r.json.rejects[1]).toMatchObject({
      file: bad,
      line_no: 2,
      column_no: 39,
      byte_offset: badLines.offsets[1],
      reason_code: 'JSON_DUPLICATE_KEY',
    });
    // good.jsonl came first, so bad.jsonl's line 1 now repeats good.jsonl's line 1.
    expect(r.json.rejects.map((x: { line_no: number; reason_code: string }) => `${x.line_no} ${x.reason_code}`)).toEqual([
      '1 SUBMISSION_DUPLICATE',
      '2 JSON_DUPLICATE_KEY',
      '3 SUBMISSION_ITEM_UNKNOWN',
      '4 SUBMISSION_DUPLICATE',
      '5 LINE_CRLF',
    ]);
  });

  it('skips the item check, with a note, outside a study', async () => {
    const r = await runCli(['validate', bad, '--root', outside, '--json']);
    expect(r.code).toBe(1);
    expect(r.json.items_checked).toBe(false);
    expect(r.json.notes[0]).toContain('item ids not checked');
    expect(r.json.rejects.map((x: { reason_code: string }) => x.reason_code)).toEqual([
      'JSON_DUPLICATE_KEY',
      'SUBMISSION_DUPLICATE',
      'LINE_CRLF',
    ]);
    expect(existsSync(join(outside, 'work'))).toBe(false); // no database
  });

  it('applies --max-line-bytes', async () => {
    const r = await runCli(['validate', good, '--root', study.root, '--max-line-bytes', '50', '--json']);
    expect(r.code).toBe(1);
    expect(r.json.totals.rejects_by_code).toEqual({ LINE_TOO_LONG: 3 });
  });

  it('exits 2 without a file, 3 for a file that does not exist', async () => {
    expect((await runCli(['validate', '--json'])).code).toBe(2);
    const missing = await runCli(['validate', join(outside, 'nope.jsonl'), '--json']);
    expect([missing.code, missing.json.code]).toEqual([3, 'FILE_NOT_FOUND']);
  });
});

describe('prereg validate on many bad lines', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-validate-many-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lists the first 1,000 rejects and counts the rest: the output stays bounded, the totals exact', async () => {
    const file = join(dir, 'empty.jsonl');
    writeFileSync(file, '\n'.repeat(5_000));
    const r = await runCli(['validate', file, '--json']);
    expect(r.code).toBe(1);
    expect(r.json.totals).toMatchObject({ lines_read: 5_000, accepted: 0, rejected: 5_000, rejects_by_code: { LINE_EMPTY: 5_000 } });
    expect(r.json.rejects).toHaveLength(1_000);
    expect(r.json.rejects[999].line_no).toBe(1_000);
    expect(r.json.rejects_unlisted).toBe(4_000);
    const text = await runCli(['validate', file]);
    expect(text.stdout).toContain('… and 4000 more rejected line(s), not listed');
    expect(text.stdout.split('\n').length).toBeLessThan(1_100);
  });
});
