// Reading inputs/intake.jsonl (SPEC §12.2) for every command that needs it: intake and seal, which
// extend or close it, `intake --verify-receipt` and the audit's intake rail. The log is streamed
// line by line (ingest/lines.ts) and read up to its first bad line only, and a log larger than
// MAX_INTAKE_LOG_BYTES is refused before a byte of it is read (INTAKE_LOG_TOO_LARGE): whatever
// the file, memory stays bounded — a malformed log is never held whole, nor one finding per line.
import { lstatSync, statSync } from 'node:fs';
import { IntakeChain, type ParsedLog } from '../evidence/intake/log.ts';
import { readLines } from '../ingest/lines.ts';
import type { StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';

/**
 * The largest intake log read or written: an entry is a few KiB (most of it its token), so this
 * is tens of thousands of intakes; the entries of a log this size stay far below 1.5 GiB.
 */
export const MAX_INTAKE_LOG_BYTES = 128 * 1024 * 1024;

export interface IntakeLog extends ParsedLog {
  /** The log's exact bytes (empty when there is no log yet), when asked for (keepBytes). */
  bytes: Buffer;
}

function tooLarge(file: string, bytes: number, what: string): PreregError {
  return new PreregError(
    'INTAKE_LOG_TOO_LARGE',
    `${file} ${what} ${bytes} bytes, more than the limit of ${MAX_INTAKE_LOG_BYTES} bytes (128 MiB)`,
    { file },
  );
}

/**
 * The log at `path` (`file` names it in messages), read up to its first bad line: the entries
 * before it, their digests, and that line's problem. No file is an empty log. A file that cannot
 * be read, or is over the limit, is refused (PreregError).
 */
export async function readIntakeLogFile(path: string, file: string, options: { keepBytes?: boolean } = {}): Promise<IntakeLog> {
  const chain = new IntakeChain();
  const chunks: Buffer[] = [];
  const out = (problem: ParsedLog['problem']): IntakeLog => ({
    entries: chain.entries,
    digests: chain.digests,
    problem,
    bytes: Buffer.concat(chunks),
  });
  if (!lstatSync(path, { throwIfNoEntry: false })) return out(null);
  const size = statSync(path).size;
  if (size > MAX_INTAKE_LOG_BYTES) throw tooLarge(file, size, 'is');
  let read = 0;
  let lastByte = -1;
  const onChunk = (chunk: Buffer) => {
    read += chunk.length;
    // A log that grows while it is read is held to the same limit.
    if (read > MAX_INTAKE_LOG_BYTES) throw tooLarge(file, read, 'grew to more than');
    lastByte = chunk[chunk.length - 1]!;
    if (options.keepBytes) chunks.push(Buffer.from(chunk));
  };
  let lineNo = 0;
  for await (const line of readLines(path, file, { onChunk })) {
    lineNo = line.line_no;
    const problem = line.text === undefined ? `${line.problem}: ${line.detail}` : chain.add(line.text);
    if (problem !== null) return out({ line: line.line_no, message: problem });
  }
  if (lineNo === 0 || lastByte === 0x0a) return out(null);
  // The last line, cut short, is no entry.
  const cut = out({ line: lineNo, message: 'the last line has no final newline (a write was cut short)' });
  return { ...cut, entries: cut.entries.slice(0, -1), digests: cut.digests.slice(0, -1) };
}

/** The log for the commands that extend or seal it: a bad line stops them (INTAKE_LOG_INVALID), as a log they extend must be one an auditor can check. */
export async function readIntakeLog(layout: StudyLayout, options: { keepBytes?: boolean } = {}): Promise<IntakeLog> {
  const file = 'inputs/intake.jsonl';
  const log = await readIntakeLogFile(layout.intakeLog, file, options);
  if (log.problem !== null) {
    const { line, message } = log.problem;
    throw new PreregError('INTAKE_LOG_INVALID', `${file}:${line}: ${message}`, { file, line });
  }
  return log;
}

/** The log's bytes with one more line: refused (INTAKE_LOG_TOO_LARGE) when that passes the limit, so that no command writes a log it could not read back. */
export function appendedLog(log: IntakeLog, line: string): Buffer {
  const next = Buffer.concat([log.bytes, Buffer.from(line, 'utf8')]);
  if (next.length > MAX_INTAKE_LOG_BYTES) throw tooLarge('inputs/intake.jsonl', next.length, 'would be');
  return next;
}
