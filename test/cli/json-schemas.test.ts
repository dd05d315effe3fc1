// The published --json shapes (schemas/cli/*.schema.json, docs/cli-json.md): every document and
// JSON line that doctor, status, validate, verify (study and files), check-anchors and audit print,
// and every error document, validates against the schema its schema_version names — in passing
// and failing states, on one copy of the example study and one run. The schemas are closed
// (additionalProperties: false), so an undocumented member fails here; the last tests show that
// they do reject, and that each command declaring a schema has its file and no file is orphaned.
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StageContext } from '../../pipeline/command.ts';
import { COMMANDS } from '../../pipeline/stages/registry.ts';
import { auditorFlags } from '../support/auditor.ts';
import { copyExampleStudy, PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS, type CliRun } from '../support/cli.ts';
import { copyTree, flipByte, scratchDir } from '../audit/helpers.ts';

const SCHEMA_DIR = join(PROJECT_ROOT, 'schemas/cli');

/** schema_version → file name: `prereg.verify-files/2` → verify-files.schema.json. */
const fileOf = (version: string): string => `${/^prereg\.([a-z-]+)\/\d+$/.exec(version)![1]}.schema.json`;

interface Schema {
  $id: string;
  title: string;
  properties: { schema_version: { const: string } };
}

const schemas = new Map<string, { file: string; schema: Schema; validate: ValidateFunction }>();
/** Documents validated, by schema_version (the last test requires every schema to have been exercised). */
const seen = new Map<string, unknown[]>();

/** Every JSON line `r` printed validates against its schema_version's schema, which is `expected`. */
function conforms(r: CliRun, expected: string, exitCode?: number): any[] {
  if (exitCode !== undefined) expect(r.code, r.stdout.slice(0, 2000) + r.stderr).toBe(exitCode);
  expect(r.jsonLines.length, r.stdout + r.stderr).toBeGreaterThan(0);
  for (const doc of r.jsonLines) {
    expect(Object.keys(doc)[0], 'schema_version comes first').toBe('schema_version');
    expect(doc.schema_version).toBe(expected);
    const s = schemas.get(doc.schema_version);
    expect(s, `a schema for ${doc.schema_version}`).toBeDefined();
    expect(s!.schema.properties.schema_version.const).toBe(doc.schema_version);
    const ok = s!.validate(doc);
    expect(ok, `${s!.file}: ${JSON.stringify(s!.validate.errors, null, 1)}\n${JSON.stringify(doc).slice(0, 1500)}`).toBe(true);
    seen.set(expected, [...(seen.get(expected) ?? []), doc]);
  }
  return r.jsonLines;
}

let root: string;
let cleanup: () => void;
let outputsDir: string;
const tmp = scratchDir('prereg-json-schemas-');

beforeAll(() => {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  for (const file of readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.schema.json'))) {
    const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8')) as Schema;
    schemas.set(schema.properties.schema_version.const, { file, schema, validate: ajv.compile(schema) });
  }
  ({ root, cleanup } = copyExampleStudy());
});
afterAll(() => {
  cleanup?.();
  tmp.cleanup();
});

describe('schemas/cli', () => {
  it('compile under ajv (draft 2020-12, strict); each is named by its file, its $id and its schema_version', () => {
    expect([...schemas.values()].map((s) => s.file).sort()).toEqual([
      'audit.schema.json', 'check-anchors.schema.json', 'doctor.schema.json', 'error.schema.json',
      'status.schema.json', 'validate.schema.json', 'verify-files.schema.json', 'verify.schema.json',
    ]);
    for (const [version, s] of schemas) {
      expect(s.file).toBe(fileOf(version));
      expect(s.schema.$id).toBe(`https://prereg.example/schemas/cli/${s.file}`);
      expect(s.schema.title.startsWith(`${version}: `)).toBe(true);
    }
  });
});

