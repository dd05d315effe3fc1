// The line checks on worker threads (ingest/parallel-check.ts) against the main thread's: the same
// outcomes in the same order, every field of every accepted record and reject, and the same file
// summaries, on files of hostile lines read in chunks of many sizes (lines spanning chunks, lines
// too long to keep spanning several, duplicates across batches and across files, a final line
// without "\n"), with and without records wanted; then ingest end to end, rows compared.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LINE_WORKERS_ENV, LINE_WORKERS_MIN_BYTES, lineWorkersPay, startLineWorkers } from '../../pipeline/ingest/parallel-check.ts';
import { scanFile, type FileSummary } from '../../pipeline/ingest/scan.ts';
import { SubmissionChecker, type AcceptedRecord, type Reject } from '../../pipeline/ingest/submission.ts';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';
import { frozenStudy, query, submissionLine } from './helpers.ts';

const FORCED = { [LINE_WORKERS_ENV]: 'on' };
const MAIN_THREAD = { [LINE_WORKERS_ENV]: 'off' };
const EXAMPLE = ['sys-honest.jsonl', 'sys-tampered.jsonl'].flatMap((f) =>
  readFileSync(join(PROJECT_ROOT, 'inputs/submissions', f), 'utf8')
    .trim()
    .split('\n'),
);
const MAX_LINE_BYTES = 6000; // some example lines are longer: LINE_TOO_LONG, hashed as they stream by
const ITEMS = new Set(Array.from({ length: 20 }, (_, i) => `mp-${String(i + 1).padStart(3, '0')}`));

