// inputs/intake.jsonl, one line at a time → its entries, their digests and the first line that
// breaks the chain (SPEC §12.2). Pure: the caller reads the file (pipeline/intake/log.ts streams
// it). Entry i has seq i and prev = digest of entry i−1 (64 zeros for the first); every line is
// parsed with the canonical parser (a duplicate key is a broken line). The log is one chain: a
// line after a broken one cannot be checked against it, so nothing after the first bad line is read.
import { JsonParseError, parseJson, toPlain } from '../../formats/canonical-json.ts';
import { entryDigest, entryProblems, GENESIS_PREV, type IntakeEntry } from './records.ts';

export interface ParsedLog {
  /** The entries before the first bad line. */
  entries: IntakeEntry[];
  /** entryDigest of each entry, in order: the seal's leaves. */
  digests: string[];
  /** The first bad line (1-based) and what is wrong with it; a log with one is INTAKE_LOG_INVALID. */
  problem: { line: number; message: string } | null;
}

/**
 * A log of entries chained by seq and prev, read so far; `add` checks the next line against it.
 * The intake log and the deviations log (evidence/deviations/records.ts) are each one.
 */
export class LinkedChain<T extends { seq: number; prev: string }> {
  readonly entries: T[] = [];
  readonly digests: string[] = [];

  constructor(
    private readonly problemsOf: (value: unknown) => string[],
    private readonly digestOf: (entry: T) => string,
  ) {}

  /** What is wrong with the next line's text, or null: then it is the chain's next entry, kept. */
  add(text: string): string | null {
    let value: unknown;
    try {
      value = toPlain(parseJson(text));
    } catch (err) {
      if (!(err instanceof JsonParseError)) throw err;
      return `${err.code}: ${err.message}`;
    }
    const problems = this.problemsOf(value);
    if (problems.length > 0) return problems.join('; ');
    const entry = value as T;
    const expectedPrev = this.digests[this.digests.length - 1] ?? GENESIS_PREV;
    const wrong = [
      ...(entry.seq !== this.entries.length ? [`seq is ${entry.seq}; entry ${this.entries.length} expected`] : []),
      ...(entry.prev !== expectedPrev ? [`prev is ${entry.prev}; the previous entry's digest is ${expectedPrev}`] : []),
    ];
    if (wrong.length > 0) return wrong.join('; ');
    this.entries.push(entry);
    this.digests.push(this.digestOf(entry));
    return null;
  }
}

export class IntakeChain extends LinkedChain<IntakeEntry> {
  constructor() {
    super(entryProblems, entryDigest);
  }
}

/** The latest entry of each (system_id, kind), by seq: the files that count. */
export function latestEntries(entries: readonly IntakeEntry[]): IntakeEntry[] {
  const latest = new Map<string, IntakeEntry>();
  for (const e of entries) latest.set(`${e.request.system_id}\u0000${e.request.kind}`, e);
  return [...latest.values()];
}
