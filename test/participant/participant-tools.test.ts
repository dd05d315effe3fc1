// The participant's tools, on real artefacts and against the verifier's own code:
// submission build (from a vendored production proof, checked by ingest's line checks),
// commitment (what the study compares, and a signature that binds the owner), dev keys (a
// registration loadStudy accepts). docs/participating.md writes the rules these follow; the
// first test checks those rules by hand, in node:crypto alone, on the real proofs.
import { createHash, createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { indexCommitments, readCommitmentLine } from '../../pipeline/evidence/aer1/index.ts';
import { verifyCanonical, agentPublicKey } from '../../pipeline/evidence/intake/ed25519.ts';
import { possessionPayload } from '../../pipeline/evidence/intake/records.ts';
import { buildSubmissionLine, commitTimeline } from '../../pipeline/index.ts';
import { canonicalJson, parseJson } from '../../pipeline/formats/canonical-json.ts';
import { buildTimeline, cutTail, sampleReceipts } from '../support/aer1-builder.ts';
import { copyExampleStudy, PROJECT_ROOT, runCli } from '../support/cli.ts';

const REAL = join(PROJECT_ROOT, 'test/fixtures/real/arkforge-production');
const scratch = mkdtempSync(join(tmpdir(), 'prereg-participant-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('docs/participating.md, by hand, on the production proofs', () => {
  const keys = JSON.parse(readFileSync(join(REAL, 'published_keys.json'), 'utf8')).keys as Array<{ public: string }>;
  it.each(['proof_2026_07.json', 'proof_rekor.json', 'proof_proveit_gel.json'])(
    '%s: arkforge_signature is Ed25519 over the UTF-8 of the chain-hash hex (no "sha256:")',
    (file) => {
      const proof = JSON.parse(readFileSync(join(REAL, file), 'utf8'));
      const hex = (proof.hashes.chain as string).replace(/^sha256:/, '');
      const signature = Buffer.from((proof.arkforge_signature as string).replace(/^ed25519:/, ''), 'base64url');
      const verifies = keys.some((k) =>
        verify(
          null,
          Buffer.from(hex, 'utf8'),
          createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: k.public.replace(/^ed25519:/, '') }, format: 'jwk' }),
          signature,
        ),
      );
      expect(verifies).toBe(true);
      // Not over the 32 bytes, nor over the prefixed text.
      expect(
        keys.some((k) =>
          verify(
            null,
            Buffer.from(hex, 'hex'),
            createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: k.public.slice(8) }, format: 'jwk' }),
            signature,
          ),
        ),
      ).toBe(false);
    },
  );
});

