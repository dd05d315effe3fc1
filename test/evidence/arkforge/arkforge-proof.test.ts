// ArkForge proofs (SPEC §6.1): the official vectors through the per-version modules, then one
// row per rule — a passing and a rejecting case, exact codes and status — on proofs minted as
// the reference service mints them (test/support/arkforge-issuer.ts), with real RFC 3161 tokens
// from the TEST-ONLY TSA and the TEST-ONLY Ed25519 keys.
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  PROOF_CHECKS,
  PROOF_CODES,
  proofStatus,
  verifyEvidenceItem,
  verifyProof,
  type ProofCode,
  type ProofStatus,
  type ProofVerification,
} from '../../../pipeline/evidence/arkforge/index.ts';
import { proofVersionModule, type ArkForgeProof } from '../../../pipeline/evidence/arkforge/index.ts';
import {
  buildTrustMaterial,
  buildTrustMaterialFrom,
  trustMaterialInputs,
  type TrustMaterial,
} from '../../../pipeline/evidence/trust/index.ts';
import { utcMillis } from '../../../pipeline/formats/utc-instant.ts';
import { JsonNumber, canonicalJson, parseJson, type JsonObject, type JsonValue } from '../../../pipeline/formats/canonical-json.ts';
import { sha256Hex } from '../../../pipeline/formats/hash.ts';
import type { TrustPolicy } from '../../../pipeline/formats/trust-policy.ts';
import { REASONS, PreregError } from '../../../pipeline/reasons.ts';
import { issueProof, type IssueProofOptions } from '../../support/arkforge-issuer.ts';
import { PROJECT_ROOT } from '../../support/cli.ts';
import {
  at,
  GEN,
  KEY_2026,
  KEY_ENTRY_2026,
  pinnedEd25519,
  PUB_2026,
  testKey,
  testTrustPolicy,
  TS,
  TSA_ROOT,
  WINDOW,
} from '../../support/proof-fixtures.ts';
import { loadTestSigner, type TsaSigner } from '../../support/tsa/pkijs-tsa.ts';

// `openssl x509 -in test/fixtures/pki/TEST-ONLY-tsa-root.cert.pem -outform DER | sha256sum`
const TEST_TSA_ROOT_SHA256 = '6633dffaa983c3abfa85153bd9231c0b5d5f9e7457715665869c33c3f311d4b3';
const KEY_2025 = testKey('TEST-ONLY-arkforge-2025-expired.key.pem');
const PUB_2025 = pinnedEd25519(testKey('TEST-ONLY-arkforge-2025-expired.pub.pem'));
const unpinnedPair = generateKeyPairSync('ed25519');
const UNPINNED_KEY = unpinnedPair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
const UNPINNED_PUB = pinnedEd25519(unpinnedPair.publicKey.export({ format: 'pem', type: 'spki' }).toString());

/** The test policy with the expired 2025 key pinned too (for its own window). */
function policy(over: Partial<TrustPolicy> = {}): TrustPolicy {
  return testTrustPolicy({
    arkforge_keys: [
      KEY_ENTRY_2026,
      { key_id: 'arkforge-2025', public_key: PUB_2025, valid_from: '2025-01-01T00:00:00Z', valid_until: '2026-01-01T00:00:00Z' },
    ],
    ...over,
  });
}

const RECEIPT = 'af65b75f3901dfd0ed9590a009bf7283e318801e15733bf68403219967d4edb7';

let tsa: TsaSigner;
let unpinnedTsa: TsaSigner;
let trust: TrustMaterial;
let trustNoToken: TrustMaterial;

beforeAll(async () => {
  tsa = await loadTestSigner('tsa');
  unpinnedTsa = await loadTestSigner('unpinned-tsa');
  trust = buildTrustMaterial(policy(), [TSA_ROOT]);
  trustNoToken = buildTrustMaterial(policy({ require_tsa_token: false }), [TSA_ROOT]);
});

// --- minting and mutating --------------------------------------------------------------------

type Item = { proof: unknown; request?: unknown; response?: unknown };
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- free-form mutations of parsed proofs
type Plain = Record<string, any>;

const REQUEST_TEXT =
  '{"target":"https://api.example.com/search","method":"POST","payload":{"q":"R2152-2","k":3},"amount":0.1,"currency":"eur"}';
const RESPONSE_TEXT = '{"passages":[{"ref":"R2152-2","text":"Le délai est de 30 jours.","score":0.875}]}';

/** Issue with sensible defaults (spec 2.1, a token from the pinned TSA), written and parsed back as a file would be. */
async function mint(over: Partial<IssueProofOptions> = {}, mutate?: (p: Plain, item: Plain) => void): Promise<Item> {
  const issued = await issueProof({
    request: parseJson(REQUEST_TEXT),
    response: parseJson(RESPONSE_TEXT),
    timestamp: TS,
    seller: 'api.example.com',
    buyerApiKey: 'mcp_test_example_key',
    transactionId: 'crd_20260310_120000_a1b2c3',
    specVersion: '2.1',
    signingKeyPem: KEY_2026,
    tsa: { signer: tsa, genTime: GEN },
    ...over,
  });
  // Through text, as ingest reads it: JsonValue with number lexemes.
  const item: Plain = {
    proof: parseJson(canonicalJson(issued.proof)),
    request: parseJson(canonicalJson(issued.request)),
    response: parseJson(canonicalJson(issued.response)),
  };
  mutate?.(item.proof, item);
  return item as Item;
}

function flipSignatureByte(p: Plain): void {
  const sig = Buffer.from(String(p.arkforge_signature).slice(8), 'base64url');
  sig[10]! ^= 0x01;
  p.arkforge_signature = `ed25519:${sig.toString('base64url')}`;
}

async function tokenOver(hexDigest: string, signer: TsaSigner, genTime: string): Promise<string> {
  const { buildTimestampRequest } = await import('../../../pipeline/formats/timestamp-request.ts');
  const { issueTimestampResponse } = await import('../../support/tsa/pkijs-tsa.ts');
  const response = await issueTimestampResponse(buildTimestampRequest(Buffer.from(hexDigest, 'hex'), 7n), signer, { genTime });
  return Buffer.from(response).toString('base64');
}

