// The witnesses of ArkForge's production proofs, as the trust policy must pin them to accept them
// (SPEC §5.4): FreeTSA tokens that carry no certificate (verified with FreeTSA's root pinned and
// its TSA certificate supplied as tsa_certs), and a Sigstore Rekor entry signed by ArkForge's
// ECDSA P-256 `rekor-1` key (a tlog_submitter_keys entry), not by its Ed25519 proof key. The
// artefacts are vendored unchanged in test/fixtures/real/arkforge-production/ (PROVENANCE.md).
// Expected values are hand-derived: genTimes as `openssl ts -reply -text` prints them, the log id
// as PROVENANCE.md gives it; tampered copies are derived here, one bit each.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadTsaTrust, verifyTimestampToken, type TsaTrust } from '../../pipeline/evidence/timestamp/index.ts';
import {
  loadTlogKeys,
  loadTlogSubmitterKeys,
  TLOG_CHECKS,
  verifyTlogEntry,
  type TlogCheck,
  type CheckOutcome as TlogCheckOutcome,
  type TlogEntry,
  type TlogMaterial,
} from '../../pipeline/evidence/tlog/index.ts';
import { testPkiPaths } from '../support/tsa/pkijs-tsa.ts';

const REAL = new URL('../fixtures/real/arkforge-production/', import.meta.url);
const text = (name: string) => readFileSync(new URL(name, REAL), 'utf8');
const FREETSA_ROOT = text('freetsa-cacert.pem');
const FREETSA_TSA = text('freetsa-tsa.crt');
const REKOR_LOG_PUB = text('rekor-log.pub.pem');
const REKOR_1_PUB = text('arkforge-rekor-1.pub.pem');
/** PROVENANCE.md: SHA-256 of the Rekor log key's DER SPKI. */
const REKOR_LOG_ID = 'c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d';

interface RealProof {
  hashes: { chain: string };
  timestamp: string;
  timestamp_authority: { tsr_base64: string };
  batch_anchor?: { status: string; root: string };
}
const proof = (name: string) => JSON.parse(text(name)) as RealProof;

/** The three production proofs: what their tokens witness (chain hash, or the batch root) and genTime as OpenSSL reads it. */
const TOKENS = [
  {
    file: 'proof_rekor.json',
    witnessed: '242d07519cf9d8346cb93c696d60ef050e3a76f9ea16674902d58e628966dc2b',
    genTime: '2026-03-03T16:18:55Z',
  },
  {
    file: 'proof_2026_07.json',
    witnessed: '3f9f344d45f3ab1444a7d4d268e917a8f8c93e5c0b218820a948f1b1743d28fc',
    genTime: '2026-07-23T05:57:36Z',
  },
  {
    file: 'proof_proveit_gel.json',
    witnessed: '01a5b72c92007b3ff0be9696c325dd1828738173d8a76780c81b3e56e35823b6',
    genTime: '2026-09-23T07:31:48Z',
  },
] as const;

const tokenOf = (file: string) => Buffer.from(proof(file).timestamp_authority.tsr_base64, 'base64');
const WITH_CERTS = loadTsaTrust([FREETSA_ROOT], [FREETSA_TSA], {
  roots: ['tsa-roots/freetsa-cacert.pem'],
  certs: ['tsa-certs/freetsa-tsa.crt'],
});

