// A study built from nothing but the CLI: init → two documents added → freeze → anchor (a local
// TSA over HTTP) → check-anchors → reveal → run → audit VALID (docs/operating.md).
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDITOR_TSA_ROOT, publishedFreezeDigest } from '../support/auditor.ts';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';
import { startTsaServer, type TsaServer } from '../support/tsa/http-tsa.ts';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

let base: string;
let tsa: TsaServer;
/** The genTime of the TSA's next tokens; now when unset. */
let genTime: string | undefined;
beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'prereg-init-'));
  tsa = await startTsaServer({ backend: 'pkijs', genTime: () => genTime ?? new Date() });
});
afterAll(async () => {
  await tsa?.close();
  rmSync(base, { recursive: true, force: true });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => statSync(join(dir, f)).isFile());
}

describe('prereg init, then the whole study from the CLI', () => {
  it('reaches a VALID audit, with every private file outside the study', async () => {
    const study = join(base, 'my-study');
    const priv = join(base, 'operator-private');
    const now = Date.now();
    // The whole study is walked now: its window is placed in the past, the freeze anchored the day
    // before it opened (the TSA's genTime), so that run comes after closes_at (an unsealed study is
    // scored only then, WINDOW_OPEN).
    genTime = iso(now - 3 * DAY);
    const created = await runCli([
      'init',
      study,
      '--private-dir',
      priv,
      '--opens-at',
      iso(now - 2 * DAY),
      '--closes-at',
      iso(now - DAY),
      '--tsa',
      `local=${tsa.url}`,
      '--tsa-root',
      join(PROJECT_ROOT, 'test/fixtures/pki/TEST-ONLY-tsa-root.cert.pem'),
      // A rehearsal without participants' keys: no intake to seal, a mode the verdict names as weakened.
      '--intake',
      'unsealed',
      '--seller',
      'retrieval.example',
      '--system',
      'sys-a=fp-sys-a',
      '--json',
    ]);
    expect(created.code, created.stdout + created.stderr).toBe(0);
    expect(created.json).toMatchObject({ study_id: 'my-study', dir: study, private_dir: priv });

    // Nothing secret inside the study: no private key, no answer key, no secret.
    const secret = readFileSync(join(priv, 'answer-key.secret'), 'utf8').trim();
    for (const f of filesUnder(study)) {
      const text = readFileSync(join(study, f), 'utf8');
      expect(text, f).not.toContain('PRIVATE KEY');
      expect(text, f).not.toContain(secret);
    }
    expect(filesUnder(priv).sort()).toEqual([
      'answer-key.jsonl',
      'answer-key.secret',
      'operator-cms.cert.pem',
      'operator-cms.key.pem',
      'operator.key.pem',
    ]);
    expect(statSync(join(priv, 'operator.key.pem')).mode & 0o077).toBe(0);

    // The operator adds two documents, one more item and its key line.
    writeFileSync(
      join(study, 'corpus/fees.md'),
      '# Fees\n\n## Article B-1\n\nA filing fee of 250 EUR.\n\n## Article B-2\n\nNo fee for appeals.\n',
    );
    writeFileSync(join(study, 'corpus/deadlines.md'), '# Deadlines\n\n## Article C-1\n\nThirty days.\n');
    writeFileSync(
      join(study, 'corpus/items.jsonl'),
      `${readFileSync(join(study, 'corpus/items.jsonl'), 'utf8')}{"item_id":"q-002","question":"What is the filing fee?"}\n`,
    );
    const keyFile = join(priv, 'answer-key.jsonl');
    writeFileSync(
      keyFile,
      `${readFileSync(keyFile, 'utf8')}{"item_id":"q-002","kind":"positive","expected_refs":["B-1"],"expected_amounts":[{"ref":"B-1","value":"250","unit":"EUR"}]}\n`,
    );

    // doctor: the plan is ready to freeze, nothing else is yet.
    const doctorBefore = await runCli(['doctor', '--root', study, '--json']);
    expect([doctorBefore.code, doctorBefore.json.stages.map((s: { status: string }) => s.status)]).toEqual([
      3,
      ['ready', 'blocked', 'blocked', 'blocked'],
    ]);
    expect(doctorBefore.json.next).toMatch(/^anchor: freeze first/);

    const frozen = await runCli([
      'freeze',
      '--root',
      study,
      '--answer-key',
      keyFile,
      '--secret-file',
      join(priv, 'answer-key.secret'),
      '--json',
    ]);
    expect(frozen.code, frozen.stdout + frozen.stderr).toBe(0);
    expect(frozen.json).toMatchObject({ corpus_files: 4, vocabulary_size: 4, answer_key_items: 2 });

    const anchored = await runCli(['anchor', '--root', study, '--json']);
    expect(anchored.code, anchored.stdout + anchored.stderr).toBe(0);
    expect(anchored.json.stored.map((s: { witness: string }) => s.witness)).toEqual(['local']);

    const checked = await runCli(['check-anchors', '--root', study, '--json']);
    expect([checked.code, checked.json.reason_codes, checked.json.independent_witnesses]).toEqual([0, [], 1]);
    // What the operator publishes before the study opens, and the auditor keeps (docs/audit.md).
    const published = publishedFreezeDigest(study);

    // After the deadline: the key and secret are revealed, submissions and commitments collected.
    copyFileSync(keyFile, join(study, 'inputs/answer-key.jsonl'));
    copyFileSync(join(priv, 'answer-key.secret'), join(study, 'inputs/answer-key.secret'));
    const line = (item: string, text: string) =>
      JSON.stringify({
        format: 'prereg.submission/1',
        system_id: 'sys-a',
        item_id: item,
        attempt: 1,
        answer: { text, refused: false, truncated: false },
        evidence: [],
      });
    writeFileSync(
      join(study, 'inputs/submissions/sys-a.jsonl'),
      `${line('q-001', 'Article A-1 sets a fee of 100 EUR.')}\n${line('q-002', 'Article B-1: 250 EUR.')}\n`,
    );
    writeFileSync(join(study, 'inputs/commitments.jsonl'), '');

    const ran = await runCli([
      'run',
      '--root',
      study,
      '--json',
      '--operator-key',
      join(priv, 'operator.key.pem'),
      '--cms-key',
      join(priv, 'operator-cms.key.pem'),
      '--cms-cert',
      join(priv, 'operator-cms.cert.pem'),
    ]);
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    expect(existsSync(join(ran.json.dir, 'manifest.sig'))).toBe(true);

    const audited = await runCli([
      'audit',
      ran.json.dir,
      '--root',
      study,
      '--tsa-root',
      AUDITOR_TSA_ROOT,
      '--expect-freeze',
      published,
      '--json',
    ]);
    expect(audited.code, JSON.stringify(audited.json?.rails?.filter((r: { ok: boolean }) => !r.ok))).toBe(0);
    expect(audited.json.verdict).toBe('valid');
    expect(audited.json.weakened_modes).toEqual(['unsealed intake']);
  });

  it('refuses a study directory that is not empty, and a private directory inside the study (writing nothing)', async () => {
    const dir = join(base, 'taken');
    const first = await runCli(['init', dir, '--json']);
    expect(first.code).toBe(0);
    const again = await runCli(['init', dir, '--json']);
    expect([again.code, again.json.code]).toEqual([4, 'INIT_TARGET_EXISTS']);
    const inside = await runCli(['init', join(base, 'other'), '--private-dir', join(base, 'other/keys'), '--json']);
    expect([inside.code, inside.json.code]).toEqual([4, 'PRIVATE_DIR_INSIDE_STUDY']);
    expect(existsSync(join(base, 'other'))).toBe(false);
  });

  it('judges the private directory on real paths: through a symlink to the study it is inside, refused before anything is written', async () => {
    // The case: alias3 → st3, `init st3 --private-dir alias3/priv` wrote the keys into st3/priv.
    const study = join(base, 'st3');
    mkdirSync(study);
    symlinkSync(study, join(base, 'alias3'));
    const r = await runCli(['init', study, '--private-dir', join(base, 'alias3/priv'), '--json']);
    expect([r.code, r.json.code]).toEqual([4, 'PRIVATE_DIR_INSIDE_STUDY']);
    expect(readdirSync(study)).toEqual([]);
    // The study named through the link, the private directory plainly inside: refused too.
    const viaLink = await runCli(['init', join(base, 'alias3'), '--private-dir', join(study, 'keys'), '--json']);
    expect([viaLink.code, viaLink.json.code]).toEqual([4, 'PRIVATE_DIR_INSIDE_STUDY']);
    expect(readdirSync(study)).toEqual([]);
    // A symlink beside the study that leads outside it is outside: accepted.
    mkdirSync(join(base, 'vault'));
    symlinkSync(join(base, 'vault'), join(base, 'vault-link'));
    const outside = await runCli(['init', study, '--private-dir', join(base, 'vault-link/st3'), '--json']);
    expect(outside.code, outside.stdout).toBe(0);
    expect(readdirSync(join(base, 'vault/st3')).length).toBeGreaterThan(0);
  });

  it('registers the systems given with --system, and warns (init and doctor) when none is', async () => {
    const bare = await runCli(['init', join(base, 'bare'), '--json']);
    expect(bare.json.warnings.map((w: { code: string }) => w.code)).toEqual(['STUDY_SYSTEMS_UNREGISTERED']);
    expect(JSON.parse(readFileSync(join(base, 'bare/preregistration/study.json'), 'utf8')).systems).toBeUndefined();
    const doctor = await runCli(['doctor', '--root', join(base, 'bare'), '--json']);
    expect(doctor.json.warnings.some((w: string) => w.startsWith('STUDY_SYSTEMS_UNREGISTERED'))).toBe(true);

    const registered = await runCli([
      'init',
      join(base, 'registered'),
      '--system',
      'sys-a=fp-a1,fp-a2',
      '--system',
      'sys-b=fp-b',
      '--json',
    ]);
    expect([registered.code, registered.json.warnings]).toEqual([0, []]);
    expect(JSON.parse(readFileSync(join(base, 'registered/preregistration/study.json'), 'utf8')).systems).toEqual([
      { system_id: 'sys-a', buyer_fingerprints: ['fp-a1', 'fp-a2'] },
      { system_id: 'sys-b', buyer_fingerprints: ['fp-b'] },
    ]);
    const doctorRegistered = await runCli(['doctor', '--root', join(base, 'registered'), '--json']);
    expect(doctorRegistered.json.warnings.some((w: string) => w.startsWith('STUDY_SYSTEMS_UNREGISTERED'))).toBe(false);
    const bad = await runCli(['init', join(base, 'bad'), '--system', 'sys-a', '--json']);
    expect([bad.code, bad.json.code]).toEqual([2, 'USAGE']);
  });
});
