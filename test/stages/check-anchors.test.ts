// check-anchors on the committed example, then on copies with exactly one thing changed.
import { appendFileSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { ANCHOR_AUDITOR_OPTIONS } from '../../pipeline/options.ts';
import { audit } from '../../pipeline/stages/audit.ts';
import { checkAnchors } from '../../pipeline/stages/check-anchors.ts';

const study = scratchStudies();
function edit(path: string, from: string | RegExp, to: string): void {
  const text = readFileSync(path, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`nothing to replace in ${path}`);
  writeFileSync(path, next);
}
async function check(root: string) {
  return runCli(['check-anchors', '--root', root, '--json']);
}

describe('check-anchors', () => {
  it('passes on the committed example and reports every digest and witness', async () => {
    const r = await runCli(['check-anchors', '--root', PROJECT_ROOT, '--json']);
    expect(r.code).toBe(0);
    expect(r.json.ok).toBe(true);
    for (const name of [
      'corpus_root',
      'vocabulary_sha256',
      'section5_sha256',
      'plan_sections',
      'study_sha256',
      'trust_root',
      'answer_key_root',
    ]) {
      expect(r.json.digests[name].ok, name).toBe(true);
      expect(r.json.digests[name].recomputed, name).toBe(r.json.digests[name].frozen);
    }
    expect(r.json.witnesses).toHaveLength(1);
    expect(r.json.witnesses[0]).toMatchObject({ witness: 'local-test-tsa', ok: true, gen_time: '2026-11-01T09:00:00Z', reason_codes: [] });
    expect(r.json.independent_witnesses).toBe(1);
    expect(r.json.freeze_digest).toMatch(/^[0-9a-f]{64}$/);
  });

  it('names the corpus file when one byte of it changes', async () => {
    const root = study();
    const file = join(root, 'corpus/ccag-travaux.md');
    const bytes = readFileSync(file);
    const at = bytes.indexOf('notifications'); // body text, not a heading
    bytes[at] = bytes[at]! ^ 0x01;
    writeFileSync(file, bytes);
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(r.json.reason_codes).toEqual(['CORPUS_DRIFT']);
    expect(r.json.findings[0]).toMatchObject({ code: 'CORPUS_DRIFT', file: 'corpus/ccag-travaux.md', field: 'corpus.files' });
    expect(r.json.digests.corpus_root.ok).toBe(false);
  });

  it('catches an added corpus file and a changed heading (vocabulary)', async () => {
    const root = study();
    writeFileSync(join(root, 'corpus/extra.txt'), 'new');
    edit(join(root, 'corpus/ccag-travaux.md'), '### CCAG Travaux 44', '### CCAG Travaux 45');
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(r.json.reason_codes).toEqual(['CORPUS_DRIFT', 'VOCABULARY_DRIFT']);
    expect(r.json.findings.map((f: { file?: string }) => f.file)).toContain('corpus/extra.txt');
  });

  it('refuses a symlink in the corpus (exit 4)', async () => {
    const root = study();
    symlinkSync(join(root, 'corpus/items.jsonl'), join(root, 'corpus/link.jsonl'));
    const r = await check(root);
    expect(r.code).toBe(4);
    expect(r.json).toMatchObject({ ok: false, code: 'CORPUS_PATH_UNSAFE' });
    expect(r.json.message).toContain('link.jsonl');
  });

  it('fails on a change anywhere in the plan: section 7 is PREREGISTRATION_DRIFT, section 5 is SECTION5_DRIFT', async () => {
    const root = study();
    const plan = join(root, 'preregistration/PREREGISTRATION.md');
    const original = readFileSync(plan);
    edit(plan, 'is never written here.', 'is never written here, really.');
    const deviations = await check(root);
    expect([deviations.code, deviations.json.reason_codes]).toEqual([1, ['PREREGISTRATION_DRIFT']]);
    expect(deviations.json.findings[0]).toMatchObject({
      field: 'plan_sections',
      file: 'preregistration/PREREGISTRATION.md',
      section: '## 7. Deviations',
    });
    writeFileSync(plan, original);
    edit(plan, "at least 80% of its positive answers', 0.8,", "at least 80% of its positive answers', 0.7,");
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(r.json.reason_codes).toEqual(['SECTION5_DRIFT']);
    expect(r.json.findings[0]).toMatchObject({ field: 'section5_sha256', file: 'preregistration/PREREGISTRATION.md' });
  });

  it('names the trust file when the trust policy changes', async () => {
    const root = study();
    edit(join(root, 'preregistration/trust/policy.json'), '"max_skew_seconds": 300', '"max_skew_seconds": 301');
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(r.json.reason_codes).toEqual(['TRUST_DRIFT']);
    expect(r.json.findings[0]).toMatchObject({ file: 'preregistration/trust/policy.json' });
  });

  it('reads every file the policy names (docs/trust.md): a broken tsa_certs or submitter key file blocks check-anchors, anchor and verify alike (exit 3)', async () => {
    const root = study();
    const trustDir = join(root, 'preregistration/trust');
    const policyFile = join(trustDir, 'policy.json');
    const policy = JSON.parse(readFileSync(policyFile, 'utf8'));
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ tsa_certs: ['tsa-certs/absent.pem'] }, 'FILE_NOT_FOUND'],
      [{ tsa_certs: ['operator/TEST-ONLY-operator.pub.pem'] }, 'TSA_TRUST_INVALID'],
      [
        {
          tlog_submitter_keys: [
            {
              key_id: 'k',
              public_key_file: 'tsa-roots/TEST-ONLY-tsa-root.cert.pem',
              valid_from: '2026-01-01T00:00:00Z',
              valid_until: null,
            },
          ],
        },
        'TRUST_POLICY_INVALID',
      ],
    ];
    for (const [over, code] of cases) {
      writeFileSync(policyFile, JSON.stringify({ ...policy, ...over }, null, 2));
      const checked = await check(root);
      const anchored = await runCli([
        'anchor',
        '--root',
        root,
        '--import',
        join(root, 'preregistration/anchors/local-test-tsa.tsr'),
        '--witness',
        'again',
        '--json',
      ]);
      const verified = await runCli(['verify', join(root, 'inputs/submissions'), '--root', root, '--trust', trustDir, '--json']);
      expect([checked.code, checked.json.code, anchored.code, anchored.json.code, verified.code, verified.json.code]).toEqual([
        3,
        code,
        3,
        code,
        3,
        code,
      ]);
    }
  });

  it('fails on a changed study.json (window)', async () => {
    const root = study();
    edit(join(root, 'preregistration/study.json'), '2026-11-16T00:00:00Z', '2026-11-17T00:00:00Z');
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(r.json.reason_codes).toEqual(['STUDY_DRIFT']);
    expect(r.json.findings.map((f: { field: string }) => f.field).sort()).toEqual(['study_sha256', 'window.closes_at']);
  });

  it('fails when freeze.json is edited: the field, and every anchor (it witnessed the old digest)', async () => {
    const root = study();
    const freeze = join(root, 'preregistration/freeze.json');
    const frozen = JSON.parse(readFileSync(freeze, 'utf8'));
    frozen.corpus.root = 'f'.repeat(64);
    writeFileSync(freeze, JSON.stringify(frozen, null, 2));
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(r.json.reason_codes).toEqual(['ANCHOR_INSUFFICIENT', 'ANCHOR_INVALID', 'CORPUS_DRIFT']);
    expect(r.json.findings.find((f: { code: string }) => f.code === 'CORPUS_DRIFT')).toMatchObject({
      field: 'corpus.root',
      file: 'preregistration/freeze.json',
    });
    expect(r.json.witnesses[0].reason_codes).toEqual(['TSA_IMPRINT_MISMATCH']);
  });

  it('fails when only a field no file recomputes is edited (tool version): anchors catch it', async () => {
    const root = study();
    edit(join(root, 'preregistration/freeze.json'), /"version": "[^"]+"/, '"version": "9.9.9"');
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(r.json.reason_codes).toEqual(['ANCHOR_INSUFFICIENT', 'ANCHOR_INVALID']);
  });

  it('re-indenting freeze.json changes nothing (the digest is over its canonical form)', async () => {
    const root = study();
    const freeze = join(root, 'preregistration/freeze.json');
    writeFileSync(freeze, JSON.stringify(JSON.parse(readFileSync(freeze, 'utf8'))));
    expect((await check(root)).code).toBe(0);
  });

  it('fails on a revealed answer key that differs from the commitment', async () => {
    const root = study();
    edit(join(root, 'inputs/answer-key.jsonl'), /"value": ?"40000"/, '"value": "40001"');
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(r.json.reason_codes).toEqual(['ANSWER_KEY_COMMITMENT_MISMATCH']);
    expect(r.json.digests.answer_key_root.ok).toBe(false);
  });

  it('skips the commitment check, saying so, before the key is revealed', async () => {
    const root = study();
    rmSync(join(root, 'inputs/answer-key.jsonl'));
    const r = await check(root);
    expect(r.code).toBe(0);
    expect(r.json.digests.answer_key_root).toMatchObject({ ok: null, note: expect.stringContaining('not revealed') });
  });

  it('fails without any anchor, and on a tampered token', async () => {
    const root = study();
    const tsr = join(root, 'preregistration/anchors/local-test-tsa.tsr');
    const bytes = readFileSync(tsr);
    bytes[bytes.length - 10] = bytes[bytes.length - 10]! ^ 0xff;
    writeFileSync(tsr, bytes);
    const tampered = await check(root);
    expect(tampered.code).toBe(1);
    expect(tampered.json.witnesses[0].ok).toBe(false);
    expect(tampered.json.independent_witnesses).toBe(0);
    rmSync(tsr);
    const none = await check(root);
    expect(none.json.reason_codes).toEqual(['ANCHOR_INSUFFICIENT']);
    expect(none.json.independent_witnesses).toBe(0);
  });

  it('cannot run without freeze.json (exit 3)', async () => {
    const root = study();
    rmSync(join(root, 'preregistration/freeze.json'));
    const r = await check(root);
    expect(r.code).toBe(3);
    expect(r.json.code).toBe('FREEZE_MISSING');
  });

  it('prints a readable report without --json', async () => {
    const root = study();
    appendFileSync(join(root, 'corpus/items.jsonl'), '');
    const r = await runCli(['check-anchors', '--root', root]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('check-anchors: OK');
    expect(r.stdout).toContain('1 independent witness(es), by distinct root, confirm the freeze');
  });
});

