// `prereg freeze` and `prereg reveal-check` on copies of the example study.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copySealedExampleStudy, PROJECT_ROOT, runCli, scratchStudies } from '../support/cli.ts';

const study = scratchStudies();
const keyLines = (root: string) => readFileSync(join(root, 'inputs/answer-key.jsonl'), 'utf8').trimEnd().split('\n');
const writeKey = (root: string, lines: string[]) => writeFileSync(join(root, 'inputs/answer-key.jsonl'), `${lines.join('\n')}\n`);

describe('freeze', () => {
  it('reproduces the committed freeze.json byte for byte from the same files', async () => {
    const sealed = copySealedExampleStudy();
    try {
      rmSync(join(sealed.root, 'preregistration/freeze.json'));
      const r = await runCli(['freeze', '--root', sealed.root, '--json']);
      expect(r.code).toBe(0);
      expect(readFileSync(join(sealed.root, 'preregistration/freeze.json'), 'utf8')).toBe(
        readFileSync(join(PROJECT_ROOT, 'preregistration/freeze.json'), 'utf8'),
      );
      const check = await runCli(['check-anchors', '--root', PROJECT_ROOT, '--json']);
      expect(r.json.freeze_digest).toBe(check.json.freeze_digest);
      expect(r.json).toMatchObject({ corpus_files: 4, vocabulary_size: 28, answer_key_items: 20 });
    } finally {
      sealed.cleanup();
    }
  });

  it('refuses a trust policy that does not load, naming the file, and writes nothing (docs/trust.md)', async () => {
    const root = study();
    const trust = join(root, 'preregistration/trust');
    const policyFile = join(trust, 'policy.json');
    const frozen = readFileSync(join(root, 'preregistration/freeze.json'), 'utf8');
    const policy = JSON.parse(readFileSync(policyFile, 'utf8'));
    const cases: Array<[string, (p: Record<string, unknown>) => void, string, string]> = [
      ['a tsa_certs file that does not exist', (p) => (p.tsa_certs = ['tsa-certs/missing.pem']), 'FILE_NOT_FOUND', 'tsa-certs/missing.pem'],
      [
        'a tsa_certs file without a certificate',
        (p) => (p.tsa_certs = ['operator/TEST-ONLY-operator.pub.pem']),
        'TSA_TRUST_INVALID',
        'tsa_certs[0] (operator/TEST-ONLY-operator.pub.pem)',
      ],
      [
        'a submitter key file that is a certificate',
        (p) =>
          (p.tlog_submitter_keys = [
            {
              key_id: 'k',
              public_key_file: 'tsa-roots/TEST-ONLY-tsa-root.cert.pem',
              valid_from: '2026-01-01T00:00:00Z',
              valid_until: null,
            },
          ]),
        'TRUST_POLICY_INVALID',
        'tlog_submitter_keys[0]',
      ],
      [
        'a submitter key outside the trust directory',
        (p) =>
          (p.tlog_submitter_keys = [
            { key_id: 'k', public_key_file: '../study.json', valid_from: '2026-01-01T00:00:00Z', valid_until: null },
          ]),
        'TRUST_POLICY_INVALID',
        '../study.json is outside the trust directory',
      ],
    ];
    for (const [what, change, code, named] of cases) {
      const edited = structuredClone(policy);
      change(edited);
      writeFileSync(policyFile, JSON.stringify(edited, null, 2));
      const r = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json']);
      expect([what, r.code, r.json.code]).toEqual([what, 3, code]);
      expect(r.json.message).toContain(named);
      expect(readFileSync(join(root, 'preregistration/freeze.json'), 'utf8')).toBe(frozen);
    }
  });

  it('refuses to overwrite freeze.json without --replace (exit 4)', async () => {
    const r = await runCli(['freeze', '--root', study(), '--json']);
    expect(r.code).toBe(4);
    expect(r.json.code).toBe('FREEZE_EXISTS');
  });

  it('takes the secret from the environment, and refuses a missing or weak one', async () => {
    const root = study();
    rmSync(join(root, 'inputs/answer-key.secret'));
    const missing = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json']);
    expect(missing.code).toBe(3);
    expect(missing.json.code).toBe('ANSWER_KEY_SECRET_MISSING');
    const weak = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json'], {
      PREREG_ANSWER_KEY_SECRET: 'short',
    });
    expect(weak.json.code).toBe('ANSWER_KEY_SECRET_WEAK');
    const env = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json'], {
      PREREG_ANSWER_KEY_SECRET: 'a TEST-ONLY secret from the environment',
    });
    expect(env.code).toBe(0);
    const committed = JSON.parse(readFileSync(join(PROJECT_ROOT, 'preregistration/freeze.json'), 'utf8'));
    expect(env.json.answer_key_root).not.toBe(committed.answer_key.root);
  });

  it('refuses an answer key that does not cover exactly the items', async () => {
    const root = study();
    writeKey(root, keyLines(root).slice(1));
    const r = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json']);
    expect(r.code).toBe(3);
    expect(r.json.code).toBe('ANSWER_KEY_INVALID');
    expect(r.json.message).toContain('item mp-001 has no answer-key entry');
  });

  it('refuses an answer key with a duplicate key in a line, naming line and column', async () => {
    const root = study();
    const lines = keyLines(root);
    lines[2] = lines[2]!.replace('{', '{"kind": "negative", ');
    writeKey(root, lines);
    const r = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json']);
    expect(r.code).toBe(3);
    expect(r.json.code).toBe('JSON_DUPLICATE_KEY');
    expect(r.json.details).toMatchObject({ line: 3 });
  });

  it('refuses a study.json that breaks its schema', async () => {
    const root = study();
    const path = join(root, 'preregistration/study.json');
    writeFileSync(path, readFileSync(path, 'utf8').replace('"as_of": "2026-11-20"', '"as_of": "yesterday"'));
    const r = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json']);
    expect(r.code).toBe(3);
    expect(r.json.code).toBe('STUDY_INVALID');
    expect(r.json.message).toContain('/as_of');
  });

  it.each([
    ['closes_at', '2026-11-31T00:00:00Z'],
    ['opens_at', '2026-11-02T24:00:00Z'],
  ])('refuses a window whose %s is no real instant (%s), which the verifiers could not use', async (field, instant) => {
    const root = study();
    const path = join(root, 'preregistration/study.json');
    const doc = JSON.parse(readFileSync(path, 'utf8'));
    doc.window[field] = instant;
    writeFileSync(path, JSON.stringify(doc, null, 2));
    const r = await runCli(['freeze', '--root', root, '--replace', '--reason', 'test refreeze', '--json']);
    expect([r.code, r.json.code]).toEqual([3, 'STUDY_INVALID']);
    expect(r.json.message).toContain(`/window/${field} "${instant}" is not a real instant`);
  });
});

