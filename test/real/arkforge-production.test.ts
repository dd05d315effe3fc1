// The reference service's production proofs (test/fixtures/real/arkforge-production/, see its
// PROVENANCE.md), verified end to end as an operator would: a trust directory pinning FreeTSA's
// root (with FreeTSA's TSA certificate, which the tokens do not carry) and the Rekor log key, the
// issuer's keys imported from its published key history with `prereg trust import-arkforge`, then
// `prereg verify` on the files. Each real artefact gives the verdict its provenance states; each
// tampered copy derived from it here is refused with the code that names what was changed.
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, type CliRun } from '../support/cli.ts';

const REAL = path.join(PROJECT_ROOT, 'test/fixtures/real/arkforge-production');
const REKOR_LOG_ID = 'c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- free-form edits of real JSON
type Json = Record<string, any>;
const read = (name: string): Json => JSON.parse(readFileSync(path.join(REAL, name), 'utf8')) as Json;
const copy = <T>(v: T): T => structuredClone(v);

const proof31 = read('proof_proveit_gel.json');
const proof20 = read('proof_rekor.json');
const proof12 = read('proof_2026_07.json');
/** The Rekor API returns {uuid: entry}; the evidence item carries the entry. */
const rekorEntry = Object.values(read('rekor_entry.json'))[0] as Json;

/** One bit of a base64 / base64url text flipped in its decoded bytes, re-encoded the same way. */
function flipBase64(text: string, encoding: 'base64' | 'base64url', byte = 10): string {
  const bytes = Buffer.from(text, encoding);
  bytes[byte]! ^= 0x01;
  return bytes.toString(encoding);
}
function flipSignature(p: Json): Json {
  const out = copy(p);
  out.arkforge_signature = `ed25519:${flipBase64(String(p.arkforge_signature).slice('ed25519:'.length), 'base64url')}`;
  return out;
}
/** The last hex digit of a sha256:<hex> or bare hex value changed. */
function flipHex(value: string): string {
  const last = value.at(-1)!;
  return value.slice(0, -1) + (last === '0' ? '1' : '0');
}

let dir: string;
let trustDir: string;
let verified: Map<string, CliRun['jsonLines'][number]>;
let importRun: CliRun;
/** The real proofs verified with the same policy but without FreeTSA's TSA certificate (tsa_certs). */
let withoutTsaCert: Map<string, CliRun['jsonLines'][number]>;

