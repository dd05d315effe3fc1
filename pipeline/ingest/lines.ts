// Reading a JSONL file as a stream of lines (SPEC §5.1), in bounded memory.
//
// The file is read in chunks (4 MiB by default) and split on "\n" by hand, which is faster than
// node:readline and lets an oversized line be skipped without ever being buffered: at most the
// current chunk plus one line of at most `maxLineBytes` bytes are held at any time.
//
// Line rules:
// - a line is the bytes between two "\n" (the "\n" is not part of it); a final line without a
//   trailing "\n" is still a line, and a file ending in "\n" has no empty line after it;
// - line_sha256 is the SHA-256 of the line's raw bytes (without its "\n"), computed even for a
//   line too long to keep (it is hashed as it streams by);
// - problems, first match wins: LINE_TOO_LONG (more than maxLineBytes bytes), LINE_EMPTY (zero
//   bytes), LINE_NOT_UTF8 (not valid UTF-8), LINE_CRLF (ends in "\r": CRLF line endings).
// A line without a problem carries its text, decoded strictly (a UTF-8 BOM is kept as U+FEFF,
// which the JSON parser then refuses, as Python's json.loads does).
import { isUtf8 } from 'node:buffer';
import { createHash, hash } from 'node:crypto';
import { openRegularFileHandle } from '../io/regular-file.ts';

export const DEFAULT_CHUNK_BYTES = 4 * 1024 * 1024;
export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

export type LineProblem = 'LINE_TOO_LONG' | 'LINE_EMPTY' | 'LINE_NOT_UTF8' | 'LINE_CRLF';

export interface RawLine {
  /** The file as the caller named it (recorded in rows and messages). */
  file: string;
  /** 1-based. */
  line_no: number;
  /** Offset of the line's first byte in the file. */
  byte_offset: number;
  /** Length of the line in bytes, without its "\n" (the full length even when too long to keep). */
  length: number;
  /** The line's bytes (often a view into the chunk read: copy it to keep it); empty for LINE_TOO_LONG. */
  bytes: Buffer;
  /** SHA-256 of the line's raw bytes, 64 lowercase hex digits. */
  sha256: string;
  problem?: LineProblem;
  /** What is wrong, for a problem (e.g. where the first invalid UTF-8 byte is). */
  detail?: string;
  /** The decoded line, present exactly when there is no problem. */
  text?: string;
}

export interface ReadLinesOptions {
  maxLineBytes?: number;
  chunkBytes?: number;
  /** Called with every chunk read, in order (e.g. to hash the whole file or show progress). */
  onChunk?: (chunk: Buffer) => void;
}

/** A line as cut from the file, before its checks (inspectLine turns it into a RawLine). */
export interface SplitLine {
  /** 1-based. */
  line_no: number;
  byte_offset: number;
  /** The line's bytes without its "\n" (a view into the chunk read); empty for a line too long to keep. */
  bytes: Buffer;
  /** A line too long to keep: its full length and SHA-256, hashed as its bytes streamed by. */
  overlong?: { length: number; sha256: string };
}

/** Lines handed on at a time by splitLines: a chunk of empty lines must not become millions of objects. */
export const MAX_SPLIT_BATCH_LINES = 512;
/**
 * Bytes of lines handed on at a time (a batch ends with the line that reaches it): small enough
 * that a worker's batch and its results stay in cache and in V8's young generation, large enough
 * that a message per batch costs little (bench:ingest: 64 KiB used less CPU than 256 KiB or 4 MiB).
 */
export const MAX_SPLIT_BATCH_BYTES = 64 * 1024;

/**
 * Cuts a file into lines, in order, in batches (each of at most MAX_SPLIT_BATCH_LINES lines, all
 * taken from one chunk read, except a line carried over from the chunks before). The batches are
 * what worker threads check (ingest/parallel-check.ts); readLines checks them here.
 */