/** The checks an older proof (no 3.x commitments, openings, identity, batch anchor or log entry) has nothing for. */
const V3_AND_BATCH_CHECKS: readonly string[] = ['commitments', 'disclosures', 'body_binding', 'identity', 'batch', 'tlog'];

// --- the official vectors --------------------------------------------------------------------

describe('proof-spec v2.1.0 vectors through the version modules', () => {
  const vectors = (
    parseJson(readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/real/arkforge-proof-spec/test-vectors.json'), 'utf8')) as JsonObject
  ).vectors as JsonObject[];

  it.each(vectors.map((v) => [v.name as string, v] as const))('%s', (_name, v) => {
    const input = v.input as JsonObject;
    const expected = v.expected as JsonObject;
    const specVersion = typeof v.spec_version === 'string' ? v.spec_version : null;
    const proof: ArkForgeProof = {
      proof_id: 'prf_vector',
      spec_version: specVersion,
      timestamp: input.timestamp as string,
      hashes: {
        request: `sha256:${sha256Hex(canonicalJson(input.request))}`,
        response: `sha256:${sha256Hex(canonicalJson(input.response))}`,
        chain: `sha256:${expected.chain_hash as string}`,
      },
      parties: { buyer_fingerprint: sha256Hex(input.api_key as string), seller: input.seller as string },
      payment: { provider: 'stripe', transaction_id: input.payment_intent_id as string, amount: 0.5, currency: 'eur', status: 'succeeded' },
    };
    if (typeof input.upstream_timestamp === 'string') proof.upstream_timestamp = input.upstream_timestamp;
    if (typeof input.receipt_content_hash === 'string')
      proof.provider_payment = { receipt_content_hash: `sha256:${input.receipt_content_hash}` };
    expect(proof.hashes.request).toBe(`sha256:${expected.request_hash as string}`);
    expect(proof.hashes.response).toBe(`sha256:${expected.response_hash as string}`);
    const module = proofVersionModule(specVersion);
    expect(module?.algorithm).toBe(v.algorithm === 'canonical_json' ? 'canonical' : 'legacy');
    expect(module!.chainHash(proof)).toBe(expected.chain_hash);
  });

  it.each(vectors.map((v) => [v.name as string, v] as const))('the test issuer mints %s as the vector says', async (_name, v) => {
    const input = v.input as JsonObject;
    const { proof } = await issueProof({
      request: input.request,
      response: input.response,
      timestamp: input.timestamp as string,
      seller: input.seller as string,
      buyerApiKey: input.api_key as string,
      transactionId: input.payment_intent_id as string,
      specVersion: typeof v.spec_version === 'string' ? v.spec_version : '1.1',
      signingKeyPem: KEY_2026,
      ...(typeof input.upstream_timestamp === 'string' ? { upstreamTimestamp: input.upstream_timestamp } : {}),
      ...(typeof input.receipt_content_hash === 'string' ? { receiptContentHash: input.receipt_content_hash } : {}),
    });
    expect((proof.hashes as Record<string, string>).chain).toBe(`sha256:${(v.expected as JsonObject).chain_hash as string}`);
  });

  it('dispatches every known spec_version and refuses others', () => {
    const algorithms = ['1.0', '1.1', '2.0', null, undefined, '1.2', '2.1'].map((s) => proofVersionModule(s)?.algorithm);
    expect(algorithms).toEqual(['legacy', 'legacy', 'legacy', 'legacy', 'legacy', 'canonical', 'canonical']);
    for (const s of ['9.9', '3.2', '2.1.0', '']) expect(proofVersionModule(s)).toBeUndefined();
    // 3.0 / 3.1 (commitments) are tested in arkforge-proof-v3.test.ts.
  });
});

// --- one row per rule --------------------------------------------------------------------------

interface Row {
  name: string;
  item: () => Promise<Item>;
  trust?: () => TrustMaterial;
  window?: typeof WINDOW;
  status: ProofStatus;
  reason_codes: ProofCode[];
  also?: (r: ProofVerification) => void;
}

const rows: Row[] = [
  // valid proofs of every algorithm, with a token
  ...(['1.0', '1.1', '2.0', null] as const).map(
    (specVersion): Row => ({
      name: `legacy spec_version ${String(specVersion)} → VERIFIED`,
      item: () => mint({ specVersion }),
      status: 'VERIFIED',
      reason_codes: [],
      also: (r) => {
        expect(r.algorithm).toBe('legacy');
        expect(r.spec_version).toBe(specVersion);
      },
    }),
  ),
  {
    name: 'canonical 1.2 → VERIFIED',
    item: () => mint({ specVersion: '1.2' }),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect(r.algorithm).toBe('canonical'),
  },
  {
    name: 'canonical 2.1 with receipt_content_hash → VERIFIED',
    item: () => mint({ specVersion: '2.1', receiptContentHash: RECEIPT }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'canonical 1.2 with upstream_timestamp → VERIFIED',
    item: () => mint({ specVersion: '1.2', upstreamTimestamp: 'Tue, 10 Mar 2026 12:00:01 GMT' }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'legacy 2.0 with upstream_timestamp and receipt → VERIFIED',
    item: () => mint({ specVersion: '2.0', upstreamTimestamp: 'Tue, 10 Mar 2026 12:00:01 GMT', receiptContentHash: `sha256:${RECEIPT}` }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'optional chain fields null or empty take no part → VERIFIED',
    item: () =>
      mint({ specVersion: '2.1' }, (p) => {
        p.upstream_timestamp = null;
        p.provider_payment = { receipt_content_hash: '' };
      }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'an empty upstream_timestamp served where one was chained → PROOF_CHAIN_MISMATCH',
    item: () =>
      mint({ upstreamTimestamp: 'Tue, 10 Mar 2026 12:00:01 GMT' }, (p) => {
        p.upstream_timestamp = '';
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_CHAIN_MISMATCH'],
  },

  // payment / certification_fee
  {
    name: 'certification_fee (reference service) → VERIFIED',
    item: () => mint({ paymentField: 'certification_fee' }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  { name: 'payment (proof-spec §1) → VERIFIED', item: () => mint({ paymentField: 'payment' }), status: 'VERIFIED', reason_codes: [] },
  {
    name: 'both blocks, same canonical JSON → VERIFIED',
    item: () =>
      mint({ paymentField: 'payment' }, (p) => {
        p.certification_fee = p.payment;
      }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'both blocks, different transaction_id → PROOF_MALFORMED',
    item: () =>
      mint({ paymentField: 'payment' }, (p) => {
        p.certification_fee = { ...p.payment, transaction_id: 'crd_other' };
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
    also: (r) => expect(r.problems.join()).toMatch(/payment and proof\/certification_fee/),
  },
  {
    name: 'both blocks, amount 1 vs 1.0 (canonical JSON differs) → PROOF_MALFORMED',
    item: () =>
      mint({ paymentField: 'payment' }, (p) => {
        p.payment.amount = new JsonNumber('1');
        p.certification_fee = { ...p.payment, amount: new JsonNumber('1.0') };
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  // Contract change (real proofs): only transaction_id is read from the block; the rest is the issuer's business.
  {
    name: 'payment without provider → VERIFIED (not a chain input)',
    item: () =>
      mint({ paymentField: 'payment' }, (p) => {
        delete p.payment.provider;
      }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'amount as a string → VERIFIED (not a chain input)',
    item: () =>
      mint({}, (p) => {
        p.certification_fee.amount = '0.1';
      }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'transaction_id as a number → PROOF_MALFORMED',
    item: () =>
      mint({}, (p) => {
        p.certification_fee.transaction_id = 7;
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },

  // the public view (spec below 3.0): a preimage that is not published cannot be recomputed
  ...(
    [
      [
        'no parties at all, no transaction block, the seller at the top level (the public view)',
        (p: Plain) => {
          p.seller = p.parties.seller;
          delete p.parties;
          delete p.certification_fee;
        },
      ],
      [
        'buyer_fingerprint and transaction_id null, the seller in parties',
        (p: Plain) => {
          p.parties.buyer_fingerprint = null;
          p.certification_fee.transaction_id = null;
        },
      ],
    ] as const
  ).map(
    ([what, edit]): Row => ({
      name: `${what} → PROOF_PREIMAGE_REDACTED, chain skipped, signature and token still checked`,
      item: () => mint({}, edit),
      status: 'UNTRUSTED',
      reason_codes: ['PROOF_PREIMAGE_REDACTED'],
      also: (r) => {
        expect(r.checks.chain).toBe('skipped');
        expect(r.recomputed_chain_hash).toBeNull();
        expect(r.checks.signature).toBe('pass');
        expect(r.checks.key).toBe('pass');
        expect(r.checks.tsa).toBe('pass');
        expect(r.checks.time).toBe('pass');
        expect(r.independent_witnesses).toBe(1);
        expect(r.problems[0]).toContain('publishes neither transaction_id nor buyer_fingerprint');
      },
    }),
  ),
  // Any other gap is no shape an issuer serves: a deleted fee block must not pass for a public view.
  ...(
    [
      [
        'no transaction block (the buyer fingerprint served)',
        (p: Plain) => {
          delete p.certification_fee;
        },
        'serves the buyer fingerprint but not the transaction id',
      ],
      [
        'transaction_id null (the buyer fingerprint served)',
        (p: Plain) => {
          p.certification_fee.transaction_id = null;
        },
        'serves the buyer fingerprint but not the transaction id',
      ],
      [
        'no parties.buyer_fingerprint (the transaction id served)',
        (p: Plain) => {
          delete p.parties.buyer_fingerprint;
        },
        'serves the transaction id but not the buyer fingerprint',
      ],
      [
        'no seller in parties nor at the top level',
        (p: Plain) => {
          delete p.parties.seller;
        },
        'serves no seller',
      ],
      [
        'the public view without its seller',
        (p: Plain) => {
          delete p.parties;
          delete p.certification_fee;
        },
        'serves no seller',
      ],
    ] as const
  ).map(
    ([what, edit, problem]): Row => ({
      name: `${what} → PROOF_MALFORMED`,
      item: () => mint({}, edit),
      status: 'MALFORMED',
      reason_codes: ['PROOF_MALFORMED'],
      also: (r) => expect(r.problems.join('\n')).toContain(problem),
    }),
  ),
  {
    name: 'a tampered full proof with its fee block deleted stays refused (MALFORMED), never downgraded to a public view',
    item: () =>
      mint({}, (p, item) => {
        item.response = { passages: [] };
        delete p.certification_fee;
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'seller at the top level instead of parties (the public view) → VERIFIED',
    item: () =>
      mint({}, (p) => {
        p.seller = p.parties.seller;
        delete p.parties.seller;
      }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'buyer_fingerprint at the top level instead of parties → VERIFIED',
    item: () =>
      mint({}, (p) => {
        p.buyer_fingerprint = p.parties.buyer_fingerprint;
        p.seller = p.parties.seller;
        delete p.parties;
      }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'a redacted preimage filled in with made-up values → PROOF_CHAIN_MISMATCH',
    item: () =>
      mint({}, (p) => {
        p.parties.buyer_fingerprint = 'f'.repeat(64);
        p.certification_fee.transaction_id = 'crd_made_up';
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_CHAIN_MISMATCH'],
  },
  {
    name: 'a redacted preimage whose response body is given: the body hash matches, but nothing binds it',
    item: () =>
      mint({}, (p) => {
        p.seller = p.parties.seller;
        delete p.parties;
        delete p.certification_fee;
      }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_PREIMAGE_REDACTED'],
    also: (r) => {
      expect(r.checks.response_hash).toBe('pass');
      expect(r.checks.request_hash).toBe('pass');
    },
  },

  // structure
  {
    name: 'parties.seller a number → PROOF_MALFORMED, nothing else runs',
    item: () =>
      mint({}, (p) => {
        p.parties.seller = 7;
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
    also: (r) => {
      expect(r.checks).toEqual(Object.fromEntries(PROOF_CHECKS.map((c) => [c, c === 'structure' ? 'fail' : 'skipped'])));
      expect(r.problems.join('\n')).toContain('proof/parties/seller must be string');
      expect(r.proof_id).toMatch(/^prf_20260310_120000_/);
    },
  },
  {
    name: 'parties.buyer_fingerprint not 64 hex → PROOF_MALFORMED',
    item: () =>
      mint({}, (p) => {
        p.parties.buyer_fingerprint = 'abc';
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'missing proof_id → PROOF_MALFORMED',
    item: () =>
      mint({}, (p) => {
        delete p.proof_id;
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'hash in uppercase hex → PROOF_MALFORMED',
    item: () =>
      mint({}, (p) => {
        p.hashes.chain = p.hashes.chain.toUpperCase().replace('SHA256:', 'sha256:');
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'hash without sha256: prefix → PROOF_MALFORMED',
    item: () =>
      mint({}, (p) => {
        p.hashes.request = p.hashes.request.slice(7);
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'receipt_content_hash not a hash → PROOF_MALFORMED',
    item: () =>
      mint({ receiptContentHash: RECEIPT }, (p) => {
        p.provider_payment.receipt_content_hash = 'sha256:xyz';
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'timestamp without zone → PROOF_MALFORMED',
    item: () =>
      mint({}, (p) => {
        p.timestamp = '2026-03-10T12:00:00';
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'timestamp on 30 February → PROOF_MALFORMED',
    item: () =>
      mint({}, (p) => {
        p.timestamp = '2026-02-30T12:00:00Z';
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'signature not ed25519:<86 base64url> → PROOF_MALFORMED',
    item: () =>
      mint({}, (p) => {
        p.arkforge_signature = 'ed25519:abc';
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'proof is an array → PROOF_MALFORMED',
    item: async () => ({ proof: [] }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  { name: 'proof is null → PROOF_MALFORMED', item: async () => ({ proof: null }), status: 'MALFORMED', reason_codes: ['PROOF_MALFORMED'] },

  // spec_version
  {
    name: 'spec_version "9.9" → PROOF_SPEC_VERSION_UNKNOWN, the other witnesses still checked',
    item: () =>
      mint({}, (p) => {
        p.spec_version = '9.9';
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_SPEC_VERSION_UNKNOWN'],
    also: (r) => {
      expect(r.algorithm).toBeNull();
      expect(r.checks).toMatchObject({ structure: 'pass', chain: 'fail', signature: 'pass', key: 'pass', tsa: 'pass', time: 'pass' });
    },
  },
  {
    name: 'spec_version null on a legacy proof counts as absent → VERIFIED',
    item: () =>
      mint({ specVersion: null }, (p) => {
        p.spec_version = null;
      }),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect([r.algorithm, r.spec_version]).toEqual(['legacy', null]),
  },
  {
    name: 'spec_version null on a canonical proof selects legacy → PROOF_CHAIN_MISMATCH',
    item: () =>
      mint({ specVersion: '1.2' }, (p) => {
        p.spec_version = null;
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_CHAIN_MISMATCH'],
  },
  {
    name: 'spec_version changed 1.2 → 1.1 (algorithm swap) → PROOF_CHAIN_MISMATCH',
    item: () =>
      mint({ specVersion: '1.2' }, (p) => {
        p.spec_version = '1.1';
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_CHAIN_MISMATCH'],
  },

  // bodies
  {
    name: 'bodies as given → all checks pass',
    item: () => mint(),
    status: 'VERIFIED',
    reason_codes: [],
    // A 2.1 proof without batch anchor, identity or log entry: the 3.x, batch and tlog checks have nothing to check.
    also: (r) => expect(Object.values(r.checks)).toEqual(PROOF_CHECKS.map((c) => (V3_AND_BATCH_CHECKS.includes(c) ? 'skipped' : 'pass'))),
  },
  {
    name: 'request body changed → PROOF_REQUEST_HASH_MISMATCH',
    item: () =>
      mint({}, (_p, item) => {
        item.request.payload.k = new JsonNumber('4');
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_REQUEST_HASH_MISMATCH'],
  },
  {
    name: 'response passage changed → PROOF_RESPONSE_HASH_MISMATCH',
    item: () =>
      mint({}, (_p, item) => {
        item.response.passages[0].text = 'Le délai est de 60 jours.';
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_RESPONSE_HASH_MISMATCH'],
  },
  {
    name: 'bodies re-serialised (key order, whitespace, \\u escapes) → VERIFIED',
    item: () =>
      mint({}, (_p, item) => {
        item.request = parseJson(
          '{ "currency" : "eur", "amount": 0.1, "payload": {"k": 3, "q": "R2152-2"}, "method": "POST", "target": "https://api.example.com/search" }',
        );
        item.response = parseJson('{"passages": [ {"text": "Le d\\u00e9lai est de 30 jours.", "score": 0.8750, "ref": "R2152-2"} ]}');
      }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'a number written 1.10 hashes as Python writes 1.1 → VERIFIED',
    item: () =>
      mint({ response: parseJson('{"x":1.1,"big":1E5}') }, (_p, item) => {
        item.response = parseJson('{"x":1.10,"big":100000.0}');
      }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: '1.0 stays distinct from 1 → PROOF_RESPONSE_HASH_MISMATCH',
    item: () =>
      mint({ response: parseJson('{"x":1.0}') }, (_p, item) => {
        item.response = parseJson('{"x":1}');
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_RESPONSE_HASH_MISMATCH'],
  },
  {
    name: 'bare proof (no bodies) → VERIFIED, body checks skipped',
    item: () =>
      mint({}, (_p, item) => {
        delete item.request;
        item.response = null;
      }),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect([r.checks.request_hash, r.checks.response_hash]).toEqual(['skipped', 'skipped']),
  },

  // chain
  ...(
    [
      [
        'seller',
        (p: Plain) => {
          p.parties.seller = 'evil.example.com';
        },
      ],
      [
        'buyer_fingerprint',
        (p: Plain) => {
          p.parties.buyer_fingerprint = sha256Hex('another key');
        },
      ],
      [
        'transaction_id',
        (p: Plain) => {
          p.certification_fee.transaction_id = 'free_tier';
        },
      ],
      [
        'timestamp',
        (p: Plain) => {
          p.timestamp = '2026-03-10T12:00:01Z';
        },
      ],
      [
        'hashes.request',
        (p: Plain) => {
          p.hashes.request = `sha256:${sha256Hex('x')}`;
        },
      ],
      [
        'upstream_timestamp',
        (p: Plain) => {
          p.upstream_timestamp = 'Tue, 10 Mar 2026 12:00:02 GMT';
        },
      ],
      [
        'receipt_content_hash',
        (p: Plain) => {
          p.provider_payment.receipt_content_hash = `sha256:${sha256Hex('other receipt')}`;
        },
      ],
    ] as const
  ).flatMap(([field, change]) =>
    (['1.1', '2.1'] as const).map(
      (specVersion): Row => ({
        name: `${specVersion}: ${field} changed → PROOF_CHAIN_MISMATCH`,
        item: () =>
          mint(
            {
              specVersion,
              upstreamTimestamp: 'Tue, 10 Mar 2026 12:00:01 GMT',
              receiptContentHash: RECEIPT,
              response: parseJson('{"ok":true}'),
            },
            (p, item) => {
              change(p);
              delete item.request; // a changed hashes.request would otherwise also fail its body check
            },
          ),
        status: 'TAMPERED',
        reason_codes: ['PROOF_CHAIN_MISMATCH'],
      }),
    ),
  ),
  {
    name: 'transparency_log present and changed does not enter the chain → VERIFIED',
    item: () =>
      mint({}, (p) => {
        p.transparency_log = {
          provider: 'sigstore-rekor',
          status: 'verified',
          uuid: '24296fb0',
          log_index: new JsonNumber('12345678'),
          integrated_time: new JsonNumber('1773144000'),
        };
        p.transparency_log.log_index = new JsonNumber('99999999');
        p.identity_consistent = false;
        p.views_count = new JsonNumber('7');
      }),
    status: 'VERIFIED',
    reason_codes: [],
  },

  // signature and key
  {
    name: 'signature byte flipped → PROOF_SIGNATURE_INVALID',
    item: () => mint({}, flipSignatureByte),
    status: 'TAMPERED',
    reason_codes: ['PROOF_SIGNATURE_INVALID'],
    also: (r) => expect([r.checks.signature, r.checks.key, r.key_id]).toEqual(['fail', 'skipped', null]),
  },
  {
    name: 'no signature → PROOF_SIGNATURE_MISSING',
    item: () =>
      mint({}, (p) => {
        delete p.arkforge_signature;
      }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_SIGNATURE_MISSING'],
  },
  {
    name: 'signature null → PROOF_SIGNATURE_MISSING',
    item: () =>
      mint({}, (p) => {
        p.arkforge_signature = null;
      }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_SIGNATURE_MISSING'],
  },
  {
    name: 'pinned key in its window, embedded key pinned → VERIFIED',
    item: () => mint(),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect([r.key_id, r.embedded_pubkey, r.embedded_pubkey_pinned]).toEqual(['arkforge-2026', PUB_2026, true]),
  },
  {
    name: 'signed by the pinned key, no embedded key → VERIFIED',
    item: () => mint({ embeddedPubkey: null }),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect([r.key_id, r.embedded_pubkey, r.embedded_pubkey_pinned]).toEqual(['arkforge-2026', null, null]),
  },
  {
    name: 'embedded key lies (names the unpinned key), signature by the pinned key → VERIFIED',
    item: () => mint({ embeddedPubkey: UNPINNED_PUB }),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect([r.key_id, r.embedded_pubkey_pinned]).toEqual(['arkforge-2026', false]),
  },
  {
    name: 'signed by an unpinned key embedded as arkforge_pubkey → PROOF_KEY_UNTRUSTED',
    item: () => mint({ signingKeyPem: UNPINNED_KEY }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_KEY_UNTRUSTED'],
    also: (r) => {
      expect([r.checks.signature, r.checks.key, r.key_id]).toEqual(['pass', 'fail', null]);
      expect([r.embedded_pubkey, r.embedded_pubkey_pinned]).toEqual([UNPINNED_PUB, false]);
    },
  },
  {
    name: 'unpinned embedded key, signature flipped → PROOF_SIGNATURE_INVALID (no key at all verifies)',
    item: () => mint({ signingKeyPem: UNPINNED_KEY }, flipSignatureByte),
    status: 'TAMPERED',
    reason_codes: ['PROOF_SIGNATURE_INVALID'],
    also: (r) => expect([r.embedded_pubkey_pinned, r.key_id]).toEqual([false, null]),
  },
  {
    name: 'signed by the expired pinned key (window ends before timestamp) → PROOF_KEY_UNTRUSTED',
    item: () => mint({ signingKeyPem: KEY_2025 }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_KEY_UNTRUSTED'],
    also: (r) =>
      expect([r.key_id, r.embedded_pubkey_pinned, r.checks.signature, r.checks.key]).toEqual(['arkforge-2025', true, 'pass', 'fail']),
  },
  {
    name: 'key window ends between timestamp and genTime → PROOF_KEY_UNTRUSTED',
    item: () => mint(),
    trust: () =>
      buildTrustMaterial(
        policy({ arkforge_keys: [{ key_id: 'k', public_key: PUB_2026, valid_from: '2026-01-01T00:00:00Z', valid_until: at(TS, 5) }] }),
        [TSA_ROOT],
      ),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_KEY_UNTRUSTED'],
  },
  {
    name: 'same key window, no token (not required) → VERIFIED',
    item: () => mint({ tsa: undefined }),
    trust: () =>
      buildTrustMaterial(
        policy({
          require_tsa_token: false,
          arkforge_keys: [{ key_id: 'k', public_key: PUB_2026, valid_from: '2026-01-01T00:00:00Z', valid_until: at(TS, 5) }],
        }),
        [TSA_ROOT],
      ),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'a key with no end (valid_until null) counts from valid_from on → VERIFIED',
    item: () => mint(),
    trust: () =>
      buildTrustMaterial(policy({ arkforge_keys: [{ key_id: 'k', public_key: PUB_2026, valid_from: TS, valid_until: null }] }), [TSA_ROOT]),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'a key with no end, valid from after the timestamp → PROOF_KEY_UNTRUSTED, its window written "no end"',
    item: () => mint(),
    trust: () =>
      buildTrustMaterial(policy({ arkforge_keys: [{ key_id: 'k', public_key: PUB_2026, valid_from: at(TS, 1), valid_until: null }] }), [
        TSA_ROOT,
      ]),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_KEY_UNTRUSTED'],
    also: (r) =>
      expect(r.problems.join('\n')).toContain(`whose window [${new Date(Date.parse(at(TS, 1))).toISOString()}, no end) does not contain`),
  },
  {
    name: 'key window starts exactly at timestamp (half-open) → VERIFIED',
    item: () => mint(),
    trust: () =>
      buildTrustMaterial(
        policy({ arkforge_keys: [{ key_id: 'k', public_key: PUB_2026, valid_from: TS, valid_until: '2027-01-01T00:00:00Z' }] }),
        [TSA_ROOT],
      ),
    status: 'VERIFIED',
    reason_codes: [],
  },

  // RFC 3161 token
  {
    name: 'token from the pinned TSA → VERIFIED, genTime and signer reported',
    item: () => mint(),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) =>
      expect(r.tsa).toEqual({
        gen_time: GEN,
        reason_codes: [],
        signer: 'CN=TEST-ONLY prereg TSA,OU=not for production,O=prereg TEST-ONLY fixtures',
        root_sha256: TEST_TSA_ROOT_SHA256,
      }),
  },
  {
    name: 'token from the unpinned TSA → PROOF_TSA_UNTRUSTED',
    item: () => mint({ tsa: { signer: unpinnedTsa, genTime: GEN } }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TSA_UNTRUSTED'],
    also: (r) => expect(r.tsa?.reason_codes).toEqual(['TSA_CHAIN_UNTRUSTED']),
  },
  {
    name: 'token over another hash → PROOF_TSA_INVALID',
    item: async () => {
      const token = await tokenOver(sha256Hex('another chain'), tsa, GEN);
      return mint({}, (p) => {
        p.timestamp_authority.tsr_base64 = token;
      });
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TSA_INVALID'],
    also: (r) => expect(r.tsa?.reason_codes).toEqual(['TSA_IMPRINT_MISMATCH']),
  },
  {
    name: 'token over another hash from the unpinned TSA → both codes',
    item: async () => {
      const token = await tokenOver(sha256Hex('another chain'), unpinnedTsa, GEN);
      return mint({}, (p) => {
        p.timestamp_authority.tsr_base64 = token;
      });
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TSA_INVALID', 'PROOF_TSA_UNTRUSTED'],
  },
  {
    name: 'token not DER → PROOF_TSA_INVALID',
    item: () =>
      mint({}, (p) => {
        p.timestamp_authority.tsr_base64 = 'bm90IGEgdG9rZW4=';
      }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TSA_INVALID'],
    also: (r) => expect(r.tsa).toEqual({ gen_time: null, reason_codes: ['TSA_TOKEN_MALFORMED'], signer: null, root_sha256: null }),
  },
  {
    name: 'no token, token required → PROOF_TSA_MISSING',
    item: () => mint({ tsa: undefined }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TSA_MISSING'],
  },
  {
    name: 'empty tsr_base64, token required → PROOF_TSA_MISSING',
    item: () =>
      mint({}, (p) => {
        p.timestamp_authority.tsr_base64 = '';
      }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TSA_MISSING'],
  },
  {
    name: 'no token, token not required → VERIFIED, tsa skipped',
    item: () => mint({ tsa: undefined }),
    trust: () => trustNoToken,
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect([r.tsa, r.checks.tsa, r.checks.time]).toEqual([null, 'skipped', 'pass']),
  },

  // time
  {
    name: 'genTime 301 s after timestamp (limit 300) → PROOF_TIME_OUTSIDE_WINDOW',
    item: () => mint({ tsa: { signer: tsa, genTime: at(TS, 301) } }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TIME_OUTSIDE_WINDOW'],
  },
  {
    name: 'genTime exactly 300 s after timestamp → VERIFIED',
    item: () => mint({ tsa: { signer: tsa, genTime: at(TS, 300) } }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'genTime exactly 300 s before timestamp → VERIFIED',
    item: () => mint({ tsa: { signer: tsa, genTime: at(TS, -300) } }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'genTime 300.001 s before timestamp → PROOF_TIME_OUTSIDE_WINDOW',
    item: () => mint({ tsa: { signer: tsa, genTime: '2026-03-10T11:54:59.999Z' } }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TIME_OUTSIDE_WINDOW'],
  },
  {
    name: 'genTime 300.000001 s after (fraction below the ms) → PROOF_TIME_OUTSIDE_WINDOW',
    item: () => mint({ tsa: { signer: tsa, genTime: '2026-03-10T12:05:00.000001Z' } }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TIME_OUTSIDE_WINDOW'],
  },
  {
    name: "untrusted token with far genTime: only PROOF_TSA_UNTRUSTED (its time is nobody's word)",
    item: () => mint({ tsa: { signer: unpinnedTsa, genTime: '2026-06-01T00:00:00Z' } }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TSA_UNTRUSTED'],
  },
  {
    name: 'proof timestamp before the study window → PROOF_TIME_OUTSIDE_WINDOW',
    item: () => mint({ timestamp: '2026-02-28T23:59:59Z', tsa: { signer: tsa, genTime: '2026-03-01T00:00:01Z' } }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TIME_OUTSIDE_WINDOW'],
    also: (r) =>
      expect(r.problems).toEqual([
        'timestamp 2026-02-28T23:59:59Z is outside the study window [2026-03-01T00:00:00Z, 2026-04-01T00:00:00Z)',
      ]),
  },
  {
    name: 'timestamp and genTime exactly at opens_at → VERIFIED',
    item: () => mint({ timestamp: WINDOW.opens_at, tsa: { signer: tsa, genTime: WINDOW.opens_at } }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'timestamp exactly at closes_at (half-open) → PROOF_TIME_OUTSIDE_WINDOW',
    item: () => mint({ timestamp: WINDOW.closes_at, tsa: { signer: tsa, genTime: at(WINDOW.closes_at, -1) } }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TIME_OUTSIDE_WINDOW'],
  },
  {
    name: 'timestamp inside, genTime after closes_at → PROOF_TIME_OUTSIDE_WINDOW',
    item: () => mint({ timestamp: at(WINDOW.closes_at, -60), tsa: { signer: tsa, genTime: at(WINDOW.closes_at, 10) } }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TIME_OUTSIDE_WINDOW'],
  },
  {
    name: 'timestamp outside, no token, token not required → PROOF_TIME_OUTSIDE_WINDOW',
    item: () => mint({ timestamp: '2026-05-01T00:00:00Z', tsa: undefined }),
    trust: () => trustNoToken,
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TIME_OUTSIDE_WINDOW'],
  },
  {
    name: 'timestamp written +00:00 → accepted as UTC',
    item: () => mint({ timestamp: '2026-03-10T12:00:00+00:00' }),
    status: 'VERIFIED',
    reason_codes: [],
  },

  // everything at once
  {
    name: 'several failures at once are all reported',
    item: () =>
      mint({ tsa: undefined }, (p, item) => {
        item.response.passages[0].text = 'changed';
        p.parties.seller = 'evil.example.com';
        delete p.arkforge_signature;
        p.timestamp = '2026-05-01T00:00:00Z';
      }),
    status: 'TAMPERED',
    reason_codes: [
      'PROOF_CHAIN_MISMATCH',
      'PROOF_RESPONSE_HASH_MISMATCH',
      'PROOF_SIGNATURE_MISSING',
      'PROOF_TIME_OUTSIDE_WINDOW',
      'PROOF_TSA_MISSING',
    ],
    also: (r) => {
      expect(r.checks).toEqual({
        structure: 'pass',
        request_hash: 'pass',
        response_hash: 'fail',
        chain: 'fail',
        signature: 'fail',
        key: 'skipped',
        tsa: 'fail',
        time: 'fail',
        commitments: 'skipped',
        disclosures: 'skipped',
        body_binding: 'skipped',
        identity: 'skipped',
        batch: 'skipped',
        tlog: 'skipped',
      });
      expect(r.problems).toHaveLength(5);
    },
  },
  {
    name: 'bad signature and untrusted token together',
    item: () => mint({ tsa: { signer: unpinnedTsa, genTime: GEN } }, flipSignatureByte),
    status: 'TAMPERED',
    reason_codes: ['PROOF_SIGNATURE_INVALID', 'PROOF_TSA_UNTRUSTED'],
  },
];

describe('verifyEvidenceItem: one row per rule (SPEC §6.1)', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const item = await row.item();
    const result = await verifyEvidenceItem(item, row.trust ? row.trust() : trust, row.window ?? WINDOW);
    expect({ status: result.status, reason_codes: result.reason_codes }).toEqual({ status: row.status, reason_codes: row.reason_codes });
    // Every code belongs to a failed check, and every failed check has a code — but for the one
    // code of a check that could not be decided (a redacted preimage leaves the chain 'skipped').
    const failed = PROOF_CHECKS.filter((c) => result.checks[c] === 'fail');
    const decided = result.reason_codes.filter((c) => c !== 'PROOF_PREIMAGE_REDACTED');
    expect([...new Set(decided.map((c) => PROOF_CODES[c as ProofCode].check))].sort()).toEqual([...failed].sort());
    if (result.reason_codes.includes('PROOF_PREIMAGE_REDACTED')) expect(result.checks.chain).toBe('skipped');
    expect(result.problems.length).toBeGreaterThanOrEqual(result.reason_codes.length);
    row.also?.(result);
  });
});

describe('verifyEvidenceItem: inputs and outputs', () => {
  it('reports the proof fields of a VERIFIED proof', async () => {
    const item = await mint({ specVersion: '1.2' });
    const r = await verifyEvidenceItem(item, trust, WINDOW);
    const p = item.proof as JsonObject;
    const hashes = p.hashes as JsonObject;
    expect(r).toMatchObject({
      status: 'VERIFIED',
      proof_id: p.proof_id,
      spec_version: '1.2',
      algorithm: 'canonical',
      timestamp: TS,
      declared_chain_hash: (hashes.chain as string).slice(7),
      recomputed_chain_hash: (hashes.chain as string).slice(7),
      request_hash: (hashes.request as string).slice(7),
      response_hash: (hashes.response as string).slice(7),
      key_id: 'arkforge-2026',
      problems: [],
    });
  });

  it('accepts plain JS (JSON.parse) as well as parsed JsonValue', async () => {
    const issued = await issueProof({
      request: JSON.parse(REQUEST_TEXT),
      response: JSON.parse(RESPONSE_TEXT),
      timestamp: TS,
      seller: 'api.example.com',
      buyerApiKey: 'k',
      transactionId: 'free_tier',
      specVersion: '2.1',
      signingKeyPem: KEY_2026,
      tsa: { signer: tsa, genTime: GEN },
    });
    const plain = JSON.parse(JSON.stringify(issued));
    expect((await verifyEvidenceItem(plain, trust, WINDOW)).status).toBe('VERIFIED');
    expect((await verifyProof(plain.proof, trust, WINDOW)).status).toBe('VERIFIED');
  });

  it('verifyProof is an evidence item without bodies', async () => {
    const item = await mint({}, (_p, it2) => {
      it2.request.payload.k = new JsonNumber('9');
    });
    expect((await verifyEvidenceItem(item, trust, WINDOW)).reason_codes).toEqual(['PROOF_REQUEST_HASH_MISMATCH']);
    const bare = await verifyProof(item.proof, trust, WINDOW);
    expect([bare.status, bare.checks.request_hash]).toEqual(['VERIFIED', 'skipped']);
  });

  it('never throws for bad evidence, throws for a bad window (caller bug)', async () => {
    for (const proof of [undefined, 42, 'x', new JsonNumber('1'), { hashes: 'x' }, parseJson('{"__proto__":{"a":1}}')]) {
      expect((await verifyProof(proof, trust, WINDOW)).status).toBe('MALFORMED');
    }
    const item = await mint();
    expect((await verifyEvidenceItem({ ...item, request: { when: new Date(0) } }, trust, WINDOW)).reason_codes).toEqual([
      'PROOF_MALFORMED',
    ]);
    await expect(verifyProof(item.proof, trust, { opens_at: 'yesterday', closes_at: WINDOW.closes_at })).rejects.toThrow(TypeError);
  });

  it('does not modify its inputs', async () => {
    const item = await mint();
    const before = canonicalJson(item as unknown as JsonValue);
    await verifyEvidenceItem(item, trust, WINDOW);
    expect(canonicalJson(item as unknown as JsonValue)).toBe(before);
  });
});

describe('proofStatus (SPEC §6.1 table, first match wins)', () => {
  const cases: [Parameters<typeof proofStatus>[0], ProofStatus][] = [
    [[], 'VERIFIED'],
    [['PROOF_TSA_MISSING'], 'UNTRUSTED'],
    [['PROOF_KEY_UNTRUSTED', 'PROOF_TIME_OUTSIDE_WINDOW'], 'UNTRUSTED'],
    [['PROOF_SIGNATURE_INVALID', 'PROOF_TSA_UNTRUSTED'], 'TAMPERED'],
    [['PROOF_CHAIN_MISMATCH', 'PROOF_SPEC_VERSION_UNKNOWN'], 'MALFORMED'],
    [['JSON_DUPLICATE_KEY'], 'MALFORMED'],
    [['JSON_NUMBER_INVALID', 'PROOF_SIGNATURE_MISSING'], 'MALFORMED'],
  ];
  it.each(cases)('%j → %s', (reason_codes, status) => expect(proofStatus(reason_codes)).toBe(status));

  it('every PROOF_* code is in the reason catalogue with meaning and next step', () => {
    for (const code of Object.keys(PROOF_CODES)) {
      const entry = (REASONS as Record<string, { meaning: string; next: string } | undefined>)[code];
      expect(entry?.meaning, code).toBeTruthy();
      expect(entry?.next, code).toBeTruthy();
    }
  });
});

describe('trust material', () => {
  it('decodes every pinned key once, with its half-open window', () => {
    expect(trust.keys.map((k) => [k.key_id, k.public_key, k.key.asymmetricKeyType])).toEqual([
      ['arkforge-2026', PUB_2026, 'ed25519'],
      ['arkforge-2025', PUB_2025, 'ed25519'],
    ]);
    expect([trust.keys[0]!.from_ms, trust.keys[0]!.until_ms]).toEqual([
      Date.parse('2026-01-01T00:00:00Z'),
      Date.parse('2027-01-01T00:00:00Z'),
    ]);
    expect(trust.policy).toEqual({ requireTsaToken: true, maxSkewSeconds: 300, batchMaxSkewSeconds: 900, requireReceipts: false });
    expect(trust.tsa.roots).toHaveLength(1);
  });

  it('is rebuilt from plain, cloneable inputs (worker threads)', async () => {
    const inputs = structuredClone(trustMaterialInputs(trust));
    expect(inputs).toEqual({ policy: policy(), tsaRootPems: [TSA_ROOT], tlogKeyPems: [] });
    const rebuilt = buildTrustMaterialFrom(inputs);
    expect((await verifyEvidenceItem(await mint(), rebuilt, WINDOW)).status).toBe('VERIFIED');
  });

  it.each([
    [
      'a key that is not ed25519:<43 base64url>',
      { arkforge_keys: [{ key_id: 'a', public_key: 'ed25519:short', valid_from: TS, valid_until: GEN }] },
    ],
    ['an empty window', { arkforge_keys: [{ key_id: 'a', public_key: PUB_2026, valid_from: GEN, valid_until: TS }] }],
    ['a window that is not UTC', { arkforge_keys: [{ key_id: 'a', public_key: PUB_2026, valid_from: '2026-01-01', valid_until: GEN }] }],
    ['a key_id twice', { arkforge_keys: [0, 1].map(() => ({ key_id: 'a', public_key: PUB_2026, valid_from: TS, valid_until: GEN })) }],
    ['a negative skew', { max_skew_seconds: -1 }],
  ] as const)('refuses %s (TRUST_POLICY_INVALID)', (_what, over) => {
    let error: unknown;
    try {
      buildTrustMaterial(policy(over as Partial<TrustPolicy>), [TSA_ROOT]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PreregError);
    expect((error as PreregError).code).toBe('TRUST_POLICY_INVALID');
  });

  it('utcMillis: ISO-8601 UTC only, fractions below the millisecond kept', () => {
    expect(utcMillis('2026-03-10T12:00:00Z')).toBe(Date.parse('2026-03-10T12:00:00Z'));
    expect(utcMillis('2026-03-10T12:00:00+00:00')).toBe(Date.parse('2026-03-10T12:00:00Z'));
    // A double near 1.8e12 ms resolves ≈0.24 µs: microseconds survive, nanoseconds do not.
    expect(utcMillis('2026-03-10T12:00:00.0000015Z')! - Date.parse('2026-03-10T12:00:00Z')).toBeCloseTo(0.0015, 3);
    for (const bad of [
      '2026-03-10T12:00:00',
      '2026-03-10 12:00:00Z',
      '2026-02-29T00:00:00Z',
      '2026-03-10T24:00:00Z',
      '2026-03-10T12:00:60Z',
      '2026-03-10T12:00:00+01:00',
      '0000-01-01T00:00:00Z',
    ]) {
      expect(utcMillis(bad), bad).toBeUndefined();
    }
  });
});