/** Every kind of line, in a seeded order; each file ends without "\n" when `open` is set. */
function hostileFile(seed: number, count: number, open: boolean): Buffer {
  let a = seed;
  const r = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const kinds: Array<() => string | Buffer> = [
    () => pick(EXAMPLE), // accepted, or too long, or a duplicate of an earlier copy
    () => pick(EXAMPLE).replace(/"attempt":\d+/, `"attempt":${1 + Math.floor(r() * 100)}`),
    () =>
      submissionLine({
        system_id: `sys-${Math.floor(r() * 5)}`,
        attempt: 1 + Math.floor(r() * 50),
        answer: { text: 'é€'.repeat(Math.floor(r() * 400)), refused: false, truncated: false },
      }),
    () => '',
    () => `${submissionLine({ attempt: 2 })}\r`,
    () => Buffer.concat([Buffer.from('{"format":"prereg.submission/1","x":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
    () => pick(EXAMPLE).slice(0, Math.floor(r() * 400)),
    () => submissionLine({ attempt: 3 }).replace('"attempt":3', '"attempt":3,"attempt":4'),
    () => submissionLine({ attempt: 5 }).replace('"attempt":5', '"attempt":5.0'),
    () => submissionLine({ answer: { text: 'x', refused: false, truncated: false } }).replace('"text":"x"', '"text":"\\ud800"'),
    () => submissionLine({ item_id: 'mp-404' }),
    () => submissionLine({ format: 'prereg.submission/0' }),
    () => submissionLine({ system_id: 'sys-long', answer: { text: 'x'.repeat(MAX_LINE_BYTES * 3), refused: false, truncated: false } }),
    () => `\ufeff${submissionLine({ attempt: 6 })}`,
  ];
  const parts: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const line = pick(kinds)();
    parts.push(typeof line === 'string' ? Buffer.from(line, 'utf8') : line);
    if (!(open && i === count - 1)) parts.push(Buffer.from('\n'));
  }
  return Buffer.concat(parts);
}

type Seen = Array<{ record: AcceptedRecord } | { reject: Reject }>;

async function scanAll(files: string[], parallel: boolean, options: { chunkBytes?: number; records?: boolean } = {}) {
  const checker = new SubmissionChecker(ITEMS);
  const workers = parallel ? startLineWorkers(0, checker, { env: FORCED, threads: 2 }) : null;
  if (parallel) expect(workers).not.toBeNull();
  const seen: Seen = [];
  const summaries: FileSummary[] = [];
  try {
    for (const path of files) {
      const sinks = {
        ...(options.records === false ? {} : { record: (record: AcceptedRecord) => void seen.push({ record }) }),
        reject: (reject: Reject) => void seen.push({ reject }),
      };
      summaries.push(
        await scanFile(path, path, checker, sinks, {
          maxLineBytes: MAX_LINE_BYTES,
          workers,
          ...(options.chunkBytes ? { chunkBytes: options.chunkBytes } : {}),
        }),
      );
    }
  } finally {
    await workers?.pool.close();
  }
  return { seen, summaries };
}

describe('line checks on worker threads', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-parallel-check-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const files = [hostileFile(11, 700, false), hostileFile(12, 500, true)].map((data, i) => {
    const path = join(dir, `f${i}.jsonl`);
    writeFileSync(path, data);
    return path;
  });

  it("give the main thread's outcomes, in order, whatever the chunk size", async () => {
    const serial = await scanAll(files, false);
    // Not vacuous: every outcome is there, and many of each.
    const reason_codes = new Set(serial.seen.flatMap((s) => ('reject' in s ? [s.reject.reason_code] : [])));
    expect([...reason_codes].sort()).toEqual([
      'JSON_DUPLICATE_KEY',
      'JSON_SYNTAX',
      'LINE_CRLF',
      'LINE_EMPTY',
      'LINE_NOT_UTF8',
      'LINE_TOO_LONG',
      'SUBMISSION_DUPLICATE',
      'SUBMISSION_FORMAT_UNKNOWN',
      'SUBMISSION_ITEM_UNKNOWN',
      'SUBMISSION_SCHEMA',
    ]);
    expect(serial.seen.filter((s) => 'record' in s).length).toBeGreaterThan(100);
    for (const chunkBytes of [997, 6007, 65_536, undefined]) {
      const parallel = await scanAll(files, true, { chunkBytes });
      expect(parallel.summaries, `chunks of ${chunkBytes}`).toEqual(serial.summaries);
      expect(parallel.seen, `chunks of ${chunkBytes}`).toEqual(serial.seen);
    }
  });

  it('without a record sink (validate), give the same rejects and counts', async () => {
    const serial = await scanAll(files, false, { records: false });
    const parallel = await scanAll(files, true, { records: false });
    expect(parallel.summaries).toEqual(serial.summaries);
    expect(parallel.seen).toEqual(serial.seen);
  });

  it('pay for a large run on more than one core, not for a small run or on one core', () => {
    expect(lineWorkersPay(LINE_WORKERS_MIN_BYTES, 2)).toBe(true);
    expect(lineWorkersPay(LINE_WORKERS_MIN_BYTES - 1, 2)).toBe(false);
    expect(lineWorkersPay(1e12, 1)).toBe(false);
  });

  it('are not started when they do not pay unless asked, nor when told not to, nor used for another checker', async () => {
    expect(startLineWorkers(1000, new SubmissionChecker(null))).toBeNull();
    expect(startLineWorkers(1e12, new SubmissionChecker(null), { cores: 1 })).toBeNull();
    expect(startLineWorkers(1e12, new SubmissionChecker(null), { env: { [LINE_WORKERS_ENV]: 'off' } })).toBeNull();
    expect(() => startLineWorkers(0, new SubmissionChecker(null), { env: { [LINE_WORKERS_ENV]: '1' } })).toThrow(/must be "on" or "off"/);
    const workers = startLineWorkers(0, new SubmissionChecker(null), { env: FORCED, threads: 1 })!;
    try {
      await expect(
        scanFile(files[0]!, 'f', new SubmissionChecker(null), { reject: () => {} }, { maxLineBytes: 100, workers }),
      ).rejects.toThrow('another checker');
    } finally {
      await workers.pool.close();
    }
  });
});

describe('prereg ingest with its lines checked on worker threads', () => {
  const TABLES = {
    records: 'record_id',
    evidence: 'record_id, evidence_index',
    receipts: 'record_id',
    rejects: 'file, line_no',
    submission_files: 'file',
  };

  it('stores the same rows, in the same order, as with every check on the main thread', async () => {
    const study = await frozenStudy({ maxLineBytes: MAX_LINE_BYTES });
    try {
      writeFileSync(join(study.submissions, 'a.jsonl'), hostileFile(21, 400, false));
      writeFileSync(join(study.submissions, 'b.jsonl'), hostileFile(22, 300, true));
      const db = join(study.root, 'work/prereg.duckdb');
      const dump = async () =>
        Object.fromEntries(
          await Promise.all(
            Object.entries(TABLES).map(async ([t, order]) => [t, await query(db, `SELECT rowid, * FROM ${t} ORDER BY ${order}`)]),
          ),
        );
      const serial = await runCli(['ingest', '--root', study.root, '--json'], MAIN_THREAD);
      expect(serial.code, serial.stdout).toBe(0);
      const rows = await dump();
      expect(rows.records!.length).toBeGreaterThan(50);
      const parallel = await runCli(['ingest', '--root', study.root, '--json', '--force'], FORCED);
      expect(parallel.code, parallel.stdout).toBe(0);
      expect(parallel.json.totals).toEqual(serial.json.totals);
      expect(parallel.json.files).toEqual(serial.json.files);
      expect(await dump()).toEqual(rows);
    } finally {
      study.cleanup();
    }
  });

  it('refuses a system beyond limits.max_systems as the main thread does, and stores nothing', async () => {
    const study = await frozenStudy({ maxSystems: 2 });
    try {
      const lines = Array.from({ length: 3000 }, (_, i) =>
        submissionLine({
          system_id: `sys-${Math.floor(i / 1000)}`,
          attempt: (i % 100) + 1,
          item_id: `mp-${String((Math.floor(i / 100) % 10) + 1).padStart(3, '0')}`,
        }),
      );
      writeFileSync(join(study.submissions, 'a.jsonl'), `${lines.join('\n')}\n`);
      const serial = await runCli(['ingest', '--root', study.root, '--json'], MAIN_THREAD);
      const parallel = await runCli(['ingest', '--root', study.root, '--json'], FORCED);
      expect(serial.json).toMatchObject({ ok: false, code: 'STUDY_TOO_MANY_SYSTEMS', details: { line: 2001 } });
      expect([parallel.code, parallel.json]).toEqual([serial.code, serial.json]);
      expect(parallel.stderr).not.toMatch(/unhandled|exited with code/i);
      expect(existsSync(join(study.root, 'work/prereg.duckdb'))).toBe(false);
    } finally {
      study.cleanup();
    }
  });
});
