// Reading preregistration/trust/ (pipeline/io/trust-files.ts): the policy schema, every file the
// policy names read and decoded once, and a trust directory pinning the real witnesses of
// ArkForge's production proofs (test/fixtures/real/arkforge-production/) that verifies them.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyTimestampToken } from '../../pipeline/evidence/timestamp/index.ts';
import { verifyTlogEntry, type TlogEntry } from '../../pipeline/evidence/tlog/index.ts';
import { checkTrustPolicy, namedTrustFiles, readTrustInputs, renderTrustPolicy } from '../../pipeline/io/trust-files.ts';
import { loadTrust } from '../../pipeline/study/trust.ts';
import { type TrustPolicy } from '../../pipeline/formats/trust-policy.ts';
import { PreregError } from '../../pipeline/reasons.ts';
import { PROJECT_ROOT } from '../support/cli.ts';

const REAL = fileURLToPath(new URL('../fixtures/real/arkforge-production/', import.meta.url));
const realText = (name: string) => readFileSync(join(REAL, name), 'utf8');

/** The real witnesses' trust directory: FreeTSA root + TSA certificate, Rekor log key, rekor-1, key-1. */
const REAL_POLICY: TrustPolicy = {
  format: 'prereg.trust/1',
  arkforge_keys: [
    {
      key_id: 'key-1',
      public_key: 'ed25519:ZLlGE0eN0eTNUE9vaK1tStf6AuoFUWqJBvqx7QgxfEY',
      valid_from: '2026-02-26T00:00:00Z',
      valid_until: null,
    },
  ],
  tsa_roots: ['tsa-roots/freetsa-cacert.pem'],
  tsa_certs: ['tsa-certs/freetsa-tsa.crt'],
  tlog_keys: [{ log_id: 'c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d', public_key_file: 'tlog/rekor-log.pub.pem' }],
  tlog_submitter_keys: [
    { key_id: 'rekor-1', public_key_file: 'tlog-submitters/rekor-1.pub.pem', valid_from: '2026-03-03T00:00:00Z', valid_until: null },
  ],
  require_tsa_token: true,
  max_skew_seconds: 300,
  require_receipts: false,
};