describe('--json output conforms to schemas/cli, before the run', () => {
  it('doctor: ready with the keys; blocked without them (a problem with its exitCode)', async () => {
    const [ready] = conforms(await runCli(['doctor', '--root', root, '--json', ...TEST_OPERATOR_ARGS]), 'prereg.doctor/1', 0);
    expect(ready.status).toBe('ready');
    const [blocked] = conforms(await runCli(['doctor', '--root', root, '--json']), 'prereg.doctor/1', 3);
    expect(blocked.stages[3].problems.map((p: { exitCode?: number }) => p.exitCode)).toContain(3);
  });

  it('status on a fresh study: every stage stale', async () => {
    const [fresh] = conforms(await runCli(['status', '--root', root, '--json']), 'prereg.status/1', 0);
    expect(fresh.stages.map((s: { state: string }) => s.state)).toEqual(['stale', 'stale', 'stale', 'stale', 'stale']);
  });

  it('validate: good lines; bad lines (duplicate, unknown item, bad JSON, schema) with and without the study items', async () => {
    const good = join(root, 'inputs/submissions/sys-honest.jsonl');
    const [ok] = conforms(await runCli(['validate', good, '--root', root, '--json']), 'prereg.validate/1', 0);
    expect([ok.ok, ok.items_checked, ok.rejects]).toEqual([true, true, []]);
    const bad = join(tmp.path, 'bad.jsonl');
    writeFileSync(bad, `${readFileSync(good, 'utf8').split('\n')[0]}\n{"format": \n{"format":"prereg.submission/1"}\n`);
    const [rejected] = conforms(await runCli(['validate', join(root, 'inputs/submissions/sys-tampered.jsonl'), bad, '--root', root, '--json']), 'prereg.validate/1', 1);
    expect(Object.keys(rejected.totals.rejects_by_code).length).toBeGreaterThanOrEqual(3);
    expect(rejected.rejects.some((r: { column_no: number | null }) => r.column_no !== null)).toBe(true);
    // No study under --root: item ids not checked, a note says so, no items_file.
    mkdirSync(join(tmp.path, 'no-study'));
    const [unchecked] = conforms(await runCli(['validate', bad, '--root', join(tmp.path, 'no-study'), '--json']), 'prereg.validate/1', 1);
    expect([unchecked.items_checked, unchecked.notes.length, 'items_file' in unchecked]).toEqual([false, 1, false]);
  });

  it('check-anchors: passing under the auditor root; failing on an unexpected freeze digest and too few witnesses', async () => {
    const [pass] = conforms(await runCli(['check-anchors', '--root', root, ...auditorFlags().slice(0, 2), '--json']), 'prereg.check-anchors/1', 0);
    expect([pass.ok, pass.roots]).toEqual([true, 'auditor']);
    const [studyRoots] = conforms(await runCli(['check-anchors', '--root', root, '--json']), 'prereg.check-anchors/1', 0);
    expect(studyRoots.roots).toBe('study');
    const [fail] = conforms(await runCli(['check-anchors', '--root', root, '--expect-freeze', '0'.repeat(64), '--min-witnesses', '2', '--json']), 'prereg.check-anchors/1', 1);
    expect(fail.reason_codes).toEqual(['ANCHOR_INSUFFICIENT', 'FREEZE_DIGEST_UNEXPECTED']);
  });
});

