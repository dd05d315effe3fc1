// The published --json shapes (schemas/cli/*.schema.json, docs/cli-json.md): every document and
// JSON line that every command prints, and every error document, validates against the schema its
// schema_version names — in passing and failing states, on one copy of the example study and one
// run, and on one small rehearsal walked from init to the seal. The schemas are closed
// (additionalProperties: false), so an undocumented member fails here; the last tests show that
// they do reject, and that each command declaring a schema has its file and no file is orphaned.
import { generateKeyPairSync } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StageContext } from '../../pipeline/command.ts';
import { COMMANDS } from '../../pipeline/stages/registry.ts';
import { TOOL_VERSION } from '../../pipeline/version.ts';
import { auditorFlags } from '../support/auditor.ts';
import { copyExampleStudy, PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS, type CliRun } from '../support/cli.ts';
import { devTsa, stopDevTsas } from '../support/dev-tsa-process.ts';
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
function conforms(r: Pick<CliRun, 'code' | 'stdout' | 'stderr' | 'jsonLines'>, expected: string, exitCode?: number): any[] {
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
  stopDevTsas();
  cleanup?.();
  tmp.cleanup();
});

describe('schemas/cli', () => {
  it('compile under ajv (draft 2020-12, strict); each is named by its file, its $id and its schema_version', () => {
    expect([...schemas.values()].map((s) => s.file).sort()).toEqual(
      [
        'anchor',
        'audit',
        'check-anchors',
        'classify',
        'commitment',
        'corpus-proof-prove',
        'corpus-proof-verify',
        'deviation-recorded',
        'dev-add-system',
        'dev-issue',
        'dev-keys',
        'dev-tsa',
        'docs',
        'doctor',
        'emit',
        'error',
        'explain',
        'freeze',
        'ingest',
        'init',
        'intake',
        'intake-receipt',
        'reveal-check',
        'run',
        'score',
        'seal',
        'status',
        'submission-build',
        'submission-sign',
        'trust-certify-intake-key',
        'trust-import-arkforge',
        'validate',
        'verify',
        'verify-files',
        'verify-shard',
        'verify-token',
        'version',
      ]
        .map((shape) => `${shape}.schema.json`)
        .sort(),
    );
    for (const [version, s] of schemas) {
      expect(s.file).toBe(fileOf(version));
      expect(s.schema.$id).toBe(`https://prereg.example/schemas/cli/${s.file}`);
      expect(s.schema.title.startsWith(`${version}: `)).toBe(true);
    }
  });
});

