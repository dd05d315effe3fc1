// `prereg audit` on a real run of the example study: every rail passes on the emitted directory,
// two runs from clean give identical directories, the audit writes nothing into the study or the
// audited directory, and the exit codes of SPEC §10. Tampering: tamper-outputs and tamper-inputs.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parquetDifference, textDifference } from '../../pipeline/audit/compare.ts';
import { RAIL_NAMES, renderReport, type AuditReport } from '../../pipeline/audit/rails.ts';
import { REASONS } from '../../pipeline/reasons.ts';
import { openStore } from '../../pipeline/store/db.ts';
import { runCli } from '../support/cli.ts';
import { audit, copyTree, emittedStudy, scratchDir, treeOf, type EmittedStudy } from './helpers.ts';

// This file's scratch directories (the audit's rerun included) go to a private TMPDIR, so that
// "the rerun's scratch directory is removed" can be checked without other test files' noise.
const tmp = scratchDir('prereg-audit-tests-');
const savedTmp = process.env.TMPDIR;
process.env.TMPDIR = tmp.path;

let study: EmittedStudy;
let valid: { code: number; report: AuditReport };
let before: Map<string, Buffer>;

beforeAll(async () => {
  study = await emittedStudy();
  before = treeOf(study.root);
  valid = await audit(study.dir, study.root);
});
afterAll(() => {
  study?.cleanup();
  process.env.TMPDIR = savedTmp;
  tmp.cleanup();
});

describe('prereg audit on a run of the example study', () => {
  it('is valid: every rail passes, exit 0, no code', () => {
    expect(
      valid.code,
      JSON.stringify(
        valid.report.rails.filter((r) => !r.ok),
        null,
        1,
      ),
    ).toBe(0);
    expect(valid.report.verdict).toBe('valid');
    expect(valid.report.ok).toBe(true);
    expect(valid.report.rails.map((r) => [r.name, r.ok])).toEqual(RAIL_NAMES.map((n) => [n, true]));
    expect(valid.report.reason_codes).toEqual([]);
    expect(valid.report.first_difference).toBeNull();
    expect(valid.report.rerun).toEqual({ run_id: valid.report.run_id, refused: null });
    expect(valid.report.run_id).toBe(study.dir.split('/').pop());
  });

  it('states what an audit proves and what it does not, in JSON and in text', () => {
    expect(valid.report.proves.join(' ')).toMatch(/reproducibility/);
    expect(valid.report.proves.join(' ')).toMatch(/integrity/);
    expect(valid.report.does_not_prove.join(' ')).toMatch(/evidence was truthful/);
    expect(valid.report.does_not_prove.join(' ')).toMatch(/witnesses saw every action/);
    const text = renderReport(valid.report);
    expect(text).toContain('verdict: VALID');
    expect(text).toContain('What it does not prove:');
    for (const name of RAIL_NAMES) expect(text).toMatch(new RegExp(`ok {4}${name}`));
  });

  it('writes nothing into the study or the audited directory, and removes its scratch directory', () => {
    const after = treeOf(study.root);
    expect([...after.keys()]).toEqual([...before.keys()]);
    for (const [file, bytes] of before) expect(after.get(file)!.equals(bytes), file).toBe(true);
    expect(readdirSync(tmp.path).filter((n) => n.startsWith('prereg-audit-') && !n.startsWith('prereg-audit-tests-'))).toEqual([]);
  });

  it('two `prereg run`s from clean copies give byte-identical output directories', async () => {
    const second = await emittedStudy();
    try {
      expect(second.dir.split('/').pop()).toBe(study.dir.split('/').pop());
      const a = treeOf(study.dir);
      const b = treeOf(second.dir);
      expect([...b.keys()]).toEqual([...a.keys()]);
      expect(a.size).toBe(12);
      for (const [file, bytes] of a) expect(b.get(file)!.equals(bytes), file).toBe(true);
    } finally {
      second.cleanup();
    }
  });

  it('finds an output directory without manifest.json incomplete and invalid (exit 1, AUDIT_INCOMPLETE)', async () => {
    const copy = copyTree(study.dir, join(tmp.path, 'incomplete'));
    rmSync(join(copy, 'manifest.json'));
    const r = await audit(copy, study.root);
    expect(r.code).toBe(1);
    expect(r.report.verdict).toBe('invalid');
    expect(r.report.rails.find((x) => x.name === 'complete')).toMatchObject({
      ok: false,
      code: 'AUDIT_INCOMPLETE',
      first_difference: { file: 'manifest.json' },
    });
    expect(r.report.first_difference).toMatchObject({ rail: 'complete', file: 'manifest.json' });
    expect(r.report.reason_codes).toContain('AUDIT_INCOMPLETE');
    // The rerun still runs, and names the missing file too.
    expect(r.report.rails.find((x) => x.name === 'reproduced')!.first_difference).toMatchObject({ file: 'manifest.json' });
  });
});

