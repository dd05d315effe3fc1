import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  firstInvalidUtf8,
  inspectLine,
  MAX_SPLIT_BATCH_BYTES,
  MAX_SPLIT_BATCH_LINES,
  readLines,
  splitLines,
  type RawLine,
} from '../../pipeline/ingest/lines.ts';
import { sha256 } from './helpers.ts';

const dir = mkdtempSync(join(tmpdir(), 'prereg-lines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function linesOf(data: Buffer | string, options: { maxLineBytes?: number; chunkBytes?: number } = {}) {
  const path = join(dir, `f${n++}.jsonl`);
  writeFileSync(path, data);
  const out: Array<Omit<RawLine, 'bytes'> & { bytes: string }> = [];
  for await (const l of readLines(path, 'f.jsonl', options)) out.push({ ...l, bytes: l.bytes.toString('latin1') });
  return out;
}

const CHUNK_SIZES = [1, 2, 3, 5, 7, 64, undefined];

describe('readLines: splitting a stream on "\\n"', () => {
  const text = 'alpha\nbeta gamma\n\n{"é":"€"}\nlast-without-newline';

  it.each(CHUNK_SIZES)('gives the same lines, offsets and hashes with chunks of %s bytes', async (chunkBytes) => {
    const lines = await linesOf(text, chunkBytes === undefined ? {} : { chunkBytes });
    const expected = ['alpha', 'beta gamma', '', '{"é":"€"}', 'last-without-newline'];
    expect(lines.map((l) => l.line_no)).toEqual([1, 2, 3, 4, 5]);
    expect(lines.map((l) => l.text ?? null)).toEqual(['alpha', 'beta gamma', null, '{"é":"€"}', 'last-without-newline']);
    const offsets: number[] = [];
    let at = 0;
    for (const e of expected) {
      offsets.push(at);
      at += Buffer.byteLength(e) + 1;
    }
    expect(lines.map((l) => l.byte_offset)).toEqual(offsets);
    expect(lines.map((l) => l.sha256)).toEqual(expected.map((e) => sha256(Buffer.from(e))));
    expect(lines[2]).toMatchObject({ problem: 'LINE_EMPTY', length: 0 });
  });

  it('counts a final line without "\\n" as a line, and adds no line after a final "\\n"', async () => {
    expect((await linesOf('a\nb')).map((l) => l.text)).toEqual(['a', 'b']);
    expect((await linesOf('a\nb\n')).map((l) => l.text)).toEqual(['a', 'b']);
    expect(await linesOf('')).toEqual([]);
    expect((await linesOf('\n')).map((l) => l.problem)).toEqual(['LINE_EMPTY']);
  });

  it.each(CHUNK_SIZES)('skips a line longer than the limit (chunks of %s bytes), hashing it, and goes on', async (chunkBytes) => {
    const long = 'x'.repeat(40);
    const data = `ok1\n${long}\nok2\n${long}y`;
    const lines = await linesOf(data, { maxLineBytes: 10, ...(chunkBytes === undefined ? {} : { chunkBytes }) });
    expect(lines.map((l) => [l.line_no, l.byte_offset, l.problem ?? 'ok', l.length])).toEqual([
      [1, 0, 'ok', 3],
      [2, 4, 'LINE_TOO_LONG', 40],
      [3, 45, 'ok', 3],
      [4, 49, 'LINE_TOO_LONG', 41],
    ]);
    expect(lines[1]!.sha256).toBe(sha256(long));
    expect(lines[3]!.sha256).toBe(sha256(`${long}y`));
    expect(lines[1]!.bytes).toBe('');
    expect(lines[2]!.text).toBe('ok2');
  });

  it('accepts a line of exactly the limit, refuses one byte more', async () => {
    const lines = await linesOf('12345\n123456\n', { maxLineBytes: 5, chunkBytes: 2 });
    expect(lines.map((l) => l.problem ?? 'ok')).toEqual(['ok', 'LINE_TOO_LONG']);
  });
});

describe('inspectLine: the checks of one line', () => {
  const check = (bytes: Buffer) => inspectLine('f', 1, 100, bytes, 16);

  it.each([
    ['a valid line', Buffer.from('{"a":"é"}'), undefined],
    ['an empty line', Buffer.alloc(0), 'LINE_EMPTY'],
    ['a line ending in \\r', Buffer.from('{"a":1}\r'), 'LINE_CRLF'],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), 'LINE_NOT_UTF8'],
    ['an overlong encoding', Buffer.from([0xc0, 0xaf]), 'LINE_NOT_UTF8'],
    ['a UTF-8-encoded surrogate', Buffer.from([0xed, 0xa0, 0x80]), 'LINE_NOT_UTF8'],
    ['a truncated sequence', Buffer.from([0x61, 0xe2, 0x82]), 'LINE_NOT_UTF8'],
    ['more bytes than the limit', Buffer.from('x'.repeat(17)), 'LINE_TOO_LONG'],
  ])('%s', (_, bytes, problem) => {
    const line = check(bytes);
    expect(line.problem).toBe(problem);
    expect(line.sha256).toBe(sha256(bytes));
    expect(line.text === undefined).toBe(problem !== undefined);
  });

  it('locates the first invalid byte', () => {
    expect(check(Buffer.from([0x61, 0x62, 0xff])).detail).toContain('byte 3 of the line (file offset 102)');
  });

  it('keeps a BOM as U+FEFF (the JSON parser then refuses it)', () => {
    expect(check(Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0x7d])).text).toBe('\ufeff{}');
  });

  it('reports CRLF only on valid UTF-8 (first match wins)', () => {
    expect(check(Buffer.from([0xff, 0x0d])).problem).toBe('LINE_NOT_UTF8');
  });
});