export async function* splitLines(path: string, options: ReadLinesOptions = {}): AsyncGenerator<SplitLine[]> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const chunkBytes = options.chunkBytes ?? DEFAULT_CHUNK_BYTES;
  if (!Number.isSafeInteger(maxLineBytes) || maxLineBytes < 1)
    throw new RangeError(`maxLineBytes must be a positive integer, got ${maxLineBytes}`);
  if (!Number.isSafeInteger(chunkBytes) || chunkBytes < 1) throw new RangeError(`chunkBytes must be a positive integer, got ${chunkBytes}`);

  const handle = await openRegularFileHandle(path);
  try {
    let lineNo = 0;
    let fileOffset = 0; // offset of the current chunk's first byte
    // The current line's start, and the parts of it held from earlier chunks.
    let lineStart = 0;
    let parts: Buffer[] = [];
    let partsLength = 0;
    // Set once the current line exceeds maxLineBytes: it is only hashed from then on.
    let overflow: ReturnType<typeof createHash> | null = null;
    let overflowLength = 0;

    const finish = (tail: Buffer): SplitLine => {
      lineNo++;
      if (!overflow && parts.length > 0 && partsLength + tail.length > maxLineBytes) {
        // Too long only with its last piece: hash the pieces rather than join them.
        overflow = createHash('sha256');
        for (const p of parts) overflow.update(p);
        overflowLength = partsLength;
        parts = [];
        partsLength = 0;
      }
      if (overflow) {
        overflow.update(tail);
        const line: SplitLine = {
          line_no: lineNo,
          byte_offset: lineStart,
          bytes: Buffer.alloc(0),
          overlong: { length: overflowLength + tail.length, sha256: overflow.digest('hex') },
        };
        overflow = null;
        overflowLength = 0;
        return line;
      }
      const bytes = parts.length === 0 ? tail : Buffer.concat([...parts, tail], partsLength + tail.length);
      parts = [];
      partsLength = 0;
      return { line_no: lineNo, byte_offset: lineStart, bytes };
    };

    /** Adds bytes of an unfinished line, switching to hashing only once it is too long. */
    const hold = (piece: Buffer): void => {
      if (piece.length === 0) return;
      if (overflow) {
        overflow.update(piece);
        overflowLength += piece.length;
      } else if (partsLength + piece.length > maxLineBytes) {
        overflow = createHash('sha256');
        for (const p of parts) overflow.update(p);
        overflow.update(piece);
        overflowLength = partsLength + piece.length;
        parts = [];
        partsLength = 0;
      } else {
        parts.push(Buffer.from(piece)); // a copy: the chunk it came from is not kept
        partsLength += piece.length;
      }
    };

    for (;;) {
      const chunk = Buffer.allocUnsafe(chunkBytes);
      const { bytesRead } = await handle.read(chunk, 0, chunkBytes, null);
      if (bytesRead === 0) break;
      const data = bytesRead === chunkBytes ? chunk : chunk.subarray(0, bytesRead);
      options.onChunk?.(data);
      let from = 0;
      let batch: SplitLine[] = [];
      let batchBytes = 0;
      for (;;) {
        const nl = data.indexOf(0x0a, from);
        if (nl === -1) break;
        const line = finish(data.subarray(from, nl));
        batch.push(line);
        batchBytes += line.bytes.length;
        from = nl + 1;
        lineStart = fileOffset + from;
        if (batch.length === MAX_SPLIT_BATCH_LINES || batchBytes >= MAX_SPLIT_BATCH_BYTES) {
          yield batch;
          batch = [];
          batchBytes = 0;
        }
      }
      if (batch.length > 0) yield batch;
      hold(data.subarray(from));
      fileOffset += bytesRead;
    }
    // A final line without a trailing "\n".
    if (partsLength > 0 || overflow) yield [finish(Buffer.alloc(0))];
  } finally {
    await handle.close();
  }
}

export async function* readLines(path: string, file: string, options: ReadLinesOptions = {}): AsyncGenerator<RawLine> {
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  for await (const batch of splitLines(path, options)) for (const line of batch) yield checkSplitLine(file, line, maxLineBytes);
}

/** A split line's RawLine: a line too long to keep is LINE_TOO_LONG, any other gets inspectLine's checks. */
export function checkSplitLine(file: string, line: SplitLine, maxLineBytes: number): RawLine {
  if (line.overlong === undefined) return inspectLine(file, line.line_no, line.byte_offset, line.bytes, maxLineBytes);
  const { length, sha256 } = line.overlong;
  return {
    file,
    line_no: line.line_no,
    byte_offset: line.byte_offset,
    length,
    bytes: Buffer.alloc(0),
    sha256,
    problem: 'LINE_TOO_LONG',
    detail: `line of ${length} bytes exceeds the limit of ${maxLineBytes} bytes`,
  };
}

/** The checks of one complete line (pure; exported for tests and for callers holding lines). */
export function inspectLine(
  file: string,
  lineNo: number,
  byteOffset: number,
  bytes: Buffer,
  maxLineBytes = DEFAULT_MAX_LINE_BYTES,
): RawLine {
  const line: RawLine = {
    file,
    line_no: lineNo,
    byte_offset: byteOffset,
    length: bytes.length,
    bytes,
    sha256: hash('sha256', bytes, 'hex'),
  };
  if (bytes.length > maxLineBytes) {
    line.problem = 'LINE_TOO_LONG';
    line.detail = `line of ${bytes.length} bytes exceeds the limit of ${maxLineBytes} bytes`;
    line.bytes = Buffer.alloc(0);
    return line;
  }
  if (bytes.length === 0) {
    line.problem = 'LINE_EMPTY';
    line.detail = 'empty line (JSONL has one JSON object on every line)';
    return line;
  }
  // isUtf8 (simdutf) is as strict as TextDecoder's fatal mode and about twice as fast here.
  if (!isUtf8(bytes)) {
    const at = firstInvalidUtf8(bytes);
    line.problem = 'LINE_NOT_UTF8';
    line.detail = `invalid UTF-8 at byte ${at + 1} of the line (file offset ${byteOffset + at})`;
    return line;
  }
  if (bytes[bytes.length - 1] === 0x0d) {
    line.problem = 'LINE_CRLF';
    // Named, not written as escapes: a detail is shown through the display rule, which would double a backslash.
    line.detail = 'line ends in CR, U+000D (CRLF line endings); lines must end in LF, U+000A, alone';
    return line;
  }
  line.text = bytes.toString('utf8'); // keeps a BOM as U+FEFF
  return line;
}

/** Index of the first byte that does not start or continue a valid UTF-8 sequence (RFC 3629). */
export function firstInvalidUtf8(b: Uint8Array): number {
  const n = b.length;
  let i = 0;
  while (i < n) {
    const c = b[i]!;
    if (c < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lo = 0x80;
    let hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
      need = 2;
      if (c === 0xe0) lo = 0xa0; // no overlong forms
      if (c === 0xed) hi = 0x9f; // no surrogates
    } else if (c >= 0xf0 && c <= 0xf4) {
      need = 3;
      if (c === 0xf0) lo = 0x90;
      if (c === 0xf4) hi = 0x8f; // nothing above U+10FFFF
    } else return i;
    for (let k = 1; k <= need; k++) {
      const d = b[i + k];
      if (d === undefined) return i;
      if (k === 1 ? d < lo || d > hi : d < 0x80 || d > 0xbf) return i;
    }
    i += need + 1;
  }
  return -1;
}