describe('--json output conforms to schemas/cli, after one run', () => {
  beforeAll(async () => {
    const run = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // run publishes no schema yet: its --json output carries no schema_version (docs/cli-json.md).
    expect(run.json.schema_version).toBeUndefined();
    outputsDir = run.json.dir as string;
  });

  it('status: every stage current', async () => {
    const [after] = conforms(await runCli(['status', '--root', root, '--json']), 'prereg.status/1', 0);
    expect(after.stages.map((s: { state: string }) => s.state)).toEqual(['current', 'current', 'current', 'current', 'current']);
  });

  it('verify in the study: skipped (the recorded counts), then rerun with --force', async () => {
    const [skipped] = conforms(await runCli(['verify', '--root', root, '--json']), 'prereg.verify/1', 0);
    expect(skipped.skipped).toBe(true);
    const [forced] = conforms(await runCli(['verify', '--root', root, '--force', '--json']), 'prereg.verify/1', 0);
    expect([forced.skipped, forced.reason]).toEqual([false, '--force']);
  });

  it('verify FILE…: a proof, an evidence item, a receipt, an unparsable file and a submission file whose timelines fail', async () => {
    const dir = join(tmp.path, 'files');
    mkdirSync(dir);
    const line = JSON.parse(readFileSync(join(root, 'inputs/submissions/sys-honest.jsonl'), 'utf8').split('\n')[0]!);
    writeFileSync(join(dir, 'a-evidence.json'), JSON.stringify(line.evidence[0]));
    writeFileSync(join(dir, 'b-proof.json'), JSON.stringify(line.evidence[0].proof));
    const vectors = JSON.parse(readFileSync(join(PROJECT_ROOT, 'test/fixtures/real/aer1/reference-vectors.json'), 'utf8')) as { vectors: Array<{ kind: string; receipt?: unknown }> };
    writeFileSync(join(dir, 'c-receipt.json'), JSON.stringify(vectors.vectors.find((v) => v.kind === 'receipt')!.receipt));
    writeFileSync(join(dir, 'd-broken.json'), '{"proof": ');
    const truncated = join(root, 'inputs/submissions/sys-truncated.jsonl');
    const lines = conforms(await runCli(['verify', '--root', root, dir, truncated, '--json']), 'prereg.verify-files/2', 1);
    expect(new Set(lines.map((l) => l.kind))).toEqual(new Set(['evidence', 'proof', 'receipt', 'unknown', 'chain']));
    expect(lines.some((l) => l.kind === 'chain' && l.status === 'UNANCHORED' && l.line !== undefined && l.part === 'receipts')).toBe(true);
  });

  it('verify FILE… --commitments with malformed lines: one line of kind "commitment" each', async () => {
    const commitments = join(tmp.path, 'bad-commitments.jsonl');
    writeFileSync(commitments, '{"job_id":"x"}\nnot json\n');
    const one = join(tmp.path, 'one-line.jsonl');
    writeFileSync(one, `${readFileSync(join(root, 'inputs/submissions/sys-honest.jsonl'), 'utf8').split('\n')[0]}\n`);
    const lines = conforms(await runCli(['verify', '--root', root, '--commitments', commitments, one, '--json']), 'prereg.verify-files/2', 1);
    expect(lines.filter((l) => l.kind === 'commitment').map((l) => [l.line, l.status])).toEqual([[1, 'MALFORMED'], [2, 'MALFORMED']]);
  });

  it('audit: VALID on the emitted directory; INVALID on a copy whose results.json was tampered with', async () => {
    const [valid] = conforms(await runCli(['audit', outputsDir, '--root', root, ...auditorFlags(), '--json']), 'prereg.audit/1', 0);
    expect(valid.verdict).toBe('valid');
    const copy = copyTree(outputsDir, join(tmp.path, 'tampered-outputs'));
    flipByte(join(copy, 'results.json'), { needle: 'copycat', index: 5 });
    const [invalid] = conforms(await runCli(['audit', copy, '--root', root, ...auditorFlags(), '--json']), 'prereg.audit/1', 1);
    expect(invalid.verdict).toBe('invalid');
    expect(invalid.first_difference).toMatchObject({ file: 'results.json' });
    expect(invalid.rails.filter((r: { ok: boolean; differences?: unknown[] }) => !r.ok && r.differences).length).toBeGreaterThan(0);
  });

  it('after drift (a corpus file changed, an anchor token tampered with): doctor blocked (drift exits 3, as in every command), status blocked, check-anchors failing', async () => {
    appendFileSync(join(root, 'corpus/ccag-travaux.md'), '\n');
    const anchors = join(root, 'preregistration/anchors');
    const token = readdirSync(anchors).find((f) => f.endsWith('.tsr'))!;
    flipByte(join(anchors, token), 100);
    const [doctor] = conforms(await runCli(['doctor', '--root', root, '--json', ...TEST_OPERATOR_ARGS]), 'prereg.doctor/1', 3);
    expect(doctor.status).toBe('blocked');
    const [status] = conforms(await runCli(['status', '--root', root, '--json']), 'prereg.status/1', 3);
    expect(status.stages.find((s: { state: string }) => s.state === 'blocked').code).toMatch(/^[A-Z_]+$/);
    const [anchorsDoc] = conforms(await runCli(['check-anchors', '--root', root, ...auditorFlags().slice(0, 2), '--json']), 'prereg.check-anchors/1', 1);
    expect(anchorsDoc.reason_codes).toContain('CORPUS_DRIFT');
    expect(anchorsDoc.witnesses.some((w: { ok: boolean; reason_codes: string[] }) => !w.ok && w.reason_codes.length > 0)).toBe(true);
  });
});

