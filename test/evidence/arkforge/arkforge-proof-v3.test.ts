// ArkForge proofs, spec 3.0 / 3.1 and batch anchors (SPEC §6.1, proof-spec v3.1.0): one row per
// rule — a passing and a rejecting case, exact codes and status — on proofs minted as the
// reference service mints them (test/support/arkforge-issuer-v3.ts), with real RFC 3161 tokens
// from the TEST-ONLY TSA (over the chain hash, or over the batch root) and the TEST-ONLY keys.
// Then: the minted proofs recomputed by Python's hashlib (an independent implementation), and
// `prereg verify FILE` against the pipeline's path (runVerifyTask).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PROOF_CHECKS,
  PROOF_CODES,
  verifyEvidenceItem,
  type ProofCode,
  type ProofStatus,
  type ProofVerification,
} from '../../../pipeline/evidence/arkforge/index.ts';
import { KNOWN_SPEC_VERSIONS, proofVersionModule } from '../../../pipeline/evidence/arkforge/index.ts';
import { buildTrustMaterial, type TrustMaterial } from '../../../pipeline/evidence/trust/index.ts';
import { buildVerifyContext, runVerifyTask } from '../../../pipeline/evidence/task/index.ts';
import {
  JsonNumber,
  canonicalJson,
  parseJson,
  toPlain,
  type JsonObject,
  type JsonValue,
} from '../../../pipeline/formats/canonical-json.ts';
import { sha256Hex } from '../../../pipeline/formats/hash.ts';
import { inclusionPathLength } from '../../../pipeline/formats/merkle.ts';
import { REASONS } from '../../../pipeline/reasons.ts';
import { UNBOUNDED_WINDOW, verifyContextInputs } from '../../../pipeline/verify/inputs.ts';
import { issueProof } from '../../support/arkforge-issuer.ts';
import {
  BOUND_IDENTITY,
  anchorBatch,
  issueProofV3,
  markPending,
  ownerDisclosure,
  tokenOver,
  type IssueProofV3Options,
  type IssuedProofV3,
} from '../../support/arkforge-issuer-v3.ts';
import { PROJECT_ROOT, runCli } from '../../support/cli.ts';
import {
  at,
  GEN,
  KEY_2026,
  TS,
  TSA_ROOT,
  testTrustPolicy,
  v3MintOptions,
  V3_REQUEST_TEXT,
  V3_RESPONSE_TEXT,
  WINDOW,
} from '../../support/proof-fixtures.ts';
import { loadTestSigner, type TsaSigner } from '../../support/tsa/pkijs-tsa.ts';

const policy = testTrustPolicy;
const RECEIPT = 'af65b75f3901dfd0ed9590a009bf7283e318801e15733bf68403219967d4edb7';
const REQUEST_TEXT = V3_REQUEST_TEXT;

let tsa: TsaSigner;
let trust: TrustMaterial;
let trustNoToken: TrustMaterial;

beforeAll(async () => {
  tsa = await loadTestSigner('tsa');
  trust = buildTrustMaterial(policy(), [TSA_ROOT]);
  trustNoToken = buildTrustMaterial(policy({ require_tsa_token: false }), [TSA_ROOT]);
});

// --- minting and mutating --------------------------------------------------------------------

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- free-form mutations of parsed proofs
type Plain = Record<string, any>;
type Item = { proof: unknown; request?: unknown; response?: unknown; disclosure?: unknown };

interface MintOptions extends Partial<IssueProofV3Options> {
  /** Fields the owner discloses with the evidence item; default the two body hashes; null: no disclosure. */
  disclose?: readonly string[] | null;
}

function v3Options(over: MintOptions, n = 0): IssueProofV3Options {
  const { disclose: _disclose, ...rest } = over;
  return v3MintOptions(tsa, rest, n);
}

/** Written and parsed back as a file would be (JsonValue with number lexemes), then mutated. */
function asItem(issued: IssuedProofV3, disclose: readonly string[] | null | undefined, mutate?: (p: Plain, item: Plain) => void): Item {
  const item: Plain = { proof: issued.proof, request: issued.request, response: issued.response };
  if (disclose !== null) item.disclosure = ownerDisclosure(issued, disclose ?? ['request_hash', 'response_hash']);
  const parsed = parseJson(canonicalJson(item)) as Plain;
  mutate?.(parsed.proof, parsed);
  return parsed as Item;
}

/** A 3.x evidence item (default spec 3.1, a token over the chain hash, both body hashes disclosed). */
async function mint(over: MintOptions = {}, mutate?: (p: Plain, item: Plain) => void): Promise<Item> {
  return asItem(await issueProofV3(v3Options(over)), over.disclose, mutate);
}

/**
 * `size` proofs closed into one batch (token over the root at genTime), evidence item `index`
 * returned. `issue` mints proof n (default spec 3.1).
 */
async function mintBatch(
  o: {
    size: number;
    index: number;
    genTime?: string;
    over?: MintOptions;
    issue?: (n: number) => Promise<{ proof: Record<string, unknown>; request: unknown; response: unknown }>;
  },
  mutate?: (p: Plain, item: Plain) => void,
): Promise<Item> {
  const over = { ...o.over, tsa: undefined };
  const issued = await Promise.all(Array.from({ length: o.size }, (_, n) => (o.issue ? o.issue(n) : issueProofV3(v3Options(over, n)))));
  await anchorBatch(issued, { signer: tsa, genTime: o.genTime ?? at(TS, 420), batchId: 'batch_20260310_120700_001' });
  const chosen = issued[o.index]!;
  if ('openings' in chosen) return asItem(chosen as IssuedProofV3, over.disclose, mutate);
  const item = parseJson(canonicalJson({ proof: chosen.proof, request: chosen.request, response: chosen.response })) as Plain;
  mutate?.(item.proof, item);
  return item as Item;
}

