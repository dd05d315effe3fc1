// Worker-thread side of ingest and validate: checks 1–5 of batches of split lines (lines.ts
// checkSplitLine, then submission.ts checkLine, the functions the main thread runs on small
// inputs) and answers each line's outcome, in order. Check 6 (duplicates) stays with the thread
// that takes the outcomes in file order (ingest/parallel-check.ts).
import { checkSplitLine, type SplitLine } from './lines.ts';
import { checkLine, type AcceptedKey, type LineCheckConfig, type Outcome } from './submission.ts';

export interface LineCheckInit {
  /** The frozen item ids, or null when they are not checked. */
  items: string[] | null;
  fastPath: boolean;
  /** The protocol's registered systems and attempts per item (LineProtocol), as plain data. */
  systems: string[] | null;
  attemptsPerItem: number | null;
}

/**
 * A batch of split lines as posted to a worker: their bytes in one buffer of their own (a line's
 * view into its chunk would post the whole chunk) and, per line, where it is.
 */
export interface PackedLines {
  file: string;
  maxLineBytes: number;
  /** Whether accepted lines come back as whole records (ingest) or as their AcceptedKey only (validate). */
  records: boolean;
  bytes: Uint8Array;
  line_no: Float64Array;
  byte_offset: Float64Array;
  /** Length of each line's bytes in `bytes` (0 for a line too long to keep). */
  length: Uint32Array;
  /** Lines too long to keep: [index in the batch, full length, SHA-256]. */
  overlong: Array<[number, number, string]>;
}

export function packLines(file: string, maxLineBytes: number, records: boolean, lines: readonly SplitLine[]): PackedLines {
  const n = lines.length;
  let total = 0;
  for (const l of lines) total += l.bytes.length;
  // allocUnsafeSlow: a buffer of its own, never a slice of Node's shared pool (which would be posted whole).
  const bytes = Buffer.allocUnsafeSlow(total);
  const packed: PackedLines = {
    file,
    maxLineBytes,
    records,
    bytes,
    line_no: new Float64Array(n),
    byte_offset: new Float64Array(n),
    length: new Uint32Array(n),
    overlong: [],
  };
  let at = 0;
  for (let i = 0; i < n; i++) {
    const l = lines[i]!;
    packed.line_no[i] = l.line_no;
    packed.byte_offset[i] = l.byte_offset;
    packed.length[i] = l.bytes.length;
    at += l.bytes.copy(bytes, at);
    if (l.overlong) packed.overlong.push([i, l.overlong.length, l.overlong.sha256]);
  }
  return packed;
}

export function unpackLines(packed: PackedLines): SplitLine[] {
  const buffer = Buffer.from(packed.bytes.buffer, packed.bytes.byteOffset, packed.bytes.byteLength);
  const lines: SplitLine[] = [];
  let at = 0;
  for (let i = 0; i < packed.line_no.length; i++) {
    const length = packed.length[i]!;
    lines.push({ line_no: packed.line_no[i]!, byte_offset: packed.byte_offset[i]!, bytes: buffer.subarray(at, at + length) });
    at += length;
  }
  for (const [i, length, sha256] of packed.overlong) lines[i]!.overlong = { length, sha256 };
  return lines;
}

/**
 * Checks 1–5 of every line of a batch, in order. An accepted line comes back as its whole record
 * (an AcceptedRecord) when the batch asks for records, else as its AcceptedKey: posting records
 * back only to drop them cost validate more than the checks it moves off the main thread.
 */
export function checkPacked(packed: PackedLines, config: LineCheckConfig): Outcome<AcceptedKey>[] {
  return unpackLines(packed).map((line) => {
    const outcome = checkLine(checkSplitLine(packed.file, line, packed.maxLineBytes), config);
    if (packed.records || outcome.accepted === undefined) return outcome;
    const { file, line_no, byte_offset, line_sha256, system_id, item_id, attempt } = outcome.accepted;
    return { accepted: { file, line_no, byte_offset, line_sha256, system_id, item_id, attempt } };
  });
}

export async function createHandler(init: LineCheckInit): Promise<(batch: PackedLines[]) => Promise<Outcome<AcceptedKey>[][]>> {
  const config: LineCheckConfig = {
    items: init.items === null ? null : new Set(init.items),
    fastPath: init.fastPath,
    systems: init.systems === null ? null : new Set(init.systems),
    attemptsPerItem: init.attemptsPerItem,
  };
  return async (batch) => batch.map((packed) => checkPacked(packed, config));
}