describe('--json error documents conform to schemas/cli/error.schema.json', () => {
  it('a missing file, a missing directory, nothing to verify, no freeze, an unknown option, an unknown command', async () => {
    const empty = join(tmp.path, 'empty');
    mkdirSync(empty);
    const cases: Array<[string[], string]> = [
      [['validate', join(tmp.path, 'missing.jsonl'), '--json'], 'FILE_NOT_FOUND'],
      [['audit', join(tmp.path, 'missing-dir'), '--root', root, '--json'], 'FILE_NOT_FOUND'],
      [['verify', '--root', root, empty, '--json'], 'NOTHING_TO_VERIFY'],
      [['check-anchors', '--root', empty, '--json'], 'FREEZE_MISSING'],
      [['doctor', '--bogus', '--json'], 'USAGE'],
      [['bogus', '--json'], 'USAGE'],
    ];
    for (const [args, code] of cases) {
      const r = await runCli(args);
      expect(r.code).not.toBe(0);
      const [doc] = conforms(r, 'prereg.error/1');
      expect(doc.code).toBe(code);
    }
  });
});

describe('the schemas can fail', () => {
  /** A copy of a real document of `version`, changed by `edit`. */
  const edited = (version: string, edit: (doc: any) => void): unknown => {
    const doc = structuredClone(seen.get(version)?.[0]);
    expect(doc, `a ${version} document was printed above`).toBeDefined();
    edit(doc);
    return doc;
  };
  const rejects = (version: string, doc: unknown, keyword: string) => {
    const { validate } = schemas.get(version)!;
    expect(validate(doc)).toBe(false);
    expect(validate.errors!.map((e) => e.keyword)).toContain(keyword);
  };

  it('every schema was exercised above, and rejects its real document with one undocumented member more', () => {
    expect([...seen.keys()].sort()).toEqual([...schemas.keys()].sort());
    for (const version of schemas.keys()) rejects(version, edited(version, (d) => void (d.undocumented = true)), 'additionalProperties');
  });

  it('rejects a wrong status word, state, check outcome, reason code, nested member or schema_version', () => {
    rejects('prereg.doctor/1', edited('prereg.doctor/1', (d) => void (d.stages[0].status = 'fine')), 'enum');
    rejects('prereg.status/1', edited('prereg.status/1', (d) => void (d.stages[0].state = 'fresh')), 'enum');
    const line = seen.get('prereg.verify-files/2')!.find((l: any) => l.kind === 'chain');
    rejects('prereg.verify-files/2', { ...structuredClone(line as object), checks: { ...(line as any).checks, links: 'passed' } }, 'enum');
    rejects('prereg.verify-files/2', { ...structuredClone(line as object), checks: { ...(line as any).checks, extra: 'pass' } }, 'additionalProperties');
    rejects('prereg.verify-files/2', { ...structuredClone(line as object), status: 'VERIFIED' }, 'enum');
    rejects('prereg.validate/1', edited('prereg.validate/1', (d) => void (d.totals.unknown = 0)), 'additionalProperties');
    rejects('prereg.check-anchors/1', edited('prereg.check-anchors/1', (d) => void (d.witnesses[0].note = '')), 'additionalProperties');
    rejects('prereg.audit/1', edited('prereg.audit/1', (d) => void (d.rails[0].code = 'not a code')), 'enum');
    rejects('prereg.audit/1', edited('prereg.audit/1', (d) => void (d.verdict = 'VALID')), 'enum');
    rejects('prereg.verify/1', edited('prereg.verify/1', (d) => void (d.proofs_by_status.FINE = 1)), 'enum');
    rejects('prereg.error/1', edited('prereg.error/1', (d) => void (d.code = 'file_not_found')), 'pattern');
    rejects('prereg.doctor/1', edited('prereg.doctor/1', (d) => void (d.schema_version = 'prereg.doctor/2')), 'const');
  });
});

describe('the commands that publish a schema', () => {
  it('each command declaring jsonSchema has its schema file, and each file but error.schema.json is declared by a command', async () => {
    const declared = new Set<string>();
    for (const entry of COMMANDS) {
      const command = await entry.load();
      for (const positionals of [[], ['FILE']]) {
        const version = command.jsonSchema?.({ positionals } as unknown as StageContext);
        if (version !== undefined) declared.add(version);
      }
    }
    for (const version of declared) expect(readdirSync(SCHEMA_DIR), version).toContain(fileOf(version));
    expect([...declared, 'prereg.error/1'].map(fileOf).sort()).toEqual(readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('.schema.json')).sort());
  });
});