describe('FreeTSA tokens of the production proofs (no certificate carried)', () => {
  it('what the tokens witness is what the proofs declare (chain hash; the batch root for the 3.1 batch proof)', () => {
    for (const t of TOKENS) {
      const p = proof(t.file);
      expect(p.batch_anchor?.status === 'anchored' ? p.batch_anchor.root : p.hashes.chain, t.file).toBe(`sha256:${t.witnessed}`);
    }
  });

  it.each(TOKENS)('$file: verifies with FreeTSA’s root pinned and its TSA certificate supplied', async (t) => {
    const r = await verifyTimestampToken(tokenOf(t.file), Buffer.from(t.witnessed, 'hex'), WITH_CERTS);
    expect(r.reason_codes).toEqual([]);
    expect(r.checks).toEqual({
      parse: 'pass',
      status: 'pass',
      imprint_algorithm: 'pass',
      imprint: 'pass',
      nonce: 'skipped',
      policy: 'skipped',
      signer: 'pass',
      signature_algorithm: 'pass',
      signature: 'pass',
      signer_binding: 'pass',
      chain: 'pass',
      path_length: 'pass',
      critical_extensions: 'pass',
      eku: 'pass',
    });
    expect(r.genTime).toBe(t.genTime);
    expect(r.signerSubject).toContain('CN=www.freetsa.org');
  });

  const refusals: Array<[string, () => TsaTrust]> = [
    ['without tsa_certs', () => loadTsaTrust([FREETSA_ROOT])],
    ['with the TSA certificate pinned as a root alone', () => loadTsaTrust([FREETSA_TSA])],
    ['with another TSA’s certificate supplied', () => loadTsaTrust([FREETSA_ROOT], [readFileSync(testPkiPaths('tsa').cert, 'utf8')])],
    ['with FreeTSA’s root supplied as a certificate', () => loadTsaTrust([FREETSA_ROOT], [FREETSA_ROOT])],
  ];
  describe.each(TOKENS)('$file', (t) => {
    it.each(refusals)('%s → TSA_SIGNER_NOT_FOUND', async (_what, trust) => {
      const r = await verifyTimestampToken(tokenOf(t.file), Buffer.from(t.witnessed, 'hex'), trust());
      expect(r.reason_codes).toEqual(['TSA_SIGNER_NOT_FOUND']);
      expect([r.checks.imprint, r.checks.signer, r.checks.signature, r.checks.chain]).toEqual(['pass', 'fail', 'skipped', 'skipped']);
    });
  });

  it('with the TSA certificate supplied but FreeTSA’s root not pinned → TSA_CHAIN_UNTRUSTED', async () => {
    const t = TOKENS[0];
    const r = await verifyTimestampToken(
      tokenOf(t.file),
      Buffer.from(t.witnessed, 'hex'),
      loadTsaTrust([readFileSync(testPkiPaths('tsa-root').cert, 'utf8')], [FREETSA_TSA]),
    );
    expect(r.reason_codes).toEqual(['TSA_CHAIN_UNTRUSTED']);
  });

  it('a token from another proof → TSA_IMPRINT_MISMATCH; the batch proof’s token over its chain hash → TSA_IMPRINT_MISMATCH', async () => {
    const other = await verifyTimestampToken(tokenOf('proof_2026_07.json'), Buffer.from(TOKENS[0].witnessed, 'hex'), WITH_CERTS);
    expect(other.reason_codes).toEqual(['TSA_IMPRINT_MISMATCH']);
    const batch = proof('proof_proveit_gel.json');
    const overChain = await verifyTimestampToken(
      tokenOf('proof_proveit_gel.json'),
      Buffer.from(batch.hashes.chain.slice(7), 'hex'),
      WITH_CERTS,
    );
    expect(overChain.reason_codes).toEqual(['TSA_IMPRINT_MISMATCH']);
  });

  it('a bit flipped in the signature value (the token’s last bytes) → TSA_SIGNATURE_INVALID', async () => {
    const token = tokenOf('proof_rekor.json');
    token[token.length - 3]! ^= 0x01;
    const r = await verifyTimestampToken(token, Buffer.from(TOKENS[0].witnessed, 'hex'), WITH_CERTS);
    expect(r.reason_codes).toEqual(['TSA_SIGNATURE_INVALID']);
  });
});

// --- the Rekor entry of proof_rekor.json ---------------------------------------------------------

const ENTRY = Object.values(JSON.parse(text('rekor_entry.json')) as Record<string, TlogEntry>)[0]!;
/** The entry witnesses the declared chain hash of proof_rekor.json (without sha256:). */
const WITNESSED = proof('proof_rekor.json').hashes.chain.replace(/^sha256:/, '');
/** integratedTime 1772554735 = 2026-03-03T16:18:55Z. */
const INTEGRATED = '2026-03-03T16:18:55Z';
const LOG_KEYS = loadTlogKeys([{ log_id: REKOR_LOG_ID, public_key_file: 'tlog/rekor-log.pub.pem' }], [REKOR_LOG_PUB]);
const rekor1 = (valid_from: string, valid_until: string | null): TlogMaterial => ({
  logKeys: LOG_KEYS,
  submitterKeys: loadTlogSubmitterKeys(
    [{ key_id: 'rekor-1', public_key_file: 'tlog-submitters/rekor-1.pub.pem', valid_from, valid_until }],
    [REKOR_1_PUB],
  ),
});
/** As ArkForge publishes rekor-1: from 2026-03-03T00:00:00Z, not retired. */
const PINNED = rekor1('2026-03-03T00:00:00Z', null);
const outcomes = (o: Partial<Record<TlogCheck, TlogCheckOutcome>> = {}) => Object.fromEntries(TLOG_CHECKS.map((c) => [c, o[c] ?? 'pass']));
const mutate = (change: (e: TlogEntry) => void): TlogEntry => {
  const copy = structuredClone(ENTRY);
  change(copy);
  return copy;
};
const flipLastByte = (b64: string): string => {
  const bytes = Buffer.from(b64, 'base64');
  bytes[bytes.length - 1]! ^= 0x01;
  return bytes.toString('base64');
};