/** Every file below, with the verdict it must get. */
const FILES: Record<string, Json> = {
  // --- the real artefacts, as published ---
  'real-3.1-batch.json': proof31,
  'real-2.0-rekor.json': { proof: proof20, transparency_log_entry: rekorEntry },
  'real-2.0-bare.json': proof20,
  'real-1.2.json': proof12,
  // --- tampered copies ---
  '3.1-signature-bit.json': flipSignature(proof31),
  '2.0-signature-bit.json': { proof: flipSignature(proof20), transparency_log_entry: rekorEntry },
  '1.2-signature-bit.json': flipSignature(proof12),
  '3.1-commitment-bit.json': (() => {
    const p = copy(proof31);
    p.commitments.seller = flipHex(p.commitments.seller);
    return p;
  })(),
  '3.1-identity-commitment-bit.json': (() => {
    const p = copy(proof31);
    p.commitments.agent_identity = flipHex(p.commitments.agent_identity);
    return p;
  })(),
  '3.1-identity-opening-changed.json': (() => {
    const p = copy(proof31);
    p.disclosed.did_resolution_status.value = 'unverified';
    p.did_resolution_status = 'unverified';
    return p;
  })(),
  '3.1-batch-root.json': (() => {
    const p = copy(proof31);
    p.batch_anchor.root = flipHex(p.batch_anchor.root);
    return p;
  })(),
  '3.1-batch-path.json': (() => {
    const p = copy(proof31);
    p.batch_anchor.audit_path[2] = flipHex(p.batch_anchor.audit_path[2]);
    return p;
  })(),
  '3.1-batch-size-overstated.json': (() => {
    const p = copy(proof31);
    p.batch_anchor.tree_size = 17;
    return p;
  })(),
  '3.1-batch-index-out-of-range.json': (() => {
    const p = copy(proof31);
    p.batch_anchor.leaf_index = 11;
    return p;
  })(),
  '2.0-rekor-set-bit.json': (() => {
    const e = copy(rekorEntry);
    e.verification.signedEntryTimestamp = flipBase64(e.verification.signedEntryTimestamp, 'base64');
    return { proof: proof20, transparency_log_entry: e };
  })(),
  '2.0-rekor-of-another-proof.json': { proof: proof12, transparency_log_entry: rekorEntry },
  '2.0-token-of-another-proof.json': (() => {
    const p = copy(proof20);
    p.timestamp_authority.tsr_base64 = proof12.timestamp_authority.tsr_base64;
    return p;
  })(),
  '3.1-token-of-another-proof.json': (() => {
    const p = copy(proof31);
    p.timestamp_authority.tsr_base64 = proof20.timestamp_authority.tsr_base64;
    return p;
  })(),
  '3.1-relabelled-3.0.json': (() => {
    const p = copy(proof31);
    p.spec_version = '3.0';
    return p;
  })(),
  '3.1-relabelled-2.1.json': (() => {
    const p = copy(proof31);
    p.spec_version = '2.1';
    return p;
  })(),
  '2.0-relabelled-9.9.json': (() => {
    const p = copy(proof20);
    p.spec_version = '9.9';
    return p;
  })(),
  '2.0-preimage-made-up.json': (() => {
    const p = copy(proof20);
    p.parties = { buyer_fingerprint: 'ab'.repeat(32), seller: p.seller };
    p.certification_fee = { method: 'stripe', transaction_id: 'pi_made_up', amount: 0.1, currency: 'eur', status: 'succeeded' };
    return p;
  })(),
  '2.0-timestamp-moved.json': (() => {
    const p = copy(proof20);
    p.timestamp = '2026-03-03T17:18:53Z';
    return p;
  })(),
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'prereg-real-'));
  trustDir = path.join(dir, 'trust');
  mkdirSync(trustDir);
  for (const f of ['freetsa-cacert.pem', 'freetsa-tsa.crt', 'rekor-log.pub.pem']) copyFileSync(path.join(REAL, f), path.join(trustDir, f));
  // The operator's base policy: FreeTSA's root pinned, its TSA certificate supplied for tokens
  // that carry none, the public Rekor log key pinned; no issuer key yet.
  writeFileSync(
    path.join(trustDir, 'policy.json'),
    `${JSON.stringify(
      {
        format: 'prereg.trust/1',
        arkforge_keys: [],
        tsa_roots: ['freetsa-cacert.pem'],
        tsa_certs: ['freetsa-tsa.crt'],
        tlog_keys: [{ log_id: REKOR_LOG_ID, public_key_file: 'rekor-log.pub.pem' }],
        require_tsa_token: true,
        max_skew_seconds: 300,
        require_receipts: false,
      },
      null,
      2,
    )}\n`,
  );
  // …and the issuer's keys from its published history (Ed25519 proof keys, ECDSA Rekor keys).
  importRun = await runCli(['trust', 'import-arkforge', path.join(REAL, 'published_keys.json'), '--trust', trustDir, '--json']);
  const files = path.join(dir, 'files');
  mkdirSync(files);
  for (const [name, doc] of Object.entries(FILES)) writeFileSync(path.join(files, name), JSON.stringify(doc, null, 1));
  // No study.json in --root: outside a study nothing bounds the time.
  const cli = await runCli(['verify', files, '--root', dir, '--trust', trustDir, '--json']);
  verified = new Map(cli.jsonLines.map((l) => [path.basename(l.file as string), l]));
  const noCerts = path.join(dir, 'trust-without-tsa-cert');
  cpSync(trustDir, noCerts, { recursive: true });
  const policy = JSON.parse(readFileSync(path.join(noCerts, 'policy.json'), 'utf8')) as Json;
  delete policy.tsa_certs;
  writeFileSync(path.join(noCerts, 'policy.json'), JSON.stringify(policy));
  const real = ['real-3.1-batch.json', 'real-2.0-rekor.json', 'real-1.2.json'].map((f) => path.join(files, f));
  const bare = await runCli(['verify', ...real, '--root', dir, '--trust', noCerts, '--json']);
  withoutTsaCert = new Map(bare.jsonLines.map((l) => [path.basename(l.file as string), l]));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const nonSkipped = (checks: Record<string, string>) => Object.fromEntries(Object.entries(checks).filter(([, v]) => v !== 'skipped'));