describe('reveal-check', () => {
  it('accepts the revealed example key', async () => {
    const r = await runCli(['reveal-check', '--root', PROJECT_ROOT, '--json']);
    expect(r.code).toBe(0);
    expect(r.json).toMatchObject({ ok: true, item_count: 20 });
  });

  const variants: Array<[string, (lines: string[]) => string[], RegExp]> = [
    ['one item changed', (l) => l.map((x, i) => (i === 4 ? x.replace('"positive"', '"negative"') : x)), /line 5 \(mp-005\) differs/],
    ['one field changed', (l) => l.map((x, i) => (i === 0 ? x.replace('R2122-8"]', 'R2122-9"]') : x)), /line 1 \(mp-001\) differs/],
    ['two lines swapped', (l) => [l[1]!, l[0]!, ...l.slice(2)], /line 1 \(mp-002\) was committed at line 2/],
    ['one item dropped', (l) => l.slice(0, -1), /item count 19 differs from the committed 20/],
  ];
  for (const [name, mutate, problem] of variants) {
    it(`refuses a key with ${name} (exit 3)`, async () => {
      const root = study();
      writeKey(root, mutate(keyLines(root)));
      const r = await runCli(['reveal-check', '--root', root, '--json']);
      expect(r.code).toBe(3);
      expect(r.json.code).toBe('ANSWER_KEY_COMMITMENT_MISMATCH');
      expect(r.json.message).toMatch(problem);
    });
  }

  it('refuses the right key with another secret', async () => {
    const root = study();
    // The environment comes before inputs/answer-key.secret (docs/preregistration.md).
    const r = await runCli(['reveal-check', '--root', root, '--json'], { PREREG_ANSWER_KEY_SECRET: 'another TEST-ONLY secret entirely' });
    expect(r.code).toBe(3);
    expect(r.json.code).toBe('ANSWER_KEY_COMMITMENT_MISMATCH');
    writeFileSync(join(root, 'wrong.secret'), 'another TEST-ONLY secret entirely\n');
    const wrong = await runCli(['reveal-check', '--root', root, '--secret-file', join(root, 'wrong.secret'), '--json']);
    expect(wrong.code).toBe(3);
    expect(wrong.json.code).toBe('ANSWER_KEY_COMMITMENT_MISMATCH');
  });
});
