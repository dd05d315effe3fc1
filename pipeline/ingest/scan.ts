// The one loop over submission files that both `prereg ingest` and `prereg validate` run: read
// each file as a stream of lines, check each line, hand every outcome to the caller, and count.
// accepted + rejected = lines read, per file and in total (SPEC §5.1).
import { createHash } from 'node:crypto';
import { PreregError } from '../reasons.ts';
import { packLines } from './check-worker.ts';
import { checkSplitLine, DEFAULT_MAX_LINE_BYTES, splitLines, type SplitLine } from './lines.ts';
import { inFlightWeight, LINE_BYTES_IN_FLIGHT, type LineWorkers } from './parallel-check.ts';
import type { AcceptedKey, AcceptedRecord, Outcome, Reject, SubmissionChecker } from './submission.ts';
import type { StudyConfig } from '../study/study.ts';

export interface FileSummary {
  file: string;
  sha256: string;
  bytes: number;
  lines_read: number;
  accepted: number;
  rejected: number;
  /** Rejected lines per reason code, codes sorted. */
  rejects_by_code: Record<string, number>;
}

export interface ScanSinks {
  /** Absent when the caller needs no records (validate): worker threads then post back only what check 6 needs. */
  record?(record: AcceptedRecord): void;
  reject(reject: Reject): void;
}

/** The largest --max-line-bytes accepted (a Buffer must hold one line). */
export const MAX_MAX_LINE_BYTES = 1024 * 1024 * 1024;

/** Parses --max-line-bytes; USAGE (exit 2) unless a whole number of bytes in [1, 1 GiB]. */
export function parseMaxLineBytes(value: unknown): number {
  if (value === undefined) return DEFAULT_MAX_LINE_BYTES;
  const n = typeof value === 'string' && /^[1-9][0-9]{0,9}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= MAX_MAX_LINE_BYTES)) {
    throw new PreregError(
      'USAGE',
      `--max-line-bytes must be a whole number of bytes from 1 to ${MAX_MAX_LINE_BYTES}, got ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** The study's line limit (study.json limits.max_line_bytes, else 4 MiB): the same for every stage. */
export function studyMaxLineBytes(study: Pick<StudyConfig, 'limits'>): number {
  return study.limits?.max_line_bytes ?? DEFAULT_MAX_LINE_BYTES;
}

/**
 * The most distinct systems a study accepts (study.json limits.max_systems, else 100). Pairwise
 * outputs (sign tests) grow with its square: 1,000 one-line systems made 1,005,006 sign-test rows,
 * a 167 MB report.html and a 2.5 GB peak; the bound is declared with the study, never implied.
 */
export const DEFAULT_MAX_SYSTEMS = 100;
export function studyMaxSystems(study: Pick<StudyConfig, 'limits'>): number {
  return study.limits?.max_systems ?? DEFAULT_MAX_SYSTEMS;
}

/**
 * Reads, checks and counts one file, outcomes handed to `sinks` in line order. With `workers`
 * (started for this checker: ingest/parallel-check.ts), checks 1–5 run on worker threads and
 * check 6 here; without, every check runs here. Both give the same outcomes.
 */
export async function scanFile(
  path: string,
  file: string,
  checker: SubmissionChecker,
  sinks: ScanSinks,
  options: {
    maxLineBytes: number;
    chunkBytes?: number;
    progress?: (bytesRead: number) => void;
    workers?: LineWorkers | null;
    /** Only the lines it keeps are checked and counted (`verify --shard`: the lines that may be its share's); the file is still read and hashed whole. */
    keep?: (line: SplitLine) => boolean;
  },
): Promise<FileSummary> {
  const fileHash = createHash('sha256');
  let bytes = 0;
  const summary: FileSummary = { file, sha256: '', bytes: 0, lines_read: 0, accepted: 0, rejected: 0, rejects_by_code: {} };
  const byCode = new Map<string, number>();
  const { maxLineBytes, workers, keep } = options;
  const split = splitLines(path, {
    maxLineBytes,
    ...(options.chunkBytes === undefined ? {} : { chunkBytes: options.chunkBytes }),
    onChunk: (chunk) => {
      fileHash.update(chunk);
      bytes += chunk.length;
      options.progress?.(bytes);
    },
  });
  const batches = keep === undefined ? split : keptLines(split, keep);
  // An accepted outcome is a whole record whenever sinks.record is given (see packLines).
  const take = (outcome: Outcome<AcceptedKey>): void => {
    summary.lines_read++;
    if (outcome.accepted) {
      summary.accepted++;
      sinks.record?.(outcome.accepted as AcceptedRecord);
    } else {
      summary.rejected++;
      byCode.set(outcome.rejected.reason_code, (byCode.get(outcome.rejected.reason_code) ?? 0) + 1);
      sinks.reject(outcome.rejected);
    }
  };
  if (workers) {
    if (workers.checker !== checker) throw new Error('scanFile: the line workers were started for another checker');
    const packed = async function* () {
      for await (const lines of batches) yield [packLines(file, maxLineBytes, sinks.record !== undefined, lines)];
    };
    await workers.pool.mapOrdered(
      packed(),
      (p) => p,
      (results) => {
        for (const outcomes of results) for (const outcome of outcomes) take(checker.admit(outcome));
      },
      LINE_BYTES_IN_FLIGHT,
      ([p]) => inFlightWeight(p!),
    );
  } else {
    for await (const lines of batches) for (const line of lines) take(checker.check(checkSplitLine(file, line, maxLineBytes)));
  }
  summary.sha256 = fileHash.digest('hex');
  summary.bytes = bytes;
  summary.rejects_by_code = sortedCounts(byCode);
  return summary;
}

async function* keptLines(batches: AsyncIterable<SplitLine[]>, keep: (line: SplitLine) => boolean): AsyncIterable<SplitLine[]> {
  for await (const lines of batches) yield lines.filter(keep);
}

export function sortedCounts(counts: ReadonlyMap<string, number> | Record<string, number>): Record<string, number> {
  const entries = counts instanceof Map ? [...counts.entries()] : Object.entries(counts);
  const out: Record<string, number> = {};
  for (const [k, v] of entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out[k] = v;
  return out;
}

export interface Totals {
  files: number;
  lines_read: number;
  accepted: number;
  rejected: number;
  rejects_by_code: Record<string, number>;
}

export function totalsOf(files: readonly FileSummary[]): Totals {
  const byCode = new Map<string, number>();
  for (const f of files) for (const [code, n] of Object.entries(f.rejects_by_code)) byCode.set(code, (byCode.get(code) ?? 0) + n);
  return {
    files: files.length,
    lines_read: files.reduce((s, f) => s + f.lines_read, 0),
    accepted: files.reduce((s, f) => s + f.accepted, 0),
    rejected: files.reduce((s, f) => s + f.rejected, 0),
    rejects_by_code: sortedCounts(byCode),
  };
}

export function formatCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts);
  return entries.length === 0 ? 'none' : entries.map(([code, n]) => `${code} ${n}`).join(', ');
}

/** "1.5 MB" style, for progress lines only. */
export function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