describe('check-anchors binds each anchor to its metadata', () => {
  const META = 'preregistration/anchors/local-test-tsa.json';
  it.each([
    ['tsr_sha256 of another token', (m: any) => void (m.tsr_sha256 = '0'.repeat(64)), 'tsr_sha256'],
    ['another witness name', (m: any) => void (m.witness = 'independent-notary'), 'witness'],
    ['another freeze_digest', (m: any) => void (m.freeze_digest = 'f'.repeat(64)), 'freeze_digest'],
    ['a retrieval before the token existed', (m: any) => void (m.retrieved_at = '2026-10-01T00:00:00Z'), 'retrieved_at'],
    ['an unknown retrieval way', (m: any) => void (m.retrieved_via = 'carrier-pigeon'), 'retrieved_via'],
  ])('%s: ANCHOR_METADATA_MISMATCH, exit 1, naming the field', async (_, change, field) => {
    const root = study();
    const path = join(root, META);
    const meta = JSON.parse(readFileSync(path, 'utf8'));
    change(meta);
    writeFileSync(path, JSON.stringify(meta, null, 2));
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(r.json.witnesses[0]).toMatchObject({ ok: false, reason_codes: ['ANCHOR_METADATA_MISMATCH'] });
    expect(r.json.independent_witnesses).toBe(0);
    const finding = r.json.findings.find((f: any) => f.code === 'ANCHOR_METADATA_MISMATCH');
    expect(finding.message).toContain(field);
  });

  it('run reports the witness whose metadata was edited as not verified (ANCHOR_METADATA_MISMATCH), never under the edited name', async () => {
    const root = study();
    edit(join(root, META), '"witness": "local-test-tsa"', '"witness": "independent-notary"');
    const r = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
    expect(r.code, r.stdout.slice(0, 400)).toBe(0);
    const report = readFileSync(join(r.json.dir, 'report.md'), 'utf8');
    expect(report).toMatch(/\| local-test-tsa \| NO \| .* \| ANCHOR\\_METADATA\\_MISMATCH \|/);
    expect(report).toContain('0 independent witness(es) confirmed the freeze');
    expect(report).not.toContain('independent-notary');
  }, 120_000);

  it('a token without its metadata: ANCHOR_METADATA_MISMATCH', async () => {
    const root = study();
    rmSync(join(root, META));
    const r = await check(root);
    expect(r.code).toBe(1);
    expect(r.json.witnesses[0].reason_codes).toEqual(['ANCHOR_METADATA_MISMATCH']);
  });
});

describe("the auditor's anchor flags", () => {
  it('are the same flags, with the same types, in check-anchors and the audit (one declaration)', () => {
    for (const [name, spec] of Object.entries(ANCHOR_AUDITOR_OPTIONS)) {
      expect([name, checkAnchors.options?.[name]]).toEqual([name, spec]);
      expect([name, audit.options?.[name]]).toEqual([name, spec]);
    }
  });
});
