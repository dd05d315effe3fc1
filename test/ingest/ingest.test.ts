// `prereg ingest` end to end: real DuckDB file, example-study copies, submission files written here.
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';
import { frozenStudy, jsonl, query, sha256, snapshotTree, submissionLine } from './helpers.ts';

const MAX = 1000;

/** One line per reject code (and accepted lines), in file a.jsonl. */
const A_LINES: Array<{ code: string; line: string | Buffer }> = [
  { code: 'ACCEPTED', line: submissionLine({ answer: { text: 'first', refused: false, truncated: false } }) },
  { code: 'LINE_EMPTY', line: '' },
  { code: 'LINE_CRLF', line: `${submissionLine({ attempt: 3 })}\r` },
  {
    code: 'LINE_NOT_UTF8',
    line: Buffer.concat([Buffer.from('{"format":"prereg.submission/1","x":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
  },
  { code: 'JSON_SYNTAX', line: '{"format":"prereg.submission/1",' },
  { code: 'JSON_DUPLICATE_KEY', line: submissionLine({ attempt: 4 }).replace('"attempt":4', '"attempt":4,"attempt":5') },
  { code: 'JSON_NUMBER_INVALID', line: submissionLine({ attempt: 6 }).replace('"attempt":6', '"attempt":-Infinity') },
  { code: 'SUBMISSION_FORMAT_UNKNOWN', line: submissionLine({ format: 'prereg.submission/0' }) },
  { code: 'SUBMISSION_SCHEMA', line: submissionLine({ attempt: 7, evidence: [{ proof: 'not an object' }] }) },
  { code: 'SUBMISSION_ITEM_UNKNOWN', line: submissionLine({ item_id: 'mp-404' }) },
  { code: 'SUBMISSION_DUPLICATE', line: submissionLine({ answer: { text: 'second', refused: false, truncated: false } }) },
  { code: 'LINE_TOO_LONG', line: submissionLine({ attempt: 8, answer: { text: 'x'.repeat(3 * MAX), refused: false, truncated: false } }) },
  {
    code: 'ACCEPTED',
    line: submissionLine({
      item_id: 'mp-002',
      evidence: [
        { proof: { spec_version: '2.1', n: 1.0 }, request: { q: 'é' }, response: { passages: [{ ref: 'R2122-8', text: '40 000 €' }] } },
      ],
      receipts: { format: 'aer-1', revision: '09', entries: [] },
    }).replace('"n":1', '"n":1.0'), // a number lexeme JSON.stringify cannot write
  },
];

describe('prereg ingest: one reject per code, with file, line and byte offset', () => {
  let study: Awaited<ReturnType<typeof frozenStudy>>;
  let result: Awaited<ReturnType<typeof runCli>>;
  let db: string;
  const a = jsonl(A_LINES.map((l) => l.line));
  const b = jsonl([
    submissionLine({ system_id: 'sys-b' }),
    submissionLine({ answer: { text: 'from b', refused: false, truncated: false } }),
  ]);
  const z = jsonl([submissionLine({ system_id: 'sys-z' })]);
  let before: Record<string, string>;

  beforeAll(async () => {
    study = await frozenStudy({ maxLineBytes: MAX });
    db = join(study.root, 'work/prereg.duckdb');
    writeFileSync(join(study.submissions, 'a.jsonl'), a.data);
    writeFileSync(join(study.submissions, 'b.jsonl'), b.data);
    writeFileSync(join(study.submissions, 'Z.jsonl'), z.data); // "Z" sorts before "a" by UTF-8 bytes
    writeFileSync(join(study.submissions, 'README.txt'), 'not a submission');
    before = snapshotTree(study.root);
    result = await runCli(['ingest', '--root', study.root, '--json']);
  });
  afterAll(() => study.cleanup());

  it('exits 0 (rejects are data) and counts lines read = accepted + rejected, per file and in total', () => {
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const j = result.json;
    expect(j).toMatchObject({
      ok: true,
      skipped: false,
      database: 'work/prereg.duckdb',
      max_line_bytes: MAX,
      ignored: ['inputs/submissions/README.txt'],
    });
    expect(j.files.map((f: { file: string }) => f.file)).toEqual([
      'inputs/submissions/Z.jsonl',
      'inputs/submissions/a.jsonl',
      'inputs/submissions/b.jsonl',
    ]);
    const fa = j.files[1];
    expect(fa).toMatchObject({ lines_read: 13, accepted: 2, rejected: 11, bytes: a.data.length, sha256: sha256(a.data) });
    for (const f of j.files) expect(f.accepted + f.rejected).toBe(f.lines_read);
    expect(j.totals).toMatchObject({ files: 3, lines_read: 16, accepted: 4, rejected: 12 });
    expect(j.totals.rejects_by_code).toEqual({
      JSON_DUPLICATE_KEY: 1,
      JSON_NUMBER_INVALID: 1,
      JSON_SYNTAX: 1,
      LINE_CRLF: 1,
      LINE_EMPTY: 1,
      LINE_NOT_UTF8: 1,
      LINE_TOO_LONG: 1,
      SUBMISSION_DUPLICATE: 2,
      SUBMISSION_FORMAT_UNKNOWN: 1,
      SUBMISSION_ITEM_UNKNOWN: 1,
      SUBMISSION_SCHEMA: 1,
    });
  });

  it.each(A_LINES.map((l, i) => ({ ...l, line_no: i + 1 })).filter((l) => l.code !== 'ACCEPTED'))(
    '$code at line $line_no is in the rejects table with its file, line, offset and hash',
    async ({ code, line, line_no }) => {
      const rows = await query(
        db,
        `SELECT file, line_no::INTEGER AS line_no, byte_offset::INTEGER AS byte_offset, line_sha256, reason_code FROM rejects WHERE file = 'inputs/submissions/a.jsonl' AND line_no = ${line_no}`,
      );
      expect(rows).toEqual([
        {
          file: 'inputs/submissions/a.jsonl',
          line_no,
          byte_offset: a.offsets[line_no - 1],
          line_sha256: sha256(typeof line === 'string' ? Buffer.from(line) : line),
          reason_code: code,
        },
      ]);
    },
  );

  it('keeps the first of a duplicate triple, rejects the later one in the same and in a later file', async () => {
    const kept = await query(
      db,
      "SELECT file, line_no::INTEGER AS line_no, answer_text FROM records WHERE system_id = 'sys-a' AND item_id = 'mp-001' AND attempt = 1",
    );
    expect(kept).toEqual([{ file: 'inputs/submissions/a.jsonl', line_no: 1, answer_text: 'first' }]);
    const dups = await query(
      db,
      "SELECT file, line_no::INTEGER AS line_no, detail FROM rejects WHERE reason_code = 'SUBMISSION_DUPLICATE' ORDER BY file, line_no",
    );
    expect(dups.map((d) => [d.file, d.line_no])).toEqual([
      ['inputs/submissions/a.jsonl', 11],
      ['inputs/submissions/b.jsonl', 2],
    ]);
    expect(dups[1]!.detail).toContain('already accepted at inputs/submissions/a.jsonl:1');
  });

  it('accepts a good line after an oversized one', async () => {
    const rows = await query(
      db,
      "SELECT line_no::INTEGER AS line_no, byte_offset::INTEGER AS byte_offset FROM records WHERE file = 'inputs/submissions/a.jsonl' ORDER BY record_id",
    );
    expect(rows).toEqual([
      { line_no: 1, byte_offset: 0 },
      { line_no: 13, byte_offset: a.offsets[12] },
    ]);
  });

  it('writes records in input order (files by UTF-8 bytes, lines in order), with their evidence and receipts', async () => {
    const records = await query(
      db,
      'SELECT record_id::INTEGER AS id, file, line_no::INTEGER AS line_no, evidence_count, has_receipts FROM records',
    );
    expect(records.map((r) => [r.id, r.file, r.line_no])).toEqual([
      [1, 'inputs/submissions/Z.jsonl', 1],
      [2, 'inputs/submissions/a.jsonl', 1],
      [3, 'inputs/submissions/a.jsonl', 13],
      [4, 'inputs/submissions/b.jsonl', 1],
    ]);
    expect(records[2]).toMatchObject({ evidence_count: 1, has_receipts: true });
    const evidence = await query(
      db,
      'SELECT record_id::INTEGER AS id, evidence_index, proof_json, request_json, response_json, disclosure_json FROM evidence',
    );
    expect(evidence).toEqual([
      {
        id: 3,
        evidence_index: 0,
        proof_json: '{"n":1.0,"spec_version":"2.1"}',
        request_json: '{"q":"\\u00e9"}',
        response_json: '{"passages":[{"ref":"R2122-8","text":"40 000 \\u20ac"}]}',
        disclosure_json: null,
      },
    ]);
    const receipts = await query(db, 'SELECT record_id::INTEGER AS id, chain_json, chain_sha256 FROM receipts');
    const chain = '{"entries":[],"format":"aer-1","revision":"09"}';
    expect(receipts).toEqual([{ id: 3, chain_json: chain, chain_sha256: sha256(chain) }]);
  });

  it('has as many rows as lines read, and one submission_files row per file', async () => {
    const [counts] = await query(
      db,
      'SELECT (SELECT count(*) FROM records)::INTEGER AS records, (SELECT count(*) FROM rejects)::INTEGER AS rejects',
    );
    expect(counts).toEqual({ records: 4, rejects: 12 });
    const files = await query(
      db,
      'SELECT file, sha256, lines_read::INTEGER AS lines_read, accepted::INTEGER AS accepted, rejected::INTEGER AS rejected FROM submission_files',
    );
    expect(files[1]).toEqual({ file: 'inputs/submissions/a.jsonl', sha256: sha256(a.data), lines_read: 13, accepted: 2, rejected: 11 });
    const [run] = await query(db, "SELECT inputs_digest FROM stage_runs WHERE stage = 'ingest'");
    expect(run!.inputs_digest).toBe(result.json.inputs_digest);
  });

  it('prints the counts and the rejects by code as text', async () => {
    const r = await runCli(['ingest', '--root', study.root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ingest: skipped, inputs unchanged');
    expect(r.stdout).toContain('inputs/submissions/a.jsonl  13 lines = 2 accepted + 11 rejected');
    expect(r.stdout).toContain('total: 16 lines read = 4 accepted + 12 rejected, in 3 file(s)');
    expect(r.stdout).toContain('rejects by code: JSON_DUPLICATE_KEY 1, ');
  });

  it('never modifies the inputs (or any study file but work/)', () => {
    const after = snapshotTree(study.root);
    for (const k of Object.keys(after)) if (k.startsWith('work/')) delete after[k];
    expect(after).toEqual(before);
  });
});

describe('prereg ingest: a file larger than one 4 MiB chunk', () => {
  it('reads a line that spans the chunk boundary like any other', async () => {
    const study = await frozenStudy();
    try {
      const lines: string[] = [];
      let size = 0;
      for (let i = 0; size < 4.5 * 1024 * 1024; i++) {
        const line = submissionLine({
          system_id: `sys-${Math.floor(i / 2000)}`,
          item_id: `mp-${String((i % 20) + 1).padStart(3, '0')}`,
          attempt: (Math.floor(i / 20) % 100) + 1,
          answer: { text: `réponse ${i} `.repeat(60), refused: false, truncated: false },
        });
        lines.push(line);
        size += Buffer.byteLength(line) + 1;
      }
      const file = jsonl(lines);
      writeFileSync(join(study.submissions, 'big.jsonl'), file.data);
      const boundary = 4 * 1024 * 1024;
      const spanning = file.offsets.findIndex((o, i) => o < boundary && (file.offsets[i + 1] ?? Infinity) > boundary);
      expect(file.offsets[spanning]).toBeLessThan(boundary);
      expect(file.offsets[spanning]! + Buffer.byteLength(lines[spanning]!)).toBeGreaterThan(boundary); // really spans it

      const r = await runCli(['ingest', '--root', study.root, '--json']);
      expect(r.code).toBe(0);
      expect(r.json.totals).toMatchObject({ lines_read: lines.length, accepted: lines.length, rejected: 0 });
      const [row] = await query(
        join(study.root, 'work/prereg.duckdb'),
        `SELECT byte_offset::BIGINT AS byte_offset, line_sha256, answer_text FROM records WHERE line_no = ${spanning + 1}`,
      );
      expect(row).toEqual({
        byte_offset: String(file.offsets[spanning]),
        line_sha256: sha256(lines[spanning]!),
        answer_text: `réponse ${spanning} `.repeat(60),
      });
    } finally {
      study.cleanup();
    }
  });
});

describe('prereg ingest: the database is a cache', () => {
  let study: Awaited<ReturnType<typeof frozenStudy>>;
  const ingest = (...extra: string[]) => runCli(['ingest', '--root', study.root, '--json', ...extra]);
  beforeAll(async () => {
    study = await frozenStudy();
    writeFileSync(join(study.submissions, 'a.jsonl'), jsonl([submissionLine()]).data);
  });
  afterAll(() => study.cleanup());

  it('builds, then skips while the inputs are unchanged, and rebuilds (saying why) when they change', async () => {
    const first = await ingest();
    expect(first.json).toMatchObject({ skipped: false, reason: 'no database yet' });
    const second = await ingest();
    expect(second.json).toMatchObject({
      skipped: true,
      reason: 'inputs unchanged since the last ingest',
      inputs_digest: first.json.inputs_digest,
      totals: first.json.totals,
    });

    appendFileSync(join(study.submissions, 'a.jsonl'), `${submissionLine({ attempt: 2 })}\n`);
    const changed = await ingest();
    expect(changed.json).toMatchObject({ skipped: false, reason: 'inputs changed: inputs/submissions/a.jsonl changed' });
    expect(changed.json.totals).toMatchObject({ lines_read: 2, accepted: 2 });
    expect(changed.json.inputs_digest).not.toBe(first.json.inputs_digest);

    writeFileSync(join(study.submissions, 'b.jsonl'), jsonl([submissionLine({ system_id: 'sys-b' })]).data);
    expect((await ingest()).json.reason).toBe('inputs changed: inputs/submissions/b.jsonl added');
    renameSync(join(study.submissions, 'b.jsonl'), join(study.submissions, 'c.jsonl'));
    expect((await ingest()).json.reason).toBe('inputs changed: inputs/submissions/c.jsonl added; inputs/submissions/b.jsonl removed');
    const studyFile = join(study.root, 'preregistration/study.json');
    writeFileSync(studyFile, JSON.stringify({ ...JSON.parse(readFileSync(studyFile, 'utf8')), limits: { max_line_bytes: 5000 } }));
    expect((await ingest()).json.reason).toBe('inputs changed: limits.max_line_bytes 4194304 → 5000');
    expect((await ingest()).json.skipped).toBe(true);
    expect((await ingest('--force')).json).toMatchObject({ skipped: false, reason: '--force' });

    const rows = await query(join(study.root, 'work/prereg.duckdb'), 'SELECT count(*)::INTEGER AS n FROM records');
    expect(rows).toEqual([{ n: 3 }]);
  });

  it('rebuilds the database after it was deleted, or when it is damaged', async () => {
    const db = join(study.root, 'work/prereg.duckdb');
    rmSync(db);
    const r = await ingest();
    expect(r.json).toMatchObject({ skipped: false, reason: 'no database yet' });
    expect(await query(db, 'SELECT count(*)::INTEGER AS n FROM records')).toEqual([{ n: 3 }]);

    writeFileSync(db, 'not a database');
    const damaged = await ingest();
    expect(damaged.code).toBe(0);
    expect(damaged.json.reason).toMatch(/^the database could not be opened/);
    expect(await query(db, 'SELECT count(*)::INTEGER AS n FROM records')).toEqual([{ n: 3 }]);
  });
});

describe('prereg ingest: blocked without frozen items (exit 3)', () => {
  it('refuses without freeze.json, with drifted items, or without inputs/submissions/', async () => {
    const study = await frozenStudy();
    try {
      const items = join(study.root, 'corpus/items.jsonl');
      appendFileSync(items, '{"item_id": "mp-999", "question": "added after the freeze?"}\n');
      let r = await runCli(['ingest', '--root', study.root, '--json']);
      expect([r.code, r.json.code]).toEqual([3, 'CORPUS_DRIFT']);

      rmSync(join(study.root, 'preregistration/freeze.json'));
      r = await runCli(['ingest', '--root', study.root, '--json']);
      expect([r.code, r.json.code]).toEqual([3, 'FREEZE_MISSING']);

      writeFileSync(join(study.root, 'preregistration/freeze.json'), '{"format": "prereg.freeze/1"}');
      r = await runCli(['ingest', '--root', study.root, '--json']);
      expect([r.code, r.json.code]).toEqual([3, 'FREEZE_INVALID']);
    } finally {
      study.cleanup();
    }
    const other = await frozenStudy();
    try {
      rmSync(other.submissions, { recursive: true });
      const r = await runCli(['ingest', '--root', other.root, '--json']);
      expect([r.code, r.json.code]).toEqual([3, 'FILE_NOT_FOUND']);
      mkdirSync(other.submissions);
      mkdirSync(join(other.submissions, 'dir.jsonl'));
      const unsafe = await runCli(['ingest', '--root', other.root, '--json']);
      expect([unsafe.code, unsafe.json.code]).toEqual([4, 'SUBMISSION_PATH_UNSAFE']);
    } finally {
      other.cleanup();
    }
  });

  it("refuses --max-line-bytes as usage (exit 2): the limit is the study's, set once in study.json", async () => {
    const r = await runCli(['ingest', '--root', PROJECT_ROOT, '--max-line-bytes', '67108864', '--json']);
    expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
    expect(r.json.message).toContain('limits.max_line_bytes');
  });
});

describe("the line limit is the study's (study.json limits.max_line_bytes), honoured by every stage", () => {
  let study: Awaited<ReturnType<typeof frozenStudy>>;
  const long = submissionLine({ system_id: 'sys-long', answer: { text: 'x'.repeat(400), refused: false, truncated: false } });
  beforeAll(async () => {
    study = await frozenStudy({ maxLineBytes: 300 });
    writeFileSync(join(study.submissions, 'a.jsonl'), jsonl([submissionLine(), long]).data);
  });
  afterAll(() => study.cleanup());

  it('ingest, then verify (which re-ingests when stale) and validate all apply the same limit', async () => {
    const ingested = await runCli(['ingest', '--root', study.root, '--json']);
    expect(ingested.json).toMatchObject({
      max_line_bytes: 300,
      totals: { accepted: 1, rejected: 1, rejects_by_code: { LINE_TOO_LONG: 1 } },
    });
    const verified = await runCli(['verify', '--root', study.root, '--json']);
    expect(verified.code, verified.stdout).toBe(0);
    const rejects = await query(join(study.root, 'work/prereg.duckdb'), 'SELECT reason_code FROM rejects');
    expect(rejects).toEqual([{ reason_code: 'LINE_TOO_LONG' }]);
    const validated = await runCli(['validate', join(study.submissions, 'a.jsonl'), '--root', study.root, '--json']);
    expect(validated.json).toMatchObject({ max_line_bytes: 300, totals: { rejects_by_code: { LINE_TOO_LONG: 1 } } });
  });
});

describe('the number of systems is bounded by the study (limits.max_systems): pairwise outputs grow with its square', () => {
  it('one system more than the bound: STUDY_TOO_MANY_SYSTEMS, exit 3, no store; at the bound: ingested', async () => {
    const study = await frozenStudy({ maxSystems: 2 });
    try {
      const lines = ['sys-a', 'sys-b', 'sys-c'].map((system_id) => submissionLine({ system_id }));
      writeFileSync(join(study.submissions, 'a.jsonl'), jsonl(lines).data);
      const over = await runCli(['ingest', '--root', study.root, '--json']);
      expect([over.code, over.json.code]).toEqual([3, 'STUDY_TOO_MANY_SYSTEMS']);
      expect(over.json.message).toContain('inputs/submissions/a.jsonl:3');
      expect(existsSync(join(study.root, 'work/prereg.duckdb'))).toBe(false);
      writeFileSync(join(study.submissions, 'a.jsonl'), jsonl(lines.slice(0, 2)).data);
      const at = await runCli(['ingest', '--root', study.root, '--json']);
      expect(at.code, at.stdout).toBe(0);
      expect(at.json.totals.accepted).toBe(2);
    } finally {
      study.cleanup();
    }
  });
});