/** A 2.1 proof (value algorithm) from the older issuer, with an identity served. */
async function mint21(identity?: Record<string, unknown>, mutate?: (p: Plain, item: Plain) => void): Promise<Item> {
  const issued = await issueProof({
    request: parseJson(REQUEST_TEXT),
    response: parseJson(V3_RESPONSE_TEXT),
    timestamp: TS,
    seller: 'api.example.com',
    buyerApiKey: 'mcp_test_example_key',
    transactionId: 'crd_20260310_120000_a1b2c3',
    specVersion: '2.1',
    signingKeyPem: KEY_2026,
    tsa: { signer: tsa, genTime: GEN },
  });
  const item = parseJson(canonicalJson(issued)) as Plain;
  if (identity) Object.assign(item.proof.parties, identity);
  mutate?.(item.proof, item);
  return item as Item;
}

const hex = (n: number) => sha256Hex(`node ${n}`);

// --- one row per rule --------------------------------------------------------------------------

interface Row {
  name: string;
  item: () => Promise<Item>;
  trust?: () => TrustMaterial;
  status: ProofStatus;
  reason_codes: ProofCode[];
  /** The codes of `codes` that leave the status unchanged. */
  informational?: ProofCode[];
  also?: (r: ProofVerification) => void;
}

const rows: Row[] = [
  // --- commitments: the chain hash is their root ---
  {
    name: '3.1 with bodies and the owner disclosing both body hashes → VERIFIED, every witness its own check',
    item: () => mint(),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => {
      expect(r.algorithm).toBe('commitments');
      expect(r.checks).toEqual({
        structure: 'pass',
        request_hash: 'pass',
        response_hash: 'pass',
        chain: 'pass',
        commitments: 'pass',
        disclosures: 'pass',
        body_binding: 'pass',
        identity: 'pass',
        signature: 'pass',
        key: 'pass',
        batch: 'skipped',
        tsa: 'pass',
        tlog: 'skipped',
        time: 'pass',
      });
      expect(r.committed_fields).toEqual([
        'agent_identity',
        'agent_identity_verified',
        'buyer_fingerprint',
        'did_resolution_status',
        'identity_consistent',
        'request_hash',
        'response_hash',
        'seller',
        'timestamp',
        'transaction_id',
      ]);
      expect(r.opened_fields).toEqual([
        'agent_identity',
        'agent_identity_verified',
        'did_resolution_status',
        'identity_consistent',
        'request_hash',
        'response_hash',
      ]);
      expect([r.identity_json, r.identity_anchored]).toEqual([
        '{"agent_identity":null,"agent_identity_verified":null,"did_resolution_status":null,"identity_consistent":null}',
        true,
      ]);
      expect([r.recomputed_chain_hash, r.witnessed_hash]).toEqual([r.declared_chain_hash, r.declared_chain_hash]);
      expect(r.independent_witnesses).toBe(1);
    },
  },
  {
    name: '3.0 with bodies and both body hashes disclosed → VERIFIED',
    item: () => mint({ specVersion: '3.0' }),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect([r.checks.identity, r.identity_json, r.committed_fields?.length]).toEqual(['skipped', null, 6]),
  },
  {
    name: '3.0 bare public proof (no bodies, no buyer_fingerprint, no amounts) → VERIFIED: no value needed',
    item: () =>
      mint({ specVersion: '3.0', publicView: true, disclose: null }, (_p, item) => {
        delete item.request;
        delete item.response;
      }),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect([r.checks.disclosures, r.checks.body_binding]).toEqual(['skipped', 'skipped']),
  },
  {
    name: '3.1 with upstream_timestamp and receipt_content_hash committed → VERIFIED',
    item: () => mint({ upstreamTimestamp: 'Tue, 10 Mar 2026 12:00:01 GMT', receiptContentHash: RECEIPT }),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect(r.committed_fields).toContain('receipt_content_hash'),
  },
  {
    name: 'payment block instead of certification_fee → VERIFIED',
    item: () => mint({ paymentField: 'payment' }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'field names beyond U+FFFF: the root is recomputed in code-point order, not UTF-16 order → only SET_MISMATCH',
    item: () => mint({ extraCommitments: { '\uff00': 1, '\u{1F600}': 2 } }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_COMMITMENT_SET_MISMATCH'],
    also: (r) => {
      expect(r.checks.chain).toBe('pass');
      expect(r.committed_fields!.slice(-2)).toEqual(['\uff00', '\u{1F600}']);
      expect(['\uff00', '\u{1F600}'].sort()).toEqual(['\u{1F600}', '\uff00']); // what a UTF-16 sort would have used
    },
  },
  {
    name: 'a commitment changed after issue → PROOF_COMMITMENT_ROOT_MISMATCH',
    item: () =>
      mint({}, (p) => {
        p.commitments.seller = `sha256:${sha256Hex('another seller')}`;
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_COMMITMENT_ROOT_MISMATCH'],
    also: (r) => expect([r.checks.chain, r.checks.signature, r.checks.tsa]).toEqual(['fail', 'pass', 'pass']),
  },
  {
    name: 'hashes.chain changed to another root → root, signature and token all fail',
    item: () =>
      mint({}, (p) => {
        p.hashes.chain = `sha256:${sha256Hex('another root')}`;
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_COMMITMENT_ROOT_MISMATCH', 'PROOF_SIGNATURE_INVALID', 'PROOF_TSA_INVALID'],
  },
  {
    name: 'a commitment in uppercase hex → PROOF_MALFORMED',
    item: () =>
      mint({}, (p) => {
        p.commitments.seller = p.commitments.seller.toUpperCase().replace('SHA256:', 'sha256:');
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: '3.1 without commitments → PROOF_MALFORMED',
    item: () =>
      mint({}, (p) => {
        delete p.commitments;
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },

  // --- the committed set ---
  {
    name: 'seller not committed (root recomputed by a non-conforming issuer) → PROOF_COMMITMENT_SET_MISMATCH',
    item: () => mint({ omitCommitments: ['seller'] }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_COMMITMENT_SET_MISMATCH'],
    also: (r) => expect(r.problems.join()).toMatch(/not committed: seller/),
  },
  {
    name: 'a field committed beyond the set (agent_version) → PROOF_COMMITMENT_SET_MISMATCH',
    item: () => mint({ extraCommitments: { agent_version: '1.0' } }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_COMMITMENT_SET_MISMATCH'],
    also: (r) => expect(r.problems.join()).toMatch(/committed but not in the set: agent_version/),
  },
  {
    name: 'upstream_timestamp served but not committed → PROOF_COMMITMENT_SET_MISMATCH',
    item: () => mint({ upstreamTimestamp: 'Tue, 10 Mar 2026 12:00:01 GMT', omitCommitments: ['upstream_timestamp'] }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_COMMITMENT_SET_MISMATCH'],
  },
  {
    name: 'receipt_content_hash committed, then no longer served → PROOF_COMMITMENT_SET_MISMATCH',
    item: () =>
      mint({ receiptContentHash: RECEIPT }, (p) => {
        p.provider_payment = null;
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_COMMITMENT_SET_MISMATCH'],
  },
  {
    name: "3.1 relabelled 3.0: identity committed beyond the 3.0 set, and only the issuer's word → SET_MISMATCH (+ UNANCHORED)",
    item: () =>
      mint({ identity: BOUND_IDENTITY }, (p) => {
        p.spec_version = '3.0';
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_COMMITMENT_SET_MISMATCH', 'PROOF_IDENTITY_UNANCHORED'],
    informational: ['PROOF_IDENTITY_UNANCHORED'],
  },

  // --- openings ---
  {
    name: "an owner's opening with a changed value: a commitment that does not open → PROOF_DISCLOSURE_MISMATCH",
    item: () =>
      mint({ disclose: ['request_hash', 'response_hash', 'seller'] }, (_p, item) => {
        item.disclosure.disclosed.seller.value = 'evil.example.com';
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_DISCLOSURE_MISMATCH'],
    also: (r) => expect(r.opened_fields).not.toContain('seller'),
  },
  {
    name: "an owner's opening with another nonce → PROOF_DISCLOSURE_MISMATCH",
    item: () =>
      mint({ disclose: ['request_hash', 'response_hash', 'transaction_id'] }, (_p, item) => {
        item.disclosure.disclosed.transaction_id.nonce = sha256Hex('guess');
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_DISCLOSURE_MISMATCH'],
  },
  {
    name: 'a value opened as 3 where "3" was committed (canonical JSON, type kept) → PROOF_DISCLOSURE_MISMATCH',
    item: () =>
      mint({ transactionId: '3', disclose: ['request_hash', 'response_hash', 'transaction_id'] }, (_p, item) => {
        item.disclosure.disclosed.transaction_id.value = new JsonNumber('3');
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_DISCLOSURE_MISMATCH'],
  },
  {
    name: 'an opening of a field the proof does not commit → PROOF_DISCLOSURE_MISMATCH',
    item: () =>
      mint({}, (_p, item) => {
        item.disclosure.disclosed.agent_version = { nonce: sha256Hex('n'), value: '1.0' };
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_DISCLOSURE_MISMATCH'],
  },
  {
    name: 'opening of seller opens, proof serves another seller → PROOF_SERVED_VALUE_MISMATCH',
    item: () =>
      mint({ disclose: ['request_hash', 'response_hash', 'seller'] }, (p) => {
        p.parties.seller = 'evil.example.com';
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_SERVED_VALUE_MISMATCH'],
  },
  {
    name: "served seller changed, nothing opens it: the root holds, the served value is nobody's word → VERIFIED",
    item: () =>
      mint({}, (p) => {
        p.parties.seller = 'evil.example.com';
      }),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect(r.opened_fields).not.toContain('seller'),
  },
  {
    name: 'opening of transaction_id against the served payment block → VERIFIED',
    item: () =>
      mint({ paymentField: 'payment', disclose: ['request_hash', 'response_hash', 'transaction_id', 'timestamp', 'buyer_fingerprint'] }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'an opening whose nonce is not 64 lowercase hex → PROOF_MALFORMED',
    item: () =>
      mint({}, (_p, item) => {
        item.disclosure.disclosed.request_hash.nonce = 'ab';
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'an opening without value → PROOF_MALFORMED',
    item: () =>
      mint({}, (_p, item) => {
        delete item.disclosure.disclosed.request_hash.value;
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'a disclosure that is not an object → PROOF_MALFORMED',
    item: () =>
      mint({}, (_p, item) => {
        item.disclosure = 'x';
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'openings given with a 2.1 proof open nothing → PROOF_DISCLOSURE_MISMATCH',
    item: () =>
      mint21(undefined, (_p, item) => {
        item.disclosure = { disclosed: { seller: { nonce: sha256Hex('n'), value: 'api.example.com' } } };
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_DISCLOSURE_MISMATCH'],
  },

  // --- bodies bound only through opened hash commitments ---
  {
    name: '3.1 bodies without any disclosure → PROOF_BODY_UNBOUND',
    item: () => mint({ disclose: null }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_BODY_UNBOUND'],
    also: (r) => expect([r.checks.request_hash, r.checks.body_binding]).toEqual(['pass', 'fail']),
  },
  {
    name: '3.0 response body, only request_hash opened → PROOF_BODY_UNBOUND',
    item: () => mint({ specVersion: '3.0', disclose: ['request_hash'] }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_BODY_UNBOUND'],
  },
  {
    name: 'response body only, response_hash opened → VERIFIED',
    item: () =>
      mint({ disclose: ['response_hash'] }, (_p, item) => {
        delete item.request;
      }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'response swapped and hashes.response rewritten to match: the opening catches it → SERVED_VALUE_MISMATCH + BODY_UNBOUND',
    item: () =>
      mint({}, (p, item) => {
        item.response = parseJson('{"passages":[{"ref":"R2152-2","text":"Le délai est de 60 jours."}]}');
        p.hashes.response = `sha256:${sha256Hex(canonicalJson(item.response))}`;
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_BODY_UNBOUND', 'PROOF_SERVED_VALUE_MISMATCH'],
    also: (r) => expect([r.checks.response_hash, r.checks.chain, r.checks.signature]).toEqual(['pass', 'pass', 'pass']),
  },
  {
    name: 'response body changed, hashes untouched → PROOF_RESPONSE_HASH_MISMATCH + BODY_UNBOUND',
    item: () =>
      mint({}, (_p, item) => {
        item.response.passages[0].text = 'changed';
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_BODY_UNBOUND', 'PROOF_RESPONSE_HASH_MISMATCH'],
  },

  // --- identity ---
  {
    name: '3.1 with a bound DID, committed and opened in the proof → VERIFIED, identity anchored',
    item: () => mint({ identity: BOUND_IDENTITY }),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) =>
      expect([r.identity_json, r.identity_anchored, r.checks.identity]).toEqual([
        '{"agent_identity":"did:web:agent.example","agent_identity_verified":true,"did_resolution_status":"bound","identity_consistent":true}',
        true,
        'pass',
      ]),
  },
  {
    name: '3.1: an identity field served but not committed → PROOF_COMMITMENT_SET_MISMATCH + PROOF_IDENTITY_INCOMPLETE',
    item: () => mint({ identity: BOUND_IDENTITY, omitCommitments: ['agent_identity'] }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_COMMITMENT_SET_MISMATCH', 'PROOF_IDENTITY_INCOMPLETE'],
    also: (r) => expect([r.identity_anchored, r.problems.some((p) => p.includes('not committed: agent_identity'))]).toEqual([false, true]),
  },
  {
    name: '3.1 without its disclosed block → PROOF_IDENTITY_INCOMPLETE',
    item: () => mint({ identity: BOUND_IDENTITY, publishIdentityOpenings: false }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_IDENTITY_INCOMPLETE'],
  },
  {
    name: '3.1 without disclosed, the owner hands the identity openings over → VERIFIED',
    item: () =>
      mint({
        identity: BOUND_IDENTITY,
        publishIdentityOpenings: false,
        disclose: [
          'request_hash',
          'response_hash',
          'agent_identity',
          'agent_identity_verified',
          'did_resolution_status',
          'identity_consistent',
        ],
      }),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect(r.identity_anchored).toBe(true),
  },
  {
    name: '3.1: the disclosed identity restated after anchoring (null → true) → PROOF_DISCLOSURE_MISMATCH',
    item: () =>
      mint({}, (p) => {
        p.disclosed.agent_identity_verified.value = true;
        p.parties.agent_identity_verified = true;
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_DISCLOSURE_MISMATCH'],
    also: (r) =>
      expect([r.checks.identity, r.identity_anchored, r.identity_json]).toEqual([
        'skipped',
        false,
        '{"agent_identity":null,"agent_identity_verified":true,"did_resolution_status":null,"identity_consistent":null}',
      ]),
  },
  {
    name: '3.1: flat agent_identity_verified served true, anchored null → PROOF_SERVED_VALUE_MISMATCH',
    item: () =>
      mint({}, (p) => {
        p.parties.agent_identity_verified = true;
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_SERVED_VALUE_MISMATCH'],
  },
  {
    name: '3.1: identity_consistent served false, anchored true → PROOF_SERVED_VALUE_MISMATCH',
    item: () =>
      mint({ identity: BOUND_IDENTITY }, (p) => {
        p.identity_consistent = false;
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_SERVED_VALUE_MISMATCH'],
  },
  {
    name: '3.1: agent_identity_verified committed as false → PROOF_IDENTITY_INVALID',
    item: () => mint({ identity: { ...BOUND_IDENTITY, agent_identity_verified: false } }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_IDENTITY_INVALID'],
  },
  {
    name: '3.1: did_resolution_status committed as "maybe" → PROOF_IDENTITY_INVALID',
    item: () => mint({ identity: { ...BOUND_IDENTITY, did_resolution_status: 'maybe' } }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_IDENTITY_INVALID'],
  },
  {
    name: '3.0 serving a bound DID → VERIFIED, PROOF_IDENTITY_UNANCHORED informational',
    item: () => mint({ specVersion: '3.0', identity: BOUND_IDENTITY }),
    status: 'VERIFIED',
    reason_codes: ['PROOF_IDENTITY_UNANCHORED'],
    informational: ['PROOF_IDENTITY_UNANCHORED'],
    also: (r) => expect([r.checks.identity, r.identity_anchored]).toEqual(['skipped', false]),
  },
  {
    name: '2.1 serving agent_identity_verified true → VERIFIED, PROOF_IDENTITY_UNANCHORED informational',
    item: () => mint21({ agent_identity: 'did:web:agent.example', agent_identity_verified: true, did_resolution_status: 'bound' }),
    status: 'VERIFIED',
    reason_codes: ['PROOF_IDENTITY_UNANCHORED'],
    informational: ['PROOF_IDENTITY_UNANCHORED'],
    also: (r) =>
      expect(r.identity_json).toBe(
        '{"agent_identity":"did:web:agent.example","agent_identity_verified":true,"did_resolution_status":"bound","identity_consistent":null}',
      ),
  },
  {
    name: '2.1 with every identity field null → VERIFIED, nothing claimed',
    item: () => mint21(),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect([r.identity_json, r.algorithm]).toEqual([null, 'canonical']),
  },
  {
    name: '2.1 with an unanchored identity and a tampered body: the informational code does not hide the failure',
    item: () =>
      mint21({ agent_identity: 'someone' }, (_p, item) => {
        item.response.passages[0].text = 'x';
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_IDENTITY_UNANCHORED', 'PROOF_RESPONSE_HASH_MISMATCH'],
    informational: ['PROOF_IDENTITY_UNANCHORED'],
  },

  // --- spec_version dispatch ---
  {
    name: '3.1 relabelled "3.2" → PROOF_SPEC_VERSION_UNKNOWN only: signature and token still checked',
    item: () =>
      mint({}, (p) => {
        p.spec_version = '3.2';
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_SPEC_VERSION_UNKNOWN'],
    also: (r) =>
      expect([r.checks.structure, r.checks.chain, r.checks.signature, r.checks.tsa, r.algorithm]).toEqual([
        'pass',
        'fail',
        'pass',
        'pass',
        null,
      ]),
  },
  {
    name: 'an unknown version without parties or payment is not judged by the 2.x shape → PROOF_SPEC_VERSION_UNKNOWN',
    item: () =>
      mint21(undefined, (p) => {
        p.spec_version = '4.0';
        delete p.parties;
        delete p.certification_fee;
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_SPEC_VERSION_UNKNOWN'],
  },
  {
    name: "3.1 relabelled 2.1: values algorithm, the proof's openings open nothing → CHAIN_MISMATCH + DISCLOSURE_MISMATCH",
    item: () =>
      mint({}, (p) => {
        p.spec_version = '2.1';
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_CHAIN_MISMATCH', 'PROOF_DISCLOSURE_MISMATCH'],
  },

  // --- batch anchors ---
  ...[0, 3, 4].map(
    (index): Row => ({
      name: `batch of 5, leaf ${index}: the token witnesses the root → VERIFIED`,
      item: () => mintBatch({ size: 5, index }),
      status: 'VERIFIED',
      reason_codes: [],
      also: (r) => {
        expect(r.checks.batch).toBe('pass');
        expect(r.batch).toMatchObject({ status: 'anchored', batch_id: 'batch_20260310_120700_001', leaf_index: index, tree_size: 5 });
        expect(r.witnessed_hash).toBe(r.batch?.root);
        expect(r.witnessed_hash).not.toBe(r.declared_chain_hash);
        expect(r.independent_witnesses).toBe(1);
      },
    }),
  ),
  { name: 'batch of 1 (empty audit path) → VERIFIED', item: () => mintBatch({ size: 1, index: 0 }), status: 'VERIFIED', reason_codes: [] },
  {
    name: 'batch of 2.1 proofs (a batch anchor on a value proof) → VERIFIED',
    item: () =>
      mintBatch({
        size: 3,
        index: 1,
        issue: (n) =>
          issueProof({
            request: {},
            response: { n },
            timestamp: TS,
            seller: 's.example',
            buyerApiKey: 'k',
            transactionId: `t${n}`,
            specVersion: '2.1',
            signingKeyPem: KEY_2026,
          }),
      }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'audit path one node too long → PROOF_BATCH_PATH_LENGTH, no independent witness',
    item: () =>
      mintBatch({ size: 5, index: 1 }, (p) => {
        p.batch_anchor.audit_path.push(hex(1));
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_BATCH_PATH_LENGTH'],
    also: (r) => {
      expect([r.checks.batch, r.checks.tsa, r.independent_witnesses]).toEqual(['fail', 'pass', 0]);
      expect(r.problems[0]).toBe('batch_anchor.audit_path has 4 node(s); RFC 6962 fixes exactly 3 for leaf 1 of a tree of 5');
    },
  },
  {
    name: 'audit path one node too short → PROOF_BATCH_PATH_LENGTH',
    item: () =>
      mintBatch({ size: 5, index: 1 }, (p) => {
        p.batch_anchor.audit_path.pop();
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_BATCH_PATH_LENGTH'],
  },
  {
    name: 'tree_size overstated 4 → 5 for the last leaf (the path is one node short for it) → PROOF_BATCH_PATH_LENGTH',
    item: () =>
      mintBatch({ size: 4, index: 3 }, (p) => {
        p.batch_anchor.tree_size = new JsonNumber('5');
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_BATCH_PATH_LENGTH'],
  },
  {
    name: 'known limit: tree_size overstated 5 → 8 for leaf 0 keeps the path length and the walk → VERIFIED (the root does not authenticate the size)',
    item: () =>
      mintBatch({ size: 5, index: 0 }, (p) => {
        p.batch_anchor.tree_size = new JsonNumber('8');
      }),
    status: 'VERIFIED',
    reason_codes: [],
    also: (r) => expect([r.batch?.tree_size, inclusionPathLength(0, 5), inclusionPathLength(0, 8)]).toEqual([8, 3, 3]),
  },
  {
    name: 'leaf_index = tree_size (out of range) → PROOF_BATCH_INDEX_OUT_OF_RANGE',
    item: () =>
      mintBatch({ size: 5, index: 4 }, (p) => {
        p.batch_anchor.leaf_index = new JsonNumber('5');
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_BATCH_INDEX_OUT_OF_RANGE'],
  },
  {
    name: 'leaf_index -1 → PROOF_BATCH_INDEX_OUT_OF_RANGE',
    item: () =>
      mintBatch({ size: 5, index: 0 }, (p) => {
        p.batch_anchor.leaf_index = new JsonNumber('-1');
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_BATCH_INDEX_OUT_OF_RANGE'],
  },
  {
    name: 'tree_size 0 → PROOF_BATCH_INDEX_OUT_OF_RANGE',
    item: () =>
      mintBatch({ size: 1, index: 0 }, (p) => {
        p.batch_anchor.tree_size = new JsonNumber('0');
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_BATCH_INDEX_OUT_OF_RANGE'],
  },
  {
    name: 'leaf_index written 1.0 → PROOF_MALFORMED',
    item: () =>
      mintBatch({ size: 5, index: 1 }, (p) => {
        p.batch_anchor.leaf_index = new JsonNumber('1.0');
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'leaf_index moved to another leaf of the same shape → PROOF_BATCH_PATH_INVALID',
    item: () =>
      mintBatch({ size: 4, index: 1 }, (p) => {
        p.batch_anchor.leaf_index = new JsonNumber('0');
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_BATCH_PATH_INVALID'],
  },
  {
    name: 'a sibling of the audit path changed → PROOF_BATCH_PATH_INVALID',
    item: () =>
      mintBatch({ size: 5, index: 2 }, (p) => {
        p.batch_anchor.audit_path[1] = hex(2);
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_BATCH_PATH_INVALID'],
  },
  {
    name: 'batch root replaced: the path misses it, and the token witnesses the real root → PATH_INVALID + TSA_INVALID',
    item: () =>
      mintBatch({ size: 5, index: 2 }, (p) => {
        p.batch_anchor.root = `sha256:${hex(3)}`;
      }),
    status: 'TAMPERED',
    reason_codes: ['PROOF_BATCH_PATH_INVALID', 'PROOF_TSA_INVALID'],
    also: (r) => expect(r.tsa?.reason_codes).toEqual(['TSA_IMPRINT_MISMATCH']),
  },
  {
    name: 'a token over the chain hash when the batch root was anchored → PROOF_TSA_INVALID',
    item: async () => {
      const issued = await issueProofV3(v3Options({ tsa: undefined }));
      await anchorBatch([issued, await issueProofV3(v3Options({ tsa: undefined }, 1))], {
        signer: tsa,
        genTime: at(TS, 420),
        batchId: 'b',
      });
      const overChain = await tokenOver(issued.chainHash, tsa, at(TS, 420));
      return asItem(issued, undefined, (p) => {
        p.timestamp_authority.tsr_base64 = overChain;
      });
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TSA_INVALID'],
    also: (r) => expect([r.tsa?.reason_codes, r.checks.batch, r.independent_witnesses]).toEqual([['TSA_IMPRINT_MISMATCH'], 'pass', 0]),
  },
  {
    name: 'batch anchored but no token, token required → PROOF_TSA_MISSING',
    item: () =>
      mintBatch({ size: 2, index: 0 }, (p) => {
        delete p.timestamp_authority.tsr_base64;
      }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TSA_MISSING'],
  },
  {
    name: 'status neither anchored nor pending → PROOF_MALFORMED',
    item: () =>
      mintBatch({ size: 2, index: 0 }, (p) => {
        p.batch_anchor.status = 'closed';
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },
  {
    name: 'anchored without audit_path → PROOF_MALFORMED',
    item: () =>
      mintBatch({ size: 2, index: 0 }, (p) => {
        delete p.batch_anchor.audit_path;
      }),
    status: 'MALFORMED',
    reason_codes: ['PROOF_MALFORMED'],
  },

  // --- pending batches ---
  {
    name: 'pending batch, the policy requires a token → PROOF_BATCH_PENDING (UNTRUSTED), tsa skipped',
    item: async () => {
      const issued = await issueProofV3(v3Options({ tsa: undefined }));
      markPending(issued, 'batch_20260310_120700_002');
      return asItem(issued, undefined);
    },
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_BATCH_PENDING'],
    also: (r) =>
      expect([r.checks.batch, r.checks.tsa, r.witnessed_hash, r.independent_witnesses, r.informational_codes]).toEqual([
        'fail',
        'skipped',
        null,
        0,
        [],
      ]),
  },
  {
    name: 'pending batch, no token required → VERIFIED, PROOF_BATCH_PENDING informational',
    item: async () => {
      const issued = await issueProofV3(v3Options({ tsa: undefined }));
      markPending(issued, 'batch_20260310_120700_002');
      return asItem(issued, undefined);
    },
    trust: () => trustNoToken,
    status: 'VERIFIED',
    reason_codes: ['PROOF_BATCH_PENDING'],
    informational: ['PROOF_BATCH_PENDING'],
    also: (r) => expect([r.checks.batch, r.checks.tsa, r.batch?.status]).toEqual(['skipped', 'skipped', 'pending']),
  },

  // --- time with a batch: genTime in [timestamp, timestamp + batch_max_skew_seconds] ---
  {
    name: 'batch token 600 s after the timestamp (beyond the 300 s single-proof skew) → VERIFIED',
    item: () => mintBatch({ size: 3, index: 0, genTime: at(TS, 600) }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'batch token exactly 900 s after the timestamp → VERIFIED',
    item: () => mintBatch({ size: 3, index: 0, genTime: at(TS, 900) }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'batch token exactly at the timestamp → VERIFIED',
    item: () => mintBatch({ size: 3, index: 0, genTime: TS }),
    status: 'VERIFIED',
    reason_codes: [],
  },
  {
    name: 'batch token 901 s after the timestamp, beyond the batch allowance → PROOF_TIME_OUTSIDE_WINDOW',
    item: () => mintBatch({ size: 3, index: 0, genTime: at(TS, 901) }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TIME_OUTSIDE_WINDOW'],
  },
  {
    name: 'batch token genTime 1 s before the proof timestamp → PROOF_TIME_OUTSIDE_WINDOW',
    item: () => mintBatch({ size: 3, index: 0, genTime: at(TS, -1) }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TIME_OUTSIDE_WINDOW'],
    also: (r) => expect(r.problems[0]).toMatch(/precedes timestamp .* by 1 s/),
  },
  {
    name: 'a proof anchored on its own keeps the 300 s skew: token 600 s later → PROOF_TIME_OUTSIDE_WINDOW',
    item: () => mint({ tsa: { signer: tsa, genTime: at(TS, 600) } }),
    status: 'UNTRUSTED',
    reason_codes: ['PROOF_TIME_OUTSIDE_WINDOW'],
  },
];

describe('verifyEvidenceItem, spec 3.x and batch anchors: one row per rule (SPEC §6.1)', () => {
  it.each(rows.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const item = await row.item();
    const result = await verifyEvidenceItem(item, row.trust ? row.trust() : trust, WINDOW);
    expect({ status: result.status, reason_codes: result.reason_codes, informational: result.informational_codes }).toEqual({
      status: row.status,
      reason_codes: row.reason_codes,
      informational: row.informational ?? [],
    });
    // Every counting code belongs to a failed check, every failed check has one; informational codes leave their check skipped.
    const counting = result.reason_codes.filter((c) => !result.informational_codes.includes(c as ProofCode));
    const failed = PROOF_CHECKS.filter((c) => result.checks[c] === 'fail');
    expect([...new Set(counting.map((c) => PROOF_CODES[c as ProofCode].check))].sort()).toEqual([...failed].sort());
    for (const c of result.informational_codes) expect(result.checks[PROOF_CODES[c].check], c).toBe('skipped');
    expect(result.problems.length).toBeGreaterThanOrEqual(result.reason_codes.length);
    expect(structuredClone(result)).toEqual(result); // plain data: it crosses worker threads
    row.also?.(result);
  });
});

describe('the version modules and the codes', () => {
  it('dispatches 3.0 and 3.1 to the commitments algorithm; the schema knows the same versions', () => {
    expect(['3.0', '3.1'].map((s) => proofVersionModule(s)?.algorithm)).toEqual(['commitments', 'commitments']);
    expect(KNOWN_SPEC_VERSIONS).toEqual([null, '1.0', '1.1', '2.0', '1.2', '2.1', '3.0', '3.1']);
    const schema = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'schemas/proof.schema.json'), 'utf8'));
    const branches = schema.allOf.flatMap(
      (b: { if: { properties: { spec_version: { enum: unknown[] } } } }) => b.if.properties.spec_version.enum,
    );
    expect([...branches].sort()).toEqual([...KNOWN_SPEC_VERSIONS].sort());
  });

  it('recomputes a 3.x chain hash from the commitments alone', async () => {
    const issued = await issueProofV3(v3Options({ publicView: true }));
    const proof = parseJson(canonicalJson(issued.proof));
    expect(proofVersionModule('3.1')!.chainHash(proof as never)).toBe(issued.chainHash);
  });

  it('every new code is in the reason catalogue, with the SPEC status', () => {
    const spec: Record<string, ProofStatus | null> = {
      PROOF_COMMITMENT_ROOT_MISMATCH: 'TAMPERED',
      PROOF_COMMITMENT_SET_MISMATCH: 'TAMPERED',
      PROOF_DISCLOSURE_MISMATCH: 'TAMPERED',
      PROOF_SERVED_VALUE_MISMATCH: 'TAMPERED',
      PROOF_BATCH_INDEX_OUT_OF_RANGE: 'TAMPERED',
      PROOF_BATCH_PATH_LENGTH: 'TAMPERED',
      PROOF_BATCH_PATH_INVALID: 'TAMPERED',
      PROOF_IDENTITY_INCOMPLETE: 'MALFORMED',
      PROOF_IDENTITY_INVALID: 'MALFORMED',
      PROOF_BODY_UNBOUND: 'UNTRUSTED',
      PROOF_BATCH_PENDING: 'UNTRUSTED',
      PROOF_IDENTITY_UNANCHORED: null,
    };
    for (const [code, status] of Object.entries(spec)) {
      expect(PROOF_CODES[code as ProofCode].status, code).toBe(status);
      const entry = (REASONS as Record<string, { meaning: string; next: string } | undefined>)[code];
      expect(entry?.meaning && entry.next, code).toBeTruthy();
    }
  });

  it('audit-path lengths the batch rows rely on', () => {
    expect([inclusionPathLength(1, 5), inclusionPathLength(3, 4), inclusionPathLength(3, 5), inclusionPathLength(0, 1)]).toEqual([
      3, 2, 3, 0,
    ]);
  });
});

// --- an independent implementation: Python's hashlib ---------------------------------------------

const PYTHON = String.raw`
import hashlib, json, sys
doc = json.load(open(sys.argv[1]))
def canon(x): return json.dumps(x, sort_keys=True, separators=(",", ":"))
def leaf(b): return hashlib.sha256(b"\x00" + b).digest()
def node(l, r): return hashlib.sha256(b"\x01" + l + r).digest()
def mth(hs):
    if len(hs) == 1: return hs[0]
    k = 1
    while k * 2 < len(hs): k *= 2
    return node(mth(hs[:k]), mth(hs[k:]))
out = []
for item in doc:
    p, openings = item["proof"], item["openings"]
    c = p["commitments"]
    ok_commit = all(hashlib.sha256(f.encode() + b"\x00" + bytes.fromhex(o["nonce"]) + canon(o["value"]).encode()).hexdigest() == c[f][7:] for f, o in openings.items())
    root = mth([leaf(bytes.fromhex(c[f][7:])) for f in sorted(c)]).hex()
    a = p.get("batch_anchor")
    walked = None
    if a:
        h, idx, size = leaf(bytes.fromhex(p["hashes"]["chain"][7:])), a["leaf_index"], a["tree_size"]
        path = [bytes.fromhex(x) for x in a["audit_path"]]
        i = 0
        while size > 1:
            if idx % 2 == 1: h = node(path[i], h); i += 1
            elif idx + 1 < size: h = node(h, path[i]); i += 1
            idx //= 2; size = (size + 1) // 2
        walked = [h.hex(), i == len(path)]
    out.append([ok_commit, root == p["hashes"]["chain"][7:], walked])
print(json.dumps(out))
`;

describe('minted 3.x proofs, recomputed by Python hashlib', () => {
  it('every commitment opens, the root is hashes.chain, every audit path walks to the batch root', async () => {
    const issued = await Promise.all(
      [0, 1, 2, 3, 4, 5, 6].map((n) =>
        issueProofV3(
          v3Options(
            {
              tsa: undefined,
              identity: n % 2 ? BOUND_IDENTITY : undefined,
              upstreamTimestamp: n === 2 ? 'Tue, 10 Mar 2026 12:00:01 GMT' : undefined,
              transactionId: n === 3 ? 'crd_é_€_😀' : `crd_${n}`,
              extraCommitments: n === 4 ? { '\uff00': 1.5, '\u{1F600}': [true, null] } : undefined,
            },
            n,
          ),
        ),
      ),
    );
    const batch = await anchorBatch(issued, { signer: tsa, genTime: at(TS, 60), batchId: 'b' });
    const dir = mkdtempSync(path.join(tmpdir(), 'prereg-v3-'));
    try {
      const file = path.join(dir, 'proofs.json');
      writeFileSync(file, JSON.stringify(issued.map((i) => ({ proof: i.proof, openings: i.openings }))));
      const result = JSON.parse(execFileSync('python3', ['-c', PYTHON, file], { encoding: 'utf8' }));
      expect(result).toEqual(issued.map(() => [true, true, [batch.root, true]]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// --- `prereg verify FILE` and the pipeline's path ----------------------------------------------

describe('prereg verify FILE on 3.x proofs: the same result as the pipeline (runVerifyTask)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'prereg-verify-v3-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a 3.1 proof file, batch-anchored evidence items (with and without a disclosure), a pending one', async () => {
    const trustDir = path.join(PROJECT_ROOT, 'preregistration/trust');
    const single = await issueProofV3(v3Options({ identity: BOUND_IDENTITY }));
    const batch = await Promise.all([0, 1, 2].map((n) => issueProofV3(v3Options({ tsa: undefined }, n + 1))));
    await anchorBatch(batch, { signer: tsa, genTime: at(TS, 300), batchId: 'b1' });
    const pending = await issueProofV3(v3Options({ tsa: undefined, identity: BOUND_IDENTITY, specVersion: '3.0' }, 9));
    markPending(pending, 'b2');
    const files: Record<string, unknown> = {
      'a-proof-3.1.json': single.proof,
      'b-batch-evidence.json': {
        proof: batch[1]!.proof,
        request: batch[1]!.request,
        response: batch[1]!.response,
        disclosure: ownerDisclosure(batch[1]!),
      },
      'c-batch-evidence-unbound.json': { proof: batch[2]!.proof, request: batch[2]!.request, response: batch[2]!.response },
      'd-pending-3.0.json': {
        proof: pending.proof,
        request: null,
        response: pending.response,
        disclosure: ownerDisclosure(pending, ['response_hash']),
      },
    };
    // Written as a participant would (pretty-printed plain JSON), read back as ingest reads a line.
    for (const [name, doc] of Object.entries(files))
      writeFileSync(path.join(dir, name), JSON.stringify(toPlain(parseJson(canonicalJson(doc))), null, 2));

    const cli = await runCli(['verify', dir, '--root', dir, '--trust', trustDir, '--json']);
    const ctx = buildVerifyContext(verifyContextInputs(trustDir, UNBOUNDED_WINDOW, []));
    const text = (v: JsonValue | undefined) => (v === undefined ? null : canonicalJson(v));
    const pipeline = await Promise.all(
      Object.keys(files).map(async (name) => {
        const doc = parseJson(readFileSync(path.join(dir, name), 'utf8')) as JsonObject;
        const evidence = 'proof' in doc ? doc : { proof: doc };
        const outcome = await runVerifyTask(
          {
            kind: 'evidence',
            key: name,
            proof: text(evidence.proof)!,
            request: text(evidence.request),
            response: text(evidence.response),
            disclosure: text(evidence.disclosure),
            transparency_log_entry: text(evidence.transparency_log_entry),
          },
          ctx,
        );
        if (outcome.kind !== 'evidence') throw new Error('not evidence');
        const r = outcome.result;
        return { status: r.status, reason_codes: r.reason_codes, informational_codes: r.informational_codes, checks: r.checks };
      }),
    );
    expect(
      cli.jsonLines.map((l) => ({
        status: l.status,
        reason_codes: l.reason_codes,
        informational_codes: l.informational_codes,
        checks: l.checks,
      })),
    ).toEqual(pipeline);
    expect(cli.jsonLines.map((l) => [path.basename(l.file), l.kind, l.status, l.reason_codes])).toEqual([
      ['a-proof-3.1.json', 'proof', 'VERIFIED', []],
      ['b-batch-evidence.json', 'evidence', 'VERIFIED', []],
      ['c-batch-evidence-unbound.json', 'evidence', 'UNTRUSTED', ['PROOF_BODY_UNBOUND']],
      ['d-pending-3.0.json', 'evidence', 'UNTRUSTED', ['PROOF_BATCH_PENDING', 'PROOF_IDENTITY_UNANCHORED']],
    ]);
    expect(cli.jsonLines[1].checks).toMatchObject({ batch: 'pass', tsa: 'pass', body_binding: 'pass' });
    expect(cli.jsonLines[3].informational_codes).toEqual(['PROOF_IDENTITY_UNANCHORED']);
    expect(cli.code).toBe(1);
  });
});