let dir: string;
const writePolicy = (policy: unknown) => writeFileSync(join(dir, 'policy.json'), JSON.stringify(policy, null, 2));
const codeOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return e instanceof PreregError ? e.code : `not a PreregError: ${String(e)}`;
  }
  return 'no error';
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'prereg-trust-files-'));
  for (const [from, to] of [
    ['freetsa-cacert.pem', 'tsa-roots/freetsa-cacert.pem'],
    ['freetsa-tsa.crt', 'tsa-certs/freetsa-tsa.crt'],
    ['rekor-log.pub.pem', 'tlog/rekor-log.pub.pem'],
    ['arkforge-rekor-1.pub.pem', 'tlog-submitters/rekor-1.pub.pem'],
  ] as const) {
    mkdirSync(join(dir, to, '..'), { recursive: true });
    copyFileSync(join(REAL, from), join(dir, to));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('loadTrust: the policy and every file it names', () => {
  it('reads tsa_roots, tsa_certs, tlog_keys and tlog_submitter_keys files in the policy’s order', () => {
    writePolicy(REAL_POLICY);
    expect(namedTrustFiles(REAL_POLICY)).toEqual([
      'tsa-roots/freetsa-cacert.pem',
      'tsa-certs/freetsa-tsa.crt',
      'tlog/rekor-log.pub.pem',
      'tlog-submitters/rekor-1.pub.pem',
    ]);
    const { material, policy } = loadTrust(dir);
    expect(policy).toEqual(REAL_POLICY);
    expect(material.inputs).toEqual({
      policy: REAL_POLICY,
      tsaRootPems: [realText('freetsa-cacert.pem')],
      tlogKeyPems: [realText('rekor-log.pub.pem')],
      tsaCertPems: [realText('freetsa-tsa.crt')],
      tlogSubmitterKeyPems: [realText('arkforge-rekor-1.pub.pem')],
    });
    expect(material.tsa.supplied).toHaveLength(1);
    expect(material.tlog.submitterKeys.map((k) => [k.key_id, k.key.asymmetricKeyType, k.key.asymmetricKeyDetails?.namedCurve])).toEqual([
      ['rekor-1', 'ec', 'prime256v1'],
    ]);
  });

  it('without batch_max_skew_seconds the batch allowance is 900 s; valid_until null is no end', () => {
    writePolicy(REAL_POLICY);
    const { material } = loadTrust(dir);
    expect(material.policy.batchMaxSkewSeconds).toBe(900);
    expect(material.keys[0]).not.toHaveProperty('until_ms'); // no end
    writePolicy({ ...REAL_POLICY, batch_max_skew_seconds: 600 });
    expect(loadTrust(dir).material.policy.batchMaxSkewSeconds).toBe(600);
  });

  it('the material verifies the real FreeTSA token and the real Rekor entry of proof_rekor.json', async () => {
    writePolicy(REAL_POLICY);
    const { material } = loadTrust(dir);
    const proof = JSON.parse(realText('proof_rekor.json')) as { hashes: { chain: string }; timestamp_authority: { tsr_base64: string } };
    const chain = proof.hashes.chain.slice('sha256:'.length);
    const token = await verifyTimestampToken(
      Buffer.from(proof.timestamp_authority.tsr_base64, 'base64'),
      Buffer.from(chain, 'hex'),
      material.tsa,
    );
    expect([token.ok, token.genTime]).toEqual([true, '2026-03-03T16:18:55Z']);
    const entry = Object.values(JSON.parse(realText('rekor_entry.json')) as Record<string, TlogEntry>)[0]!;
    expect(verifyTlogEntry(entry, chain, material.tlog).reason_codes).toEqual([]);
  });

  it('readTrustInputs takes the texts from a given reader (files about to be written)', () => {
    const pending = new Map([['tlog-submitters/next.pem', realText('arkforge-rekor-1.pub.pem')]]);
    const policy = {
      ...REAL_POLICY,
      tlog_submitter_keys: [{ ...REAL_POLICY.tlog_submitter_keys![0]!, public_key_file: 'tlog-submitters/next.pem' }],
    };
    const inputs = readTrustInputs(dir, policy, (rel) => pending.get(rel) ?? readFileSync(join(dir, rel), 'utf8'));
    expect(inputs.tlogSubmitterKeyPems).toEqual([realText('arkforge-rekor-1.pub.pem')]);
  });

  const refusals: Array<[string, (p: TrustPolicy) => unknown, string]> = [
    ['a named file that does not exist', (p) => ({ ...p, tsa_certs: ['tsa-certs/none.pem'] }), 'FILE_NOT_FOUND'],
    ['a named file outside the trust directory', (p) => ({ ...p, tsa_certs: ['../outside.pem'] }), 'TRUST_POLICY_INVALID'],
    [
      'a tsa_certs file holding a public key, not a certificate',
      (p) => ({ ...p, tsa_certs: ['tlog/rekor-log.pub.pem'] }),
      'TSA_TRUST_INVALID',
    ],
    [
      'a submitter key file holding a certificate',
      (p) => ({ ...p, tlog_submitter_keys: [{ ...p.tlog_submitter_keys![0]!, public_key_file: 'tsa-certs/freetsa-tsa.crt' }] }),
      'TRUST_POLICY_INVALID',
    ],
    [
      'a submitter key_id twice',
      (p) => ({ ...p, tlog_submitter_keys: [p.tlog_submitter_keys![0]!, p.tlog_submitter_keys![0]!] }),
      'TRUST_POLICY_INVALID',
    ],
    [
      'a submitter key without valid_until (null says no end)',
      (p) => ({
        ...p,
        tlog_submitter_keys: [
          { key_id: 'rekor-1', public_key_file: 'tlog-submitters/rekor-1.pub.pem', valid_from: '2026-03-03T00:00:00Z' },
        ],
      }),
      'TRUST_POLICY_INVALID',
    ],
    [
      'a submitter key with an empty window',
      (p) => ({ ...p, tlog_submitter_keys: [{ ...p.tlog_submitter_keys![0]!, valid_until: '2026-03-03T00:00:00Z' }] }),
      'TRUST_POLICY_INVALID',
    ],
    [
      'an arkforge key without valid_until',
      (p) => ({
        ...p,
        arkforge_keys: [{ key_id: 'key-1', public_key: p.arkforge_keys[0]!.public_key, valid_from: '2026-02-26T00:00:00Z' }],
      }),
      'TRUST_POLICY_INVALID',
    ],
    [
      'an arkforge key with valid_until ""',
      (p) => ({ ...p, arkforge_keys: [{ ...p.arkforge_keys[0]!, valid_until: '' }] }),
      'TRUST_POLICY_INVALID',
    ],
    ['a negative batch allowance', (p) => ({ ...p, batch_max_skew_seconds: -1 }), 'TRUST_POLICY_INVALID'],
    ['a batch allowance that is not an integer', (p) => ({ ...p, batch_max_skew_seconds: 1.5 }), 'TRUST_POLICY_INVALID'],
    ['an unknown member', (p) => ({ ...p, tsa_intermediates: [] }), 'TRUST_POLICY_INVALID'],
  ];
  it.each(refusals)('refuses %s', (_what, change, code) => {
    writePolicy(change(structuredClone(REAL_POLICY)));
    expect(codeOf(() => loadTrust(dir))).toBe(code);
  });
});

describe('the committed example policy', () => {
  it('is valid, keeps its explicit batch allowance, and is written as renderTrustPolicy writes', () => {
    const text = readFileSync(join(PROJECT_ROOT, 'preregistration/trust/policy.json'), 'utf8');
    const policy = checkTrustPolicy(JSON.parse(text), 'policy.json');
    expect(policy.batch_max_skew_seconds).toBe(900);
    expect(renderTrustPolicy(policy)).toBe(text);
  });
});