describe('prereg submission build', () => {
  it('turns a production proof into a line ingest accepts, which verify then checks (redacted public view: UNTRUSTED)', async () => {
    const out = join(scratch, 'real.jsonl');
    // --root names no study here: outside a study, items and protocol are not checked (a note says so).
    const built = await runCli([
      'submission',
      'build',
      '--root',
      scratch,
      '--system',
      'sys-a',
      '--item',
      'q-001',
      '--answer',
      'No passage was needed.',
      '--proof',
      join(REAL, 'proof_2026_07.json'),
      '--out',
      out,
      '--json',
    ]);
    expect([built.code, built.json.ok, built.json.evidence, built.json.line_no]).toEqual([0, true, 1, 1]);
    const validated = await runCli(['validate', out, '--root', scratch, '--json']);
    expect([validated.code, validated.json.totals.accepted]).toEqual([0, 1]);
    // The proof is embedded as issued: its canonical JSON is the file's.
    const line = JSON.parse(readFileSync(out, 'utf8'));
    expect(canonicalJson(line.evidence[0].proof)).toBe(canonicalJson(JSON.parse(readFileSync(join(REAL, 'proof_2026_07.json'), 'utf8'))));
    const verified = await runCli(['verify', out, '--trust', join(PROJECT_ROOT, 'preregistration/trust'), '--json']);
    expect(verified.jsonLines[0].reason_codes).toContain('PROOF_PREIMAGE_REDACTED');
    // A second build of the same (system, item, attempt) into that file is the duplicate ingest would reject: nothing appended.
    const again = await runCli([
      'submission',
      'build',
      '--root',
      scratch,
      '--system',
      'sys-a',
      '--item',
      'q-001',
      '--answer',
      'x',
      '--proof',
      join(REAL, 'proof_2026_07.json'),
      '--out',
      out,
      '--json',
    ]);
    expect([again.code, again.json.reject.reason_code]).toEqual([1, 'SUBMISSION_DUPLICATE']);
    expect(readFileSync(out, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
  });

  it("checks the study's items and protocol under --root (SUBMISSION_ITEM_UNKNOWN, SYSTEM_UNREGISTERED), writing nothing", async () => {
    const study = copyExampleStudy();
    try {
      const out = join(scratch, 'refused.jsonl');
      const unknownItem = await runCli([
        'submission',
        'build',
        '--root',
        study.root,
        '--system',
        'sys-honest',
        '--item',
        'mp-999',
        '--answer',
        'x',
        '--json',
        '--out',
        out,
      ]);
      expect([unknownItem.code, unknownItem.json.reject.reason_code]).toEqual([1, 'SUBMISSION_ITEM_UNKNOWN']);
      const unregistered = await runCli([
        'submission',
        'build',
        '--root',
        study.root,
        '--system',
        'sys-nobody',
        '--item',
        'mp-001',
        '--answer',
        'x',
        '--json',
        '--out',
        out,
      ]);
      expect([unregistered.code, unregistered.json.reject.reason_code]).toEqual([1, 'SYSTEM_UNREGISTERED']);
      expect(existsSync(out)).toBe(false);
    } finally {
      study.cleanup();
    }
  });

  it("keeps number lexemes of the bodies (typed API): 1.0 stays 1.0, so the issuer's body hash still holds", () => {
    const built = buildSubmissionLine({
      system_id: 's',
      item_id: 'i',
      attempt: 1,
      answer: { text: 't', refused: false, truncated: false },
      evidence: [{ proof: { proof_id: 'p' }, request: parseJson('{"temperature": 1.0, "top_k": 3}') }],
    });
    expect(built.outcome.accepted?.evidence[0]?.request_json).toBe('{"temperature":1.0,"top_k":3}');
  });
});

describe('prereg commitment', () => {
  const { timeline, commitment } = buildTimeline({ job_id: 'job-1', receipts: sampleReceipts(3) });
  const file = join(scratch, 'timeline.json');
  writeFileSync(file, JSON.stringify(timeline));

  it("computes the draft's commitment, equal to the independent builder's, and a signature the study's keyring attributes to the owner", async () => {
    const agent = generateKeyPairSync('ed25519').privateKey;
    const keyFile = join(scratch, 'agent.key.pem');
    writeFileSync(keyFile, agent.export({ format: 'pem', type: 'pkcs8' }));
    const r = await runCli(['commitment', file, '--published-at', '2026-11-15T12:00:00Z', '--sign', keyFile, '--json']);
    expect(r.code).toBe(0);
    expect(r.json.commitment).toMatchObject({
      job_id: 'job-1',
      final_entry_digest: commitment.final_entry_digest,
      entry_count: 3,
      published_at: '2026-11-15T12:00:00Z',
    });
    const read = readCommitmentLine(r.json.commitment, { file: 'c', line: 1, byte_offset: 0, line_sha256: '' });
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    const index = indexCommitments([read], [{ system_id: 'sys-a', key: createPublicKey(agent) }]);
    expect(index.signerOf(index.jobs.get('job-1')!.valid[0]!)).toEqual({ kind: 'signed', system_id: 'sys-a' });
    // Unsigned, the typed API gives the four members only.
    expect(Object.keys(commitTimeline(timeline, '2026-11-15T12:00:00Z').commitment).sort()).toEqual([
      'entry_count',
      'final_entry_digest',
      'job_id',
      'published_at',
    ]);
  });

  it('refuses a broken timeline (COMMITMENT_TIMELINE_BROKEN): a commitment to it would anchor nothing', async () => {
    const broken = join(scratch, 'broken.json');
    const cut = cutTail(timeline, 2);
    writeFileSync(broken, JSON.stringify([cut[0], { ...cut[1], prev_digest: 'f'.repeat(64) }]));
    const r = await runCli(['commitment', broken, '--json']);
    expect([r.code, r.json.code]).toEqual([3, 'COMMITMENT_TIMELINE_BROKEN']);
    expect(r.json.message).toContain('CHAIN_LINK_BROKEN');
  });
});

describe('prereg dev keys', () => {
  it('writes a TEST-ONLY agent key (0600) and an agent_keys entry whose possession verifies', async () => {
    const out = join(scratch, 'keys');
    const r = await runCli(['dev', 'keys', '--system', 'sys-a', '--study-id', 'my-study', '--out', out, '--json']);
    expect([r.code, r.json.test_only]).toEqual([0, true]);
    expect(r.json.key_file).toBe(join(out, 'TEST-ONLY-agent-sys-a.key.pem'));
    const { public_key, possession } = r.json.agent_key;
    expect(verifyCanonical(agentPublicKey(public_key)!, possessionPayload('my-study', 'sys-a'), possession)).toBe(true);
    expect(createHash('sha256').update(readFileSync(r.json.key_file)).digest('hex')).toHaveLength(64);
    const again = await runCli(['dev', 'keys', '--system', 'sys-a', '--study-id', 'my-study', '--out', out, '--json']);
    expect([again.code, again.json.code]).toEqual([4, 'INIT_TARGET_EXISTS']);
  });
});