describe('--json output conforms to schemas/cli, before the run', () => {
  it('doctor: ready with the keys; blocked without them (a problem with its exitCode)', async () => {
    const [ready] = conforms(await runCli(['doctor', '--root', root, '--json', ...TEST_OPERATOR_ARGS]), 'prereg.doctor/2', 0);
    expect(ready.status).toBe('ready');
    const [blocked] = conforms(await runCli(['doctor', '--root', root, '--json']), 'prereg.doctor/2', 3);
    expect(blocked.stages[3].problems.map((p: { exitCode?: number }) => p.exitCode)).toContain(3);
  });

  it('status on a fresh study: every stage stale', async () => {
    const [fresh] = conforms(await runCli(['status', '--root', root, '--json']), 'prereg.status/2', 0);
    expect(fresh.stages.map((s: { state: string }) => s.state)).toEqual(['stale', 'stale', 'stale', 'stale', 'stale']);
  });

  it('validate: good lines; bad lines (duplicate, unknown item, bad JSON, schema) with and without the study items', async () => {
    const good = join(root, 'inputs/submissions/sys-honest.jsonl');
    const [ok] = conforms(await runCli(['validate', good, '--root', root, '--json']), 'prereg.validate/1', 0);
    expect([ok.ok, ok.items_checked, ok.rejects]).toEqual([true, true, []]);
    const bad = join(tmp.path, 'bad.jsonl');
    writeFileSync(bad, `${readFileSync(good, 'utf8').split('\n')[0]}\n{"format": \n{"format":"prereg.submission/1"}\n`);
    const [rejected] = conforms(
      await runCli(['validate', join(root, 'inputs/submissions/sys-tampered.jsonl'), bad, '--root', root, '--json']),
      'prereg.validate/1',
      1,
    );
    expect(Object.keys(rejected.totals.rejects_by_code).length).toBeGreaterThanOrEqual(3);
    expect(rejected.rejects.some((r: { column_no: number | null }) => r.column_no !== null)).toBe(true);
    // No study under --root: item ids not checked, a note says so, no items_file.
    mkdirSync(join(tmp.path, 'no-study'));
    const [unchecked] = conforms(await runCli(['validate', bad, '--root', join(tmp.path, 'no-study'), '--json']), 'prereg.validate/1', 1);
    expect([unchecked.items_checked, unchecked.notes.length, 'items_file' in unchecked]).toEqual([false, 1, false]);
  });

  it('check-anchors: passing under the auditor root; failing on an unexpected freeze digest and too few witnesses', async () => {
    const [pass] = conforms(
      await runCli(['check-anchors', '--root', root, ...auditorFlags().slice(0, 2), '--json']),
      'prereg.check-anchors/1',
      0,
    );
    expect([pass.ok, pass.roots]).toEqual([true, 'auditor']);
    const [studyRoots] = conforms(await runCli(['check-anchors', '--root', root, '--json']), 'prereg.check-anchors/1', 0);
    expect(studyRoots.roots).toBe('study');
    const [fail] = conforms(
      await runCli(['check-anchors', '--root', root, '--expect-freeze', '0'.repeat(64), '--min-witnesses', '2', '--json']),
      'prereg.check-anchors/1',
      1,
    );
    expect(fail.reason_codes).toEqual(['ANCHOR_INSUFFICIENT', 'FREEZE_DIGEST_UNEXPECTED']);
  });
});

describe('--json output conforms to schemas/cli, in the frozen example', () => {
  it('corpus-proof: a proof (the text is the proof file, --json wraps it); checked, passing, and failing against another file', async () => {
    const made = await runCli(['corpus-proof', 'ccag-travaux.md', '--root', root, '--json']);
    const [wrapped] = conforms(made, 'prereg.corpus-proof-prove/1', 0);
    const proofFile = join(tmp.path, 'corpus-proof.json');
    writeFileSync(proofFile, (await runCli(['corpus-proof', 'ccag-travaux.md', '--root', root])).stdout);
    expect(JSON.parse(readFileSync(proofFile, 'utf8'))).toEqual(wrapped.proof);
    const file = join(root, 'corpus/ccag-travaux.md');
    conforms(
      await runCli(['corpus-proof', '--verify', proofFile, '--file', file, '--root', root, '--json']),
      'prereg.corpus-proof-verify/1',
      0,
    );
    const other = join(tmp.path, 'other.md');
    writeFileSync(other, `${readFileSync(file, 'utf8')} `);
    const [failed] = conforms(
      await runCli(['corpus-proof', '--verify', proofFile, '--file', other, '--root', root, '--json']),
      'prereg.corpus-proof-verify/1',
      1,
    );
    expect(failed.codes).toEqual(['CORPUS_PROOF_INVALID']);
  });

  it('verify-token: an anchor over the freeze digest VERIFIED; over other data REFUSED', async () => {
    const anchors = join(root, 'preregistration/anchors');
    const token = join(anchors, readdirSync(anchors).find((f) => f.endsWith('.tsr'))!);
    const freezeDigest = (await runCli(['check-anchors', '--root', root, '--json'])).json.freeze_digest as string;
    const tsaRoot = auditorFlags().slice(0, 2);
    // The token's imprint is SHA-256 of the digest's 32 bytes.
    const data = join(tmp.path, 'freeze-digest.bin');
    writeFileSync(data, Buffer.from(freezeDigest, 'hex'));
    const [verified] = conforms(await runCli(['verify-token', token, '--data', data, ...tsaRoot, '--json']), 'prereg.verify-token/1', 0);
    expect(verified.validity_from).toBe('gen_time');
    const [refused] = conforms(
      await runCli([
        'verify-token',
        token,
        '--data',
        join(root, 'preregistration/freeze.json'),
        ...tsaRoot,
        '--at',
        '2030-01-01T00:00:00Z',
        '--json',
      ]),
      'prereg.verify-token/1',
      1,
    );
    expect([refused.status, refused.validity_from, refused.reason_codes]).toEqual([
      'REFUSED',
      'at',
      expect.arrayContaining(['TSA_IMPRINT_MISMATCH']),
    ]);
  });

  it('reveal-check: the revealed key reproduces its commitment', async () => {
    conforms(await runCli(['reveal-check', '--root', root, '--json']), 'prereg.reveal-check/1', 0);
  });

  it('trust import-arkforge into a copy of the trust directory: keys added, then unchanged', async () => {
    const trust = copyTree(join(root, 'preregistration/trust'), join(tmp.path, 'trust'));
    const published = join(PROJECT_ROOT, 'test/fixtures/real/arkforge-production/published_keys.json');
    const [added] = conforms(
      await runCli(['trust', 'import-arkforge', published, '--trust', trust, '--json']),
      'prereg.trust-import-arkforge/1',
      0,
    );
    expect(added.changed).toBe(true);
    const [again] = conforms(
      await runCli(['trust', 'import-arkforge', published, '--trust', trust, '--json']),
      'prereg.trust-import-arkforge/1',
      0,
    );
    expect([again.changed, new Set(again.keys.map((k: { action: string }) => k.action))]).toEqual([false, new Set(['unchanged'])]);
  });

  it('commitment of a real AER-1 timeline, unsigned and printed', async () => {
    const timeline = join(PROJECT_ROOT, 'test/fixtures/real/aer1/timeline-job-7a1f.json');
    const [printed] = conforms(
      await runCli(['commitment', timeline, '--published-at', '2026-11-10T10:02:00Z', '--json']),
      'prereg.commitment/1',
      0,
    );
    expect([printed.signed_by, 'appended_to' in printed]).toEqual([null, false]);
  });
});