describe('the production proofs, as published', () => {
  it('the key history imports into the policy', () => {
    expect(importRun.code).toBe(0);
  });

  it('spec 3.1, batch-anchored: VERIFIED — commitments root, identity openings, batch path, key-1, FreeTSA token 604 s later', () => {
    const r = verified.get('real-3.1-batch.json')!;
    expect([r.kind, r.status, r.reason_codes]).toEqual(['proof', 'VERIFIED', []]);
    expect(nonSkipped(r.checks)).toEqual({
      structure: 'pass',
      chain: 'pass',
      commitments: 'pass',
      disclosures: 'pass',
      identity: 'pass',
      signature: 'pass',
      key: 'pass',
      batch: 'pass',
      tsa: 'pass',
      time: 'pass',
    });
  });

  it('spec 3.1: its disclosure opens the identity block only, not `seller`: the served seller is bound by nothing (SPEC §12.4)', () => {
    const r = verified.get('real-3.1-batch.json')!;
    expect(proof31.seller).toBe('proveit.arkforge.tech');
    expect(Object.keys(proof31.disclosed).sort()).toEqual([
      'agent_identity',
      'agent_identity_verified',
      'did_resolution_status',
      'identity_consistent',
    ]);
    expect(r.seller).toBeNull();
  });

  it('the public views below 3.0 bind no seller either (their preimage cannot be recomputed)', () => {
    for (const name of ['real-2.0-rekor.json', 'real-2.0-bare.json', 'real-1.2.json']) expect(verified.get(name)!.seller, name).toBeNull();
  });

  it('spec 2.0 with its Rekor entry: UNTRUSTED PROOF_PREIMAGE_REDACTED; signature, token and log entry verify over the declared chain hash', () => {
    const r = verified.get('real-2.0-rekor.json')!;
    expect([r.kind, r.status, r.reason_codes, r.informational_codes]).toEqual([
      'evidence',
      'UNTRUSTED',
      ['PROOF_IDENTITY_UNANCHORED', 'PROOF_PREIMAGE_REDACTED'],
      ['PROOF_IDENTITY_UNANCHORED'],
    ]);
    expect(r.checks).toMatchObject({ chain: 'skipped', signature: 'pass', key: 'pass', tsa: 'pass', tlog: 'pass', time: 'pass' });
    expect(nonSkipped(r.checks)).toEqual({ structure: 'pass', signature: 'pass', key: 'pass', tsa: 'pass', tlog: 'pass', time: 'pass' });
  });

  it.each(['real-2.0-bare.json', 'real-1.2.json'])(
    '%s (public view, no log entry): UNTRUSTED PROOF_PREIMAGE_REDACTED; signature and token verify',
    (name) => {
      const r = verified.get(name)!;
      expect([r.kind, r.status, r.reason_codes]).toEqual(['proof', 'UNTRUSTED', ['PROOF_IDENTITY_UNANCHORED', 'PROOF_PREIMAGE_REDACTED']]);
      expect(nonSkipped(r.checks)).toEqual({ structure: 'pass', signature: 'pass', key: 'pass', tsa: 'pass', time: 'pass' });
    },
  );
});

describe("FreeTSA's tokens carry no certificate", () => {
  it.each([
    ['real-3.1-batch.json', []],
    ['real-2.0-rekor.json', ['PROOF_IDENTITY_UNANCHORED', 'PROOF_PREIMAGE_REDACTED']],
    ['real-1.2.json', ['PROOF_IDENTITY_UNANCHORED', 'PROOF_PREIMAGE_REDACTED']],
  ])(
    "%s without FreeTSA's TSA certificate in the policy: the token is PROOF_TSA_UNTRUSTED (its signer is found nowhere)",
    (name, others) => {
      const r = withoutTsaCert.get(name)!;
      expect([r.status, r.reason_codes]).toEqual(['UNTRUSTED', [...others, 'PROOF_TSA_UNTRUSTED'].sort()]);
      expect(r.checks.tsa).toBe('fail');
      expect((r.problems as string[]).join('\n')).toContain('TSA_SIGNER_NOT_FOUND');
    },
  );
});

