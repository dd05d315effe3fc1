// inputs/intake.jsonl as text → its entries, their digests and what breaks the chain (SPEC §12.2).
// Pure: the caller reads the file. Entry i has seq i and prev = digest of entry i−1 (64 zeros for
// the first); every line is parsed with the canonical parser (a duplicate key is a broken line).
import { JsonParseError, parseJson, toPlain } from '../../formats/canonical-json.ts';
import { entryDigest, entryProblems, GENESIS_PREV, type IntakeEntry } from './records.ts';

export interface ParsedLog {
  entries: IntakeEntry[];
  /** entryDigest of each entry, in order: the seal's leaves. */
  digests: string[];
  /** 1-based line and what is wrong with it; a log with problems is INTAKE_LOG_INVALID. */
  problems: Array<{ line: number; message: string }>;
}

export function parseIntakeLog(text: string): ParsedLog {
  const out: ParsedLog = { entries: [], digests: [], problems: [] };
  if (text === '') return out;
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  if (!text.endsWith('\n')) out.problems.push({ line: lines.length, message: 'the last line has no final newline (a write was cut short)' });
  lines.forEach((line, i) => {
    let value: unknown;
    try {
      value = toPlain(parseJson(line));
    } catch (err) {
      if (!(err instanceof JsonParseError)) throw err;
      out.problems.push({ line: i + 1, message: `${err.code}: ${err.message}` });
      return;
    }
    const problems = entryProblems(value);
    if (problems.length > 0) {
      out.problems.push({ line: i + 1, message: problems.join('; ') });
      return;
    }
    const entry = value as IntakeEntry;
    const expectedPrev = out.digests[out.digests.length - 1] ?? GENESIS_PREV;
    if (entry.seq !== out.entries.length) out.problems.push({ line: i + 1, message: `seq is ${entry.seq}; entry ${out.entries.length} expected` });
    if (entry.prev !== expectedPrev) out.problems.push({ line: i + 1, message: `prev is ${entry.prev}; the previous entry's digest is ${expectedPrev}` });
    out.entries.push(entry);
    out.digests.push(entryDigest(entry));
  });
  return out;
}

/** The latest entry of each (system_id, kind), by seq: the files that count. */
export function latestEntries(entries: readonly IntakeEntry[]): IntakeEntry[] {
  const latest = new Map<string, IntakeEntry>();
  for (const e of entries) latest.set(`${e.request.system_id}\u0000${e.request.kind}`, e);
  return [...latest.values()];
}