describe('the production Rekor entry (hashedrekord by ArkForge’s ECDSA P-256 rekor-1 key)', () => {
  it('the vendored log key is the entry’s log, and rekor-1 is the key the entry carries', () => {
    expect(LOG_KEYS[0]!.log_id).toBe(ENTRY.logID);
    expect(new Date(ENTRY.integratedTime * 1000).toISOString()).toBe('2026-03-03T16:18:55.000Z');
    const body = JSON.parse(Buffer.from(ENTRY.body, 'base64').toString('utf8')) as {
      spec: { signature: { publicKey: { content: string } } };
    };
    expect(Buffer.from(body.spec.signature.publicKey.content, 'base64').toString('utf8')).toBe(REKOR_1_PUB);
  });

  it('passes every check with the Rekor log key pinned and rekor-1 as submitter', () => {
    const r = verifyTlogEntry(ENTRY, WITNESSED, PINNED);
    expect({ reason_codes: r.reason_codes, checks: r.checks, problems: r.problems }).toEqual({
      reason_codes: [],
      checks: outcomes(),
      problems: [],
    });
    expect(r).toMatchObject({ ok: true, log_id: REKOR_LOG_ID, log_index: 1018479057, integrated_time: INTEGRATED });
  });

  it.each([
    ['no submitter key pinned', { logKeys: LOG_KEYS, submitterKeys: [] }],
    [
      'only ArkForge’s Ed25519 proof key (key-1) as submitter: the old rule, wrong for real entries',
      {
        logKeys: LOG_KEYS,
        submitterKeys: loadTlogSubmitterKeys(
          [{ key_id: 'key-1', public_key_file: 'k.pem', valid_from: '2026-02-26T00:00:00Z', valid_until: null }],
          [
            // key-1 = ed25519:ZLlGE0eN0eTNUE9vaK1tStf6AuoFUWqJBvqx7QgxfEY (published_keys.json) as SPKI PEM
            `-----BEGIN PUBLIC KEY-----\n${Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from('ZLlGE0eN0eTNUE9vaK1tStf6AuoFUWqJBvqx7QgxfEY', 'base64url')]).toString('base64')}\n-----END PUBLIC KEY-----\n`,
          ],
        ),
      },
    ],
    ['rekor-1 with a window ending at integratedTime (half-open)', rekor1('2026-03-03T00:00:00Z', INTEGRATED)],
    ['rekor-1 with a window starting one second after integratedTime', rekor1('2026-03-03T16:18:56Z', null)],
  ] as Array<[string, TlogMaterial]>)('%s → PROOF_TLOG_SUBMITTER_UNPINNED', (_what, material) => {
    const r = verifyTlogEntry(ENTRY, WITNESSED, material);
    expect({ reason_codes: r.reason_codes, checks: r.checks }).toEqual({
      reason_codes: ['PROOF_TLOG_SUBMITTER_UNPINNED'],
      checks: outcomes({ entry_signature: 'fail' }),
    });
  });

  it('rekor-1 with a window starting exactly at integratedTime passes', () => {
    expect(verifyTlogEntry(ENTRY, WITNESSED, rekor1(INTEGRATED, '2026-03-03T16:18:56Z')).ok).toBe(true);
  });

  it.each([
    [
      'a flipped SET bit',
      () => mutate((e) => (e.verification.signedEntryTimestamp = flipLastByte(e.verification.signedEntryTimestamp))),
      ['PROOF_TLOG_SET'],
      { set: 'fail' },
    ],
    ['integratedTime one second later', () => mutate((e) => (e.integratedTime += 1)), ['PROOF_TLOG_SET'], { set: 'fail' }],
    [
      'a flipped audit-path bit',
      () =>
        mutate(
          (e) =>
            (e.verification.inclusionProof.hashes[3] = `${e.verification.inclusionProof.hashes[3]!.slice(0, 63)}${e.verification.inclusionProof.hashes[3]!.endsWith('0') ? '1' : '0'}`),
        ),
      ['PROOF_TLOG_INCLUSION'],
      { inclusion: 'fail' },
    ],
    [
      'a checkpoint for another size',
      () =>
        mutate(
          (e) =>
            (e.verification.inclusionProof.checkpoint = e.verification.inclusionProof.checkpoint.replace(
              '\n2695801602\n',
              '\n2695801603\n',
            )),
        ),
      ['PROOF_TLOG_CHECKPOINT'],
      { checkpoint: 'fail' },
    ],
  ] as const)('%s → %j', (_what, entry, reason_codes, failed) => {
    const r = verifyTlogEntry(entry(), WITNESSED, PINNED);
    expect({ reason_codes: r.reason_codes, checks: r.checks }).toEqual({ reason_codes, checks: outcomes(failed) });
  });

  it('the entry checked for another proof’s chain hash → PROOF_TLOG_ARTIFACT (entry signature then skipped)', () => {
    const r = verifyTlogEntry(ENTRY, TOKENS[1].witnessed, PINNED);
    expect({ reason_codes: r.reason_codes, checks: r.checks }).toEqual({
      reason_codes: ['PROOF_TLOG_ARTIFACT'],
      checks: outcomes({ artifact: 'fail', entry_signature: 'skipped' }),
    });
  });

  it('the Rekor log key not pinned → PROOF_TLOG_KEY_UNPINNED, SET and checkpoint signature unchecked', () => {
    const r = verifyTlogEntry(ENTRY, WITNESSED, { logKeys: [], submitterKeys: PINNED.submitterKeys });
    expect({ reason_codes: r.reason_codes, checks: r.checks }).toEqual({
      reason_codes: ['PROOF_TLOG_KEY_UNPINNED'],
      checks: outcomes({ log_key: 'fail', set: 'skipped', checkpoint: 'skipped' }),
    });
  });
});