describe('prereg audit: usage and exit codes', () => {
  it('exit 2 without an output directory, 3 when it does not exist or the study has no inputs', async () => {
    const none = await runCli(['audit', '--root', study.root, '--json']);
    expect(none.code).toBe(2);
    expect(none.json.code).toBe('USAGE');
    const missing = await runCli(['audit', join(study.root, 'outputs/nope'), '--root', study.root, '--json']);
    expect(missing.code).toBe(3);
    expect(missing.json.code).toBe('FILE_NOT_FOUND');
    const empty = join(tmp.path, 'empty-study');
    mkdirSync(empty);
    const noStudy = await runCli(['audit', study.dir, '--root', empty, '--json']);
    expect(noStudy.code).toBe(3);
    expect(noStudy.json.code).toBe('AUDIT_STUDY_UNREADABLE');
  });

  it('has a reason code for every rail, explained by `prereg explain`', async () => {
    for (const code of [
      'AUDIT_INCOMPLETE',
      'AUDIT_SCHEMA_INVALID',
      'AUDIT_SIGNATURE_INVALID',
      'AUDIT_ANCHORS_INVALID',
      'AUDIT_INPUT_CHANGED',
      'AUDIT_NOT_REPRODUCED',
      'AUDIT_DIGEST_MISMATCH',
      'AUDIT_DECISIONS_DIFFER',
      'AUDIT_STUDY_UNREADABLE',
    ]) {
      expect(REASONS).toHaveProperty(code);
    }
    const r = await runCli(['explain', 'AUDIT_NOT_REPRODUCED', '--json']);
    expect(r.code).toBe(0);
  });
});

describe('naming the first difference', () => {
  it('in a text file: the first differing line, with both versions', () => {
    const d = textDifference('report.md', Buffer.from('a\nb\nc\n'), Buffer.from('a\nb\nC\n'));
    expect(d).toMatchObject({ file: 'report.md', row: 3 });
    expect(d.message).toContain('"c"');
    expect(d.message).toContain('"C"');
  });

  it('in a Parquet file: the first differing row read back with DuckDB', async () => {
    const dir = join(tmp.path, 'parquet');
    mkdirSync(dir);
    const mem = await openStore(':memory:');
    try {
      for (const [name, changed] of [
        ['a', 'x'],
        ['b', 'y'],
      ] as const) {
        await mem.connection.run(
          `COPY (SELECT i, CASE WHEN i = 41 THEN '${changed}' ELSE 'same' END AS v FROM range(100) t(i) ORDER BY i) TO '${join(dir, `${name}.parquet`)}' (FORMAT parquet)`,
        );
      }
    } finally {
      mem.close();
    }
    const d = await parquetDifference('assertions.parquet', join(dir, 'a.parquet'), join(dir, 'b.parquet'));
    expect(d).toMatchObject({ file: 'assertions.parquet', row: 42 });
    writeFileSync(join(dir, 'broken.parquet'), 'not parquet');
    expect((await parquetDifference('x.parquet', join(dir, 'broken.parquet'), join(dir, 'b.parquet'))).message).toMatch(
      /cannot be read back as Parquet/,
    );
  });
});