describe('--json output conforms to schemas/cli, after one run', () => {
  beforeAll(async () => {
    const [run] = conforms(await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--json']), 'prereg.run/1', 0);
    // Each stage's document, as run nests it without schema_version, is that stage's own shape.
    for (const [stage, doc] of Object.entries(run.stages)) {
      const version = stage === 'verify' ? 'prereg.verify/1' : `prereg.${stage}/1`;
      conforms({ code: 0, stdout: '', stderr: '', jsonLines: [{ schema_version: version, ...(doc as object) }] }, version);
    }
    outputsDir = run.dir as string;
  });

  it('ingest, classify and score skipped; classify rerun with --force; emit into another outputs directory', async () => {
    for (const stage of ['ingest', 'classify', 'score']) {
      const [skipped] = conforms(await runCli([stage, '--root', root, '--json']), `prereg.${stage}/1`, 0);
      expect(skipped.skipped).toBe(true);
    }
    const [forced] = conforms(await runCli(['classify', '--root', root, '--force', '--json']), 'prereg.classify/1', 0);
    expect([forced.skipped, forced.reason]).toEqual([false, '--force']);
    const [emitted] = conforms(
      await runCli(['emit', '--root', root, '--outputs', join(tmp.path, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']),
      'prereg.emit/1',
      0,
    );
    expect(emitted.outputs.map((o: { file: string }) => o.file)).toContain('results.json');
  });

  it('status: every stage current', async () => {
    const [after] = conforms(await runCli(['status', '--root', root, '--json']), 'prereg.status/2', 0);
    expect(after.stages.map((s: { state: string }) => s.state)).toEqual(['current', 'current', 'current', 'current', 'current']);
  });

  it('verify in the study: skipped (the recorded counts), then rerun with --force', async () => {
    const [skipped] = conforms(await runCli(['verify', '--root', root, '--json']), 'prereg.verify/1', 0);
    expect(skipped.skipped).toBe(true);
    const [forced] = conforms(await runCli(['verify', '--root', root, '--force', '--json']), 'prereg.verify/1', 0);
    expect([forced.skipped, forced.reason]).toEqual([false, '--force']);
  });

  it('verify --shard I/N --out DIR (one shard of one), then run --verified-shards: the run document and its verify stage', async () => {
    const shards = join(tmp.path, 'shards');
    const [shard] = conforms(
      await runCli(['verify', '--root', root, '--shard', '0/1', '--out', join(shards, '0'), '--json']),
      'prereg.verify-shard/1',
      0,
    );
    expect([shard.shard, shard.tables.proof_checks.rows]).toEqual([{ index: 0, count: 1 }, shard.evidence]);
    const [run] = conforms(
      await runCli([
        'run',
        '--root',
        root,
        '--verified-shards',
        shards,
        '--outputs',
        join(tmp.path, 'sharded-outputs'),
        ...TEST_OPERATOR_ARGS,
        '--json',
      ]),
      'prereg.run/1',
      0,
    );
    conforms(
      { code: 0, stdout: '', stderr: '', jsonLines: [{ schema_version: 'prereg.verify/1', ...run.stages.verify }] },
      'prereg.verify/1',
    );
    expect([run.stages.verify.skipped, run.stages.verify.evidence]).toEqual([false, shard.evidence]);
  });

  it('verify FILE…: a proof, an evidence item, a receipt, an unparsable file and a submission file whose timelines fail', async () => {
    const dir = join(tmp.path, 'files');
    mkdirSync(dir);
    const line = JSON.parse(readFileSync(join(root, 'inputs/submissions/sys-honest.jsonl'), 'utf8').split('\n')[0]!);
    writeFileSync(join(dir, 'a-evidence.json'), JSON.stringify(line.evidence[0]));
    writeFileSync(join(dir, 'b-proof.json'), JSON.stringify(line.evidence[0].proof));
    const vectors = JSON.parse(readFileSync(join(PROJECT_ROOT, 'test/fixtures/real/aer1/reference-vectors.json'), 'utf8')) as {
      vectors: Array<{ kind: string; receipt?: unknown }>;
    };
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
    const lines = conforms(
      await runCli(['verify', '--root', root, '--commitments', commitments, one, '--json']),
      'prereg.verify-files/2',
      1,
    );
    expect(lines.filter((l) => l.kind === 'commitment').map((l) => [l.line, l.status])).toEqual([
      [1, 'MALFORMED'],
      [2, 'MALFORMED'],
    ]);
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
    const [doctor] = conforms(await runCli(['doctor', '--root', root, '--json', ...TEST_OPERATOR_ARGS]), 'prereg.doctor/2', 3);
    expect(doctor.status).toBe('blocked');
    const [status] = conforms(await runCli(['status', '--root', root, '--json']), 'prereg.status/2', 3);
    expect(status.stages.find((s: { state: string }) => s.state === 'blocked').code).toMatch(/^[A-Z_]+$/);
    const [anchorsDoc] = conforms(
      await runCli(['check-anchors', '--root', root, ...auditorFlags().slice(0, 2), '--json']),
      'prereg.check-anchors/1',
      1,
    );
    expect(anchorsDoc.reason_codes).toContain('CORPUS_DRIFT');
    expect(anchorsDoc.witnesses.some((w: { ok: boolean; reason_codes: string[] }) => !w.ok && w.reason_codes.length > 0)).toBe(true);
  });
});

describe('--json output conforms to schemas/cli, without a study', () => {
  it('explain: known codes with their exit codes; an unknown one with its suggestions', async () => {
    const [known] = conforms(await runCli(['explain', 'USAGE', 'file_not_found', '--json']), 'prereg.explain/1', 0);
    expect(known.codes.map((c: { code: string; exit: number }) => [c.code, c.exit])).toEqual([
      ['FILE_NOT_FOUND', 3],
      ['USAGE', 2],
    ]);
    const [unknown] = conforms(await runCli(['explain', 'proof_time_outside', '--json']), 'prereg.explain/1', 1);
    expect(unknown.codes[0]).toMatchObject({
      code: 'PROOF_TIME_OUTSIDE',
      known: false,
      exit: null,
      suggestions: ['PROOF_TIME_OUTSIDE_WINDOW'],
    });
  });

  it('docs: every doc with its path; one by NAME, with its text under --print', async () => {
    const [all] = conforms(await runCli(['docs', '--json']), 'prereg.docs/1', 0);
    expect(all.docs.map((d: { name: string }) => d.name)).toContain('intake');
    const [one] = conforms(await runCli(['docs', 'intake.md', '--print', '--json']), 'prereg.docs/1', 0);
    expect(one.docs[0].text).toMatch(/^# /);
  });

  it('--version --json: the versions an audit depends on', async () => {
    const [v] = conforms(await runCli(['--version', '--json']), 'prereg.version/1', 0);
    expect(v.node).toBe(process.version);
  });

  it('dev keys: a TEST-ONLY agent key and its agent_keys entry', async () => {
    const [made] = conforms(
      await runCli(['dev', 'keys', '--system', 'sys-x', '--study-id', 'some-study', '--out', join(tmp.path, 'dev-keys'), '--json']),
      'prereg.dev-keys/1',
      0,
    );
    expect(made.agent_key.public_key).toMatch(/^ed25519:/);
  });
});

describe('--json output conforms to schemas/cli, in a rehearsal from init to the seal', () => {
  const OPENS = '2026-11-10T10:00:00Z';
  const CLOSES = '2026-11-10T10:15:00Z';
  /** The dev TSA at genTime `at`, its line checked too; stopped after `use`. */
  const withTsa = async (kit: string, at: string, use: (url: string) => Promise<void>) => {
    const tsa = await devTsa(kit, at);
    conforms({ code: 0, stdout: '', stderr: '', jsonLines: [tsa.line] }, 'prereg.dev-tsa/1');
    try {
      await use(tsa.url);
    } finally {
      expect(await tsa.stop()).toBe(0);
    }
  };

  it('init (plain and --rehearsal), freeze, anchor, dev issue, submission build (appended, printed, rejected), commitment, submission sign, intake, seal, intake --verify-receipt (passing and failing), trust certify-intake-key', async () => {
    const [plain] = conforms(await runCli(['init', join(tmp.path, 'plain'), '--json']), 'prereg.init/2', 0);
    expect(plain.rehearsal).toBeNull();
    // The CI workflow init writes (docs/ci.md): the tarball to add by default, or the https URL given.
    expect(plain.ci).toEqual({
      workflow: '.github/workflows/prereg.yml',
      prereg_source: `tools/prereg-${TOOL_VERSION}.tgz`,
      prereg_source_kind: 'to-add',
      prereg_version: null,
      freeze_digest_file: 'preregistration/FREEZE-DIGEST',
    });
    const [byUrl] = conforms(
      await runCli(['init', join(tmp.path, 'by-url'), '--prereg-source', 'https://example.org/releases/prereg-0.3.0.tgz', '--json']),
      'prereg.init/2',
      0,
    );
    expect([byUrl.ci.prereg_source, byUrl.ci.prereg_source_kind]).toEqual(['https://example.org/releases/prereg-0.3.0.tgz', 'url']);
    const study = join(tmp.path, 'rehearsal');
    const priv = `${study}.private`;
    const [created] = conforms(
      await runCli(['init', study, '--rehearsal', '--require-receipts', '--opens-at', OPENS, '--closes-at', CLOSES, '--json']),
      'prereg.init/2',
      0,
    );
    const kit = created.rehearsal.kit as string;
    const [added] = conforms(
      await runCli(['dev', 'add-system', 'sys-c', '--kit', kit, '--root', study, '--json']),
      'prereg.dev-add-system/1',
      0,
    );
    expect(added.system_id).toBe('sys-c');
    conforms(
      await runCli([
        'freeze',
        '--root',
        study,
        '--answer-key',
        join(priv, 'answer-key.jsonl'),
        '--secret-file',
        join(priv, 'answer-key.secret'),
        '--json',
      ]),
      'prereg.freeze/1',
      0,
    );
    await withTsa(kit, '2026-11-10T09:50:00Z', async (url) => {
      conforms(await runCli(['anchor', '--root', study, '--tsa', `dev=${url}`, '--retries', '0', '--json']), 'prereg.anchor/1', 0);
    });

    const system = 'sys-a';
    const agentKey = join(kit, `TEST-ONLY-agent-${system}.key.pem`);
    const evidence = join(tmp.path, 'evidence');
    conforms(
      await runCli([
        'dev',
        'issue',
        '--kit',
        kit,
        '--root',
        study,
        '--system',
        system,
        '--item',
        'q-001',
        '--ref',
        'A-1',
        '--at',
        '2026-11-10T10:01:00Z',
        '--out',
        evidence,
        '--json',
      ]),
      'prereg.dev-issue/1',
      0,
    );
    const buildArgs = [
      'submission',
      'build',
      '--root',
      study,
      '--system',
      system,
      '--answer',
      'Article A-1 sets a fee of 100 EUR.',
      '--proof',
      join(evidence, 'proof.json'),
      '--request',
      join(evidence, 'request.json'),
      '--response',
      join(evidence, 'response.json'),
      '--timeline',
      join(evidence, 'timeline.json'),
      '--json',
    ];
    const file = join(tmp.path, `${system}.jsonl`);
    const [appended] = conforms(await runCli([...buildArgs, '--item', 'q-001', '--out', file]), 'prereg.submission-build/1', 0);
    expect(appended.line_no).toBe(1);
    const [printed] = conforms(await runCli([...buildArgs, '--item', 'q-001']), 'prereg.submission-build/1', 0);
    expect(typeof printed.line).toBe('string');
    const [rejected] = conforms(await runCli([...buildArgs, '--item', 'q-999']), 'prereg.submission-build/1', 1);
    expect(rejected.ok).toBe(false);
    const commitments = join(tmp.path, `${system}.commitments.jsonl`);
    const [committed] = conforms(
      await runCli([
        'commitment',
        join(evidence, 'timeline.json'),
        '--published-at',
        '2026-11-10T10:02:00Z',
        '--sign',
        agentKey,
        '--out',
        commitments,
        '--json',
      ]),
      'prereg.commitment/1',
      0,
    );
    expect(committed.signed_by).toMatch(/^ed25519:/);

    await withTsa(kit, '2026-11-10T10:05:00Z', async (url) => {
      for (const [f, kind] of [
        [file, 'submissions'],
        [commitments, 'commitments'],
      ] as const) {
        const [signed] = conforms(
          await runCli([
            'submission',
            'sign',
            f,
            '--key',
            agentKey,
            '--system',
            system,
            '--kind',
            kind,
            '--root',
            study,
            '--tsa',
            `dev=${url}`,
            '--retries',
            '0',
            '--json',
          ]),
          'prereg.submission-sign/1',
          0,
        );
        expect(signed.witness).toBe('dev');
        conforms(
          await runCli([
            'intake',
            `${f}.intake.json`,
            '--operator-key',
            join(priv, 'operator.key.pem'),
            '--tsa',
            `dev=${url}`,
            '--retries',
            '0',
            '--root',
            study,
            '--json',
          ]),
          'prereg.intake/1',
          0,
        );
      }
    });
    await withTsa(kit, '2026-11-10T10:20:00Z', async (url) => {
      conforms(await runCli(['seal', '--root', study, '--tsa', `dev=${url}`, '--retries', '0', '--json']), 'prereg.seal/1', 0);
    });
    await withTsa(kit, '2026-11-10T10:25:00Z', async (url) => {
      const [recorded] = conforms(
        await runCli([
          'deviation',
          '--text',
          'The seal was taken five minutes late.',
          '--operator-key',
          join(priv, 'operator.key.pem'),
          '--tsa',
          `dev=${url}`,
          '--retries',
          '0',
          '--root',
          study,
          '--json',
        ]),
        'prereg.deviation-recorded/1',
        0,
      );
      expect([recorded.seq, recorded.intake.entries]).toEqual([0, 2]);
    });
    const receipt = `${file}.intake.receipt.json`;
    const [sealed] = conforms(
      await runCli(['intake', '--verify-receipt', receipt, '--root', study, '--json']),
      'prereg.intake-receipt/1',
      0,
    );
    expect([sealed.ok, sealed.sealed]).toEqual([true, true]);
    // The participant's receipt, its entry digest changed: it proves nothing.
    const forged = join(tmp.path, 'forged.receipt.json');
    writeFileSync(forged, JSON.stringify({ ...JSON.parse(readFileSync(receipt, 'utf8')), entry_digest: '0'.repeat(64) }));
    const [failing] = conforms(await runCli(['intake', '--verify-receipt', forged, '--root', study, '--json']), 'prereg.intake-receipt/1');
    expect([failing.ok, failing.reason_codes]).toEqual([false, ['INTAKE_RECEIPT_INVALID']]);

    const intakeKey = join(study, 'preregistration/trust/operator/intake.pub.pem');
    writeFileSync(intakeKey, generateKeyPairSync('ed25519').publicKey.export({ format: 'pem', type: 'spki' }));
    conforms(
      await runCli(['trust', 'certify-intake-key', intakeKey, '--operator-key', join(priv, 'operator.key.pem'), '--root', study, '--json']),
      'prereg.trust-certify-intake-key/1',
      0,
    );
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
      [['status', empty, '--json'], 'USAGE'],
      [['doctor', '--root', join(tmp.path, 'no-such-study'), '--json'], 'ROOT_NOT_FOUND'],
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
    for (const version of schemas.keys())
      rejects(
        version,
        edited(version, (d) => void (d.undocumented = true)),
        'additionalProperties',
      );
  });

  it('rejects a wrong status word, state, check outcome, reason code, nested member or schema_version', () => {
    rejects(
      'prereg.doctor/2',
      edited('prereg.doctor/2', (d) => void (d.stages[0].status = 'fine')),
      'enum',
    );
    rejects(
      'prereg.status/2',
      edited('prereg.status/2', (d) => void (d.stages[0].state = 'fresh')),
      'enum',
    );
    const line = seen.get('prereg.verify-files/2')!.find((l: any) => l.kind === 'chain');
    rejects('prereg.verify-files/2', { ...structuredClone(line as object), checks: { ...(line as any).checks, links: 'passed' } }, 'enum');
    rejects(
      'prereg.verify-files/2',
      { ...structuredClone(line as object), checks: { ...(line as any).checks, extra: 'pass' } },
      'additionalProperties',
    );
    rejects('prereg.verify-files/2', { ...structuredClone(line as object), status: 'VERIFIED' }, 'enum');
    rejects(
      'prereg.validate/1',
      edited('prereg.validate/1', (d) => void (d.totals.unknown = 0)),
      'additionalProperties',
    );
    rejects(
      'prereg.check-anchors/1',
      edited('prereg.check-anchors/1', (d) => void (d.witnesses[0].note = '')),
      'additionalProperties',
    );
    rejects(
      'prereg.audit/1',
      edited('prereg.audit/1', (d) => void (d.rails[0].code = 'not a code')),
      'enum',
    );
    rejects(
      'prereg.audit/1',
      edited('prereg.audit/1', (d) => void (d.verdict = 'VALID')),
      'enum',
    );
    rejects(
      'prereg.verify/1',
      edited('prereg.verify/1', (d) => void (d.proofs_by_status.FINE = 1)),
      'enum',
    );
    rejects(
      'prereg.explain/1',
      edited('prereg.explain/1', (d) => void (d.codes[0].exit = 7)),
      'oneOf',
    );
    rejects(
      'prereg.error/1',
      edited('prereg.error/1', (d) => void (d.code = 'file_not_found')),
      'pattern',
    );
    rejects(
      'prereg.doctor/2',
      edited('prereg.doctor/2', (d) => void (d.schema_version = 'prereg.doctor/1')),
      'const',
    );
    rejects(
      'prereg.doctor/2',
      edited('prereg.doctor/2', (d) => void (d.window.phase = 'ajar')),
      'enum',
    );
    rejects(
      'prereg.status/2',
      edited('prereg.status/2', (d) => void (d.window.extra = '')),
      'additionalProperties',
    );
    rejects(
      'prereg.verify-token/1',
      edited('prereg.verify-token/1', (d) => void (d.checks.chain = 'ok')),
      'enum',
    );
    // REFUSED with no reason code, VERIFIED with one: each status word says whether codes follow.
    rejects(
      'prereg.verify-token/1',
      edited('prereg.verify-token/1', (d) => void (d.status = 'REFUSED')),
      'minItems',
    );
    rejects(
      'prereg.verify-token/1',
      edited('prereg.verify-token/1', (d) => void d.reason_codes.push('TSA_IMPRINT_MISMATCH')),
      'maxItems',
    );
    rejects(
      'prereg.trust-import-arkforge/1',
      edited('prereg.trust-import-arkforge/1', (d) => void (d.keys[0].action = 'removed')),
      'enum',
    );
    rejects(
      'prereg.dev-tsa/1',
      edited('prereg.dev-tsa/1', (d) => void (d.test_only = false)),
      'const',
    );
    rejects(
      'prereg.intake-receipt/1',
      edited('prereg.intake-receipt/1', (d) => void d.reason_codes.push('not a code')),
      'pattern',
    );
    rejects(
      'prereg.corpus-proof-verify/1',
      edited('prereg.corpus-proof-verify/1', (d) => void (d.codes = ['CORPUS_PROOF_INVALID'])),
      'maxItems',
    );
    rejects(
      'prereg.submission-build/1',
      edited('prereg.submission-build/1', (d) => void (d.line = 'both an appended line and a printed one')),
      'oneOf',
    );
    rejects(
      'prereg.run/1',
      edited('prereg.run/1', (d) => void (d.failed_stage = 'emit')),
      'not',
    );
    rejects(
      'prereg.run/1',
      edited('prereg.run/1', (d) => void (d.stages.audit = {})),
      'additionalProperties',
    );
    rejects(
      'prereg.classify/1',
      edited('prereg.classify/1', (d) => void delete d.reason),
      'required',
    );
    rejects(
      'prereg.init/2',
      edited('prereg.init/2', (d) => void (d.rehearsal = { test_only: false })),
      'oneOf',
    );
    rejects(
      'prereg.init/2',
      edited('prereg.init/2', (d) => void (d.ci.prereg_source_kind = 'registry')),
      'enum',
    );
  });
});

describe('the commands that publish a schema', () => {
  it("every command declares jsonSchema, each has its schema file, and each file but error and version (the CLI's own) is declared by a command", async () => {
    const declared = new Set<string>();
    // Every mode of every command: its subcommand words and its mode flags.
    const positionals = [
      [],
      ['FILE'],
      ['build'],
      ['sign'],
      ['import-arkforge'],
      ['certify-intake-key'],
      ['keys'],
      ['tsa'],
      ['issue'],
      ['add-system', 'ID'],
    ];
    const values = [{}, { verify: 'PROOF.json' }, { 'verify-receipt': 'RECEIPT.json' }, { shard: '0/1', out: 'DIR' }];
    for (const entry of COMMANDS) {
      const command = await entry.load();
      // The one command that prints no JSON of its own (its stdout is the MCP protocol) refuses --json.
      if (command.name === 'mcp') {
        expect(command.jsonSchema).toBeUndefined();
        conforms(await runCli(['mcp', '--json']), 'prereg.error/1', 2);
        continue;
      }
      expect(command.jsonSchema, `${command.name} declares jsonSchema`).toBeDefined();
      for (const p of positionals)
        for (const v of values) declared.add(command.jsonSchema!({ positionals: p, values: v } as unknown as StageContext));
    }
    for (const version of declared) expect(readdirSync(SCHEMA_DIR), version).toContain(fileOf(version));
    expect([...declared, 'prereg.error/1', 'prereg.version/1'].map(fileOf).sort()).toEqual(
      readdirSync(SCHEMA_DIR)
        .filter((f) => f.endsWith('.schema.json'))
        .sort(),
    );
  });
});