describe('firstInvalidUtf8', () => {
  it.each([
    [[0x41, 0x42], -1],
    [[0xc3, 0xa9], -1],
    [[0xf0, 0x9f, 0x98, 0x80], -1],
    [[0x41, 0x80], 1],
    [[0xe0, 0x80, 0x80], 0],
    [[0xf4, 0x90, 0x80, 0x80], 0],
    [[0xf5, 0x80, 0x80, 0x80], 0],
    [[0x41, 0xc3], 1],
    [[0xed, 0xa0, 0x80], 0],
    [[0xed, 0x9f, 0xbf], -1],
    [[0xf4, 0x8f, 0xbf, 0xbf], -1],
    [[0xc1, 0xbf], 0],
  ])('%j → %i', (bytes, at) => {
    expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(at);
    let valid = true;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(bytes));
    } catch {
      valid = false;
    }
    expect(at === -1).toBe(valid); // agrees with TextDecoder's fatal mode…
    expect(inspectLine('f', 1, 0, Buffer.from(bytes)).problem === 'LINE_NOT_UTF8').toBe(!valid); // …and so does the line check
  });
});

describe('splitLines: the batches worker threads check', () => {
  it('holds at most MAX_SPLIT_BATCH_LINES lines, or the lines up to MAX_SPLIT_BATCH_BYTES, in file order', async () => {
    const path = join(dir, `f${n++}.jsonl`);
    const long = 'y'.repeat(MAX_SPLIT_BATCH_BYTES / 4 + 3);
    writeFileSync(path, `${'\n'.repeat(3 * MAX_SPLIT_BATCH_LINES + 7)}${`${long}\n`.repeat(9)}tail`);
    const batches: Array<{ lines: number; bytes: number; first: number }> = [];
    let next = 1;
    for await (const batch of splitLines(path, { chunkBytes: 1 << 20 })) {
      for (const l of batch) expect(l.line_no).toBe(next++);
      batches.push({ lines: batch.length, bytes: batch.reduce((s, l) => s + l.bytes.length, 0), first: batch[0]!.line_no });
    }
    expect(next - 1).toBe(3 * MAX_SPLIT_BATCH_LINES + 7 + 9 + 1);
    expect(batches.slice(0, 3).map((b) => b.lines)).toEqual([MAX_SPLIT_BATCH_LINES, MAX_SPLIT_BATCH_LINES, MAX_SPLIT_BATCH_LINES]);
    for (const b of batches) {
      expect(b.lines).toBeLessThanOrEqual(MAX_SPLIT_BATCH_LINES);
      expect(b.bytes).toBeLessThan(MAX_SPLIT_BATCH_BYTES + long.length); // ends with the line that reaches the bound
    }
    // The long lines: four reach the bound, so a batch ends after each fourth.
    expect(batches.filter((b) => b.bytes >= MAX_SPLIT_BATCH_BYTES).length).toBe(2);
  });
});
