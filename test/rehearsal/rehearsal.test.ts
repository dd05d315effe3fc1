// The whole rehearsal of docs/getting-started.md through the CLI only: init --rehearsal, dev tsa
// (a real process over HTTP, restarted with the genTime of each phase: the test sets the times),
// freeze, anchor, dev issue + submission build + submission sign for two systems, commitment,
// intake, seal, reveal-check, run, and an audit that is VALID with the dev root and key — and
// INVALID without them. `openssl ts -verify` accepts the dev TSA's tokens.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { devTsa, ok, sealAndRun, stopDevTsas } from '../support/dev-tsa-process.ts';

const base = mkdtempSync(join(tmpdir(), 'prereg-rehearsal-'));
afterAll(() => {
  stopDevTsas();
  rmSync(base, { recursive: true, force: true });
});

const OPENS = '2026-11-10T10:00:00Z';
const CLOSES = '2026-11-10T10:15:00Z';

describe('the rehearsal, from an empty directory to a VALID audit, through the CLI only', () => {
  it('walks docs/getting-started.md', async () => {
    const started = Date.now();
    const study = join(base, 'my-rehearsal');
    const priv = `${study}.private`;
    const created = await ok(['init', study, '--rehearsal', '--require-receipts', '--opens-at', OPENS, '--closes-at', CLOSES]);
    const kit = created.json.rehearsal.kit as string;
    expect(created.json.rehearsal).toMatchObject({ test_only: true, seller: 'dev-retrieval.test-only.invalid' });
    expect(JSON.parse(readFileSync(join(study, 'preregistration/study.json'), 'utf8')).title).toMatch(/^TEST-ONLY rehearsal/);
    // Nothing private inside the study.
    for (const f of created.json.files as string[]) expect(readFileSync(join(study, f), 'utf8'), f).not.toContain('PRIVATE KEY');

    // Before the window: freeze, anchor with the dev TSA dated before opens_at.
    await ok(['freeze', '--root', study, '--answer-key', join(priv, 'answer-key.jsonl'), '--secret-file', join(priv, 'answer-key.secret')]);
    let tsa = await devTsa(kit, '2026-11-10T09:50:00Z');
    const anchored = await ok(['anchor', '--root', study, '--tsa', `dev=${tsa.url}`, '--retries', '0']);
    expect(anchored.json.stored.map((s: { witness: string }) => s.witness)).toEqual(['dev']);
    expect(await tsa.stop()).toBe(0);
    const checked = await ok(['check-anchors', '--root', study]);
    expect(checked.json.independent_witnesses).toBe(1);
    // The operator's public key as published before the window opens, copied by the auditor.
    const publishedOperatorKey = join(base, 'operator.published.pub.pem');
    copyFileSync(join(study, 'preregistration/trust/operator/operator.pub.pem'), publishedOperatorKey);
    // OpenSSL alone accepts the dev TSA's token over the freeze digest's 32 bytes.
    const digestFile = join(base, 'freeze-digest.bin');
    writeFileSync(digestFile, Buffer.from(checked.json.freeze_digest, 'hex'));
    const openssl = spawnSync(
      'openssl',
      [
        'ts',
        '-verify',
        '-data',
        digestFile,
        '-in',
        join(study, 'preregistration/anchors/dev.tsr'),
        '-CAfile',
        created.json.rehearsal.tsa_root,
      ],
      { encoding: 'utf8' },
    );
    expect(openssl.stdout + openssl.stderr).toContain('Verification: OK');

    // During the window: each system's call, its line, its commitment, signed and taken in.
    tsa = await devTsa(kit, '2026-11-10T10:05:00Z');
    const receipts: string[] = [];
    for (const system of ['sys-a', 'sys-b']) {
      const agentKey = join(kit, `TEST-ONLY-agent-${system}.key.pem`);
      const evidence = join(base, `evidence-${system}`);
      await ok([
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
      ]);
      const file = join(base, `${system}.jsonl`);
      const built = await ok([
        'submission',
        'build',
        '--root',
        study,
        '--system',
        system,
        '--item',
        'q-001',
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
        '--out',
        file,
      ]);
      expect(built.json).toMatchObject({ ok: true, evidence: 1, receipts: true, line_no: 1 });
      const commitments = join(base, `${system}.commitments.jsonl`);
      const committed = await ok([
        'commitment',
        join(evidence, 'timeline.json'),
        '--published-at',
        '2026-11-10T10:02:00Z',
        '--sign',
        agentKey,
        '--out',
        commitments,
      ]);
      expect(committed.json.signed_by).toMatch(/^ed25519:/);
      // The participant's own check before sending: against its signed commitment, the study's verdict.
      const checked = await ok(['verify', file, '--root', study, '--commitments', commitments, '--json']);
      expect(checked.jsonLines.map((l) => `${l.part} ${l.status}`)).toEqual(['evidence[0] VERIFIED', 'receipts ANCHORED']);
      for (const [f, kind] of [
        [file, 'submissions'],
        [commitments, 'commitments'],
      ] as const) {
        await ok(['submission', 'sign', f, '--key', agentKey, '--system', system, '--kind', kind, '--root', study]);
        await ok([
          'intake',
          `${f}.intake.json`,
          '--operator-key',
          join(priv, 'operator.key.pem'),
          '--tsa',
          `dev=${tsa.url}`,
          '--retries',
          '0',
          '--root',
          study,
        ]);
      }
      receipts.push(`${file}.intake.receipt.json`);
    }
    expect(await tsa.stop()).toBe(0);

    // After closes_at: seal, reveal, run.
    const ran = await sealAndRun(kit, study, priv, '2026-11-10T10:20:00Z');
    const results = JSON.parse(readFileSync(join(ran.json.dir, 'results.json'), 'utf8'));
    const primary = results.scores.filter((s: { metric: string }) => s.metric === 'positives_citing_expected');
    // Proven, not only declared: the dev proofs verify, bind their systems' buyers and the pinned seller, and the timelines are anchored.
    expect(primary.map((s: { system_id: string; proven: number; n_proven: number }) => [s.system_id, s.proven, s.n_proven])).toEqual([
      ['sys-a', 1, 1],
      ['sys-b', 1, 1],
    ]);

    // The audit trusts what the auditor names: VALID with the dev root and key, INVALID without.
    const receiptArgs = receipts.flatMap((r) => ['--receipt', r]);
    const audited = await runCli([
      'audit',
      ran.json.dir,
      '--root',
      study,
      '--tsa-root',
      created.json.rehearsal.tsa_root,
      '--issuer-keys',
      created.json.rehearsal.issuer_keys,
      '--operator-key',
      publishedOperatorKey,
      ...receiptArgs,
      '--json',
    ]);
    expect(audited.code, JSON.stringify(audited.json?.rails?.filter((r: { ok: boolean }) => !r.ok))).toBe(0);
    expect(audited.json.verdict).toBe('valid');
    const unconfirmed = await runCli(['audit', ran.json.dir, '--root', study, ...receiptArgs, '--json']);
    expect([unconfirmed.code, unconfirmed.json.verdict, unconfirmed.json.reason_codes]).toEqual([
      1,
      'invalid',
      expect.arrayContaining(['AUDIT_TRUST_UNCONFIRMED']),
    ]);
    // The closing note's figure: the whole walk, CLI only.
    console.log(`rehearsal: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  });
});