describe('tampered copies of the production proofs are refused with the code that names the change', () => {
  it.each([
    ['3.1-signature-bit.json', 'TAMPERED', ['PROOF_SIGNATURE_INVALID']],
    ['2.0-signature-bit.json', 'TAMPERED', ['PROOF_IDENTITY_UNANCHORED', 'PROOF_PREIMAGE_REDACTED', 'PROOF_SIGNATURE_INVALID']],
    ['1.2-signature-bit.json', 'TAMPERED', ['PROOF_IDENTITY_UNANCHORED', 'PROOF_PREIMAGE_REDACTED', 'PROOF_SIGNATURE_INVALID']],
    // The chain hash is the root of the commitments: any changed commitment breaks it.
    ['3.1-commitment-bit.json', 'TAMPERED', ['PROOF_COMMITMENT_ROOT_MISMATCH']],
    // …and a changed identity commitment no longer opens with the published nonce and value.
    ['3.1-identity-commitment-bit.json', 'TAMPERED', ['PROOF_COMMITMENT_ROOT_MISMATCH', 'PROOF_DISCLOSURE_MISMATCH']],
    ['3.1-identity-opening-changed.json', 'TAMPERED', ['PROOF_DISCLOSURE_MISMATCH']],
    // The token witnesses the batch root: a changed root is off the path and off the token.
    ['3.1-batch-root.json', 'TAMPERED', ['PROOF_BATCH_PATH_INVALID', 'PROOF_TSA_INVALID']],
    ['3.1-batch-path.json', 'TAMPERED', ['PROOF_BATCH_PATH_INVALID']],
    ['3.1-batch-size-overstated.json', 'TAMPERED', ['PROOF_BATCH_PATH_LENGTH']],
    ['3.1-batch-index-out-of-range.json', 'TAMPERED', ['PROOF_BATCH_INDEX_OUT_OF_RANGE']],
    ['2.0-rekor-set-bit.json', 'UNTRUSTED', ['PROOF_IDENTITY_UNANCHORED', 'PROOF_PREIMAGE_REDACTED', 'PROOF_TLOG_SET']],
    ['2.0-rekor-of-another-proof.json', 'UNTRUSTED', ['PROOF_IDENTITY_UNANCHORED', 'PROOF_PREIMAGE_REDACTED', 'PROOF_TLOG_ARTIFACT']],
    ['2.0-token-of-another-proof.json', 'UNTRUSTED', ['PROOF_IDENTITY_UNANCHORED', 'PROOF_PREIMAGE_REDACTED', 'PROOF_TSA_INVALID']],
    ['3.1-token-of-another-proof.json', 'UNTRUSTED', ['PROOF_TSA_INVALID']],
    // 3.0 commits no identity block: the relabelled proof commits fields outside its set.
    ['3.1-relabelled-3.0.json', 'TAMPERED', ['PROOF_COMMITMENT_SET_MISMATCH', 'PROOF_IDENTITY_UNANCHORED']],
    // Below 3.0 nothing is committed: the published openings open nothing, and the preimage is not published.
    ['3.1-relabelled-2.1.json', 'TAMPERED', ['PROOF_DISCLOSURE_MISMATCH', 'PROOF_IDENTITY_UNANCHORED', 'PROOF_PREIMAGE_REDACTED']],
    ['2.0-relabelled-9.9.json', 'MALFORMED', ['PROOF_SPEC_VERSION_UNKNOWN']],
    // A preimage filled in by hand is recomputed, and does not give the declared chain hash.
    ['2.0-preimage-made-up.json', 'TAMPERED', ['PROOF_CHAIN_MISMATCH', 'PROOF_IDENTITY_UNANCHORED']],
    // A redacted proof's timestamp is bound by nothing but its token: an hour off is outside the skew.
    ['2.0-timestamp-moved.json', 'UNTRUSTED', ['PROOF_IDENTITY_UNANCHORED', 'PROOF_PREIMAGE_REDACTED', 'PROOF_TIME_OUTSIDE_WINDOW']],
  ] as const)('%s → %s %j', (name, status, reason_codes) => {
    const r = verified.get(name)!;
    expect([r.status, r.reason_codes]).toEqual([status, reason_codes]);
  });
});
