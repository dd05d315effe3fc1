// Mints ArkForge proofs as the reference service does (ark-forge/trust-layer: proxy.execute_proxy
// → proofs.generate_proof, crypto.sign_proof, timestamps.submit_hash): TEST-ONLY proofs for the
// rehearsal's `prereg dev issue`, the tests and the script that rebuilds the example study. It
// signs with whatever key it is given: the TEST-ONLY keys, or the rehearsal's generated dev key.
//
// The chain-hash formulas are written out here on purpose rather than imported from
// pipeline/evidence/arkforge/versions/: a shared bug must not make the verifier agree with itself
// (docs/participating.md writes the same rules out in prose).
// What the reference service does and this copies:
//  - request/response hashes: SHA-256 of canonical JSON (Python json.dumps, sort_keys, compact);
//  - chain hash: canonical JSON of chain_data for 1.2 / 2.1, the legacy concatenation for
//    1.0 / 1.1 / 2.0 / absent; optional fields only when non-empty; receipt hash without prefix;
//  - arkforge_signature: Ed25519 over the chain-hash hex string (UTF-8), ed25519:<base64url>;
//  - the RFC 3161 token is requested over the 32 chain-hash bytes, stored as the TSA's whole
//    TimeStampResp in timestamp_authority.tsr_base64;
//  - the transaction block is `certification_fee` {method, transaction_id, amount, currency,
//    status}; `payment` (proof-spec §1) carries `provider` instead of `method`.
import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import { canonicalJson } from '../formats/canonical-json.ts';
import { buildTimestampRequest } from '../formats/timestamp-request.ts';
import { issueTimestampResponse, type TsaSigner } from './tsa/pkijs-tsa.ts';

/** What every test proof is issued from, whatever its spec version. */
export interface IssueProofBase {
  /** Bodies: parsed JsonValue (exact numbers) or plain JS. Returned unchanged. */
  request: unknown;
  response: unknown;
  /** ISO-8601 UTC, as the service writes it: YYYY-MM-DDTHH:MM:SSZ. */
  timestamp: string;
  seller: string;
  /** The raw API key; the proof carries SHA-256 of it (proof-spec §4). */
  buyerApiKey: string;
  transactionId: string;
  /** PKCS#8 PEM of the Ed25519 signing key. */
  signingKeyPem: string;
  /**
   * When given, an RFC 3161 token over the chain hash from this TSA, with exactly this genTime.
   * carryCertificate false: the token carries no certificate, as FreeTSA's do (the verifier then
   * needs the TSA certificate from the trust policy's tsa_certs); default true.
   */
  tsa?: { signer: TsaSigner; genTime: string | Date; provider?: string; carryCertificate?: boolean };
  /** Which block carries the transaction; default 'certification_fee', as the reference service. */
  paymentField?: 'payment' | 'certification_fee';
  upstreamTimestamp?: string;
  /** SHA-256 hex of the receipt, with or without "sha256:". */
  receiptContentHash?: string;
  /** arkforge_pubkey to embed: default the signing key's public half; null embeds none. */
  embeddedPubkey?: string | null;
  /**
   * The layout of the JSON served (the chain hash is the same in all three):
   *  - 'spec' (default): proof-spec §1, everything about the parties in `parties`;
   *  - 'service': as the reference service lays out a proof (its production proofs,
   *    test/fixtures/real/arkforge-production/): `seller` and the identity fields at the top
   *    level, service metadata (is_demo, views_count, transparency_log…); the buyer's copy also
   *    keeps `parties.buyer_fingerprint` and the transaction block (no real buyer copy was
   *    available: that part is an assumption, see docs/proofs.md);
   *  - 'public': the service's public view: 'service' without `parties` and without the
   *    transaction block, so below 3.0 its preimage is redacted.
   */
  view?: 'spec' | 'service' | 'public';
}

export interface IssueProofOptions extends IssueProofBase {
  /** '1.0' | '1.1' | '2.0' | '1.2' | '2.1', or null/undefined for a proof without spec_version. */
  specVersion?: string | null;
  /** Default: prf_<date>_<time>_<6 hex derived from the chain hash> (deterministic). */
  proofId?: string;
  amount?: number;
  currency?: string;
}

export interface IssuedProof {
  proof: Record<string, unknown>;
  request: unknown;
  response: unknown;
}

const LEGACY = new Set(['1.0', '1.1', '2.0']);
const CANONICAL = new Set(['1.2', '2.1']);
const TRUST_LAYER = 'https://trust.arkforge.tech';

/**
 * The chain fields every version binds (proof-spec §2 "Definitions"): the canonical chain data of
 * 1.2/2.1, and the committed base values of 3.x. Optional fields only when non-empty.
 */
/** The buyer fingerprint the issuer writes for an API key: SHA-256 hex of the key (what a study registers, SPEC §6.2). */
export function buyerFingerprint(apiKey: string): string {
  return sha256(apiKey);
}

export function chainFields(o: {
  request: unknown;
  response: unknown;
  buyerApiKey: string;
  transactionId: string;
  timestamp: string;
  seller: string;
  upstreamTimestamp?: string;
  receiptContentHash?: string;
}): Record<string, string> & { request_hash: string; response_hash: string; buyer_fingerprint: string; receipt_content_hash?: string } {
  const fields: Record<string, string> & { request_hash: string; response_hash: string; buyer_fingerprint: string } = {
    request_hash: sha256(canonicalJson(o.request)),
    response_hash: sha256(canonicalJson(o.response)),
    transaction_id: o.transactionId,
    timestamp: o.timestamp,
    buyer_fingerprint: buyerFingerprint(o.buyerApiKey),
    seller: o.seller,
  };
  const receipt = o.receiptContentHash?.replace(/^sha256:/, '');
  if (o.upstreamTimestamp) fields.upstream_timestamp = o.upstreamTimestamp;
  if (receipt) fields.receipt_content_hash = receipt;
  return fields;
}

export async function issueProof(o: IssueProofOptions): Promise<IssuedProof> {
  const specVersion = o.specVersion ?? null;
  if (specVersion !== null && !LEGACY.has(specVersion) && !CANONICAL.has(specVersion)) {
    throw new Error(`issueProof: spec_version ${specVersion} is not minted by this issuer`);
  }
  const chainData = chainFields(o);
  const { request_hash: requestHash, response_hash: responseHash, buyer_fingerprint: buyerFingerprint } = chainData;
  const receipt = chainData.receipt_content_hash;

  let chainHash: string;
  if (specVersion !== null && CANONICAL.has(specVersion)) {
    chainHash = sha256(canonicalJson(chainData));
  } else {
    let input = requestHash + responseHash + o.transactionId + o.timestamp + buyerFingerprint + o.seller;
    if (o.upstreamTimestamp) input += o.upstreamTimestamp;
    if (receipt) input += receipt;
    chainHash = sha256(input);
  }

  const privateKey = signingKey(o.signingKeyPem);
  const signature = sign(null, Buffer.from(chainHash, 'utf8'), privateKey).toString('base64url');
  const ownPubkey = `ed25519:${createPublicKey(privateKey).export({ format: 'jwk' }).x}`;
  const embedded = o.embeddedPubkey === undefined ? ownPubkey : o.embeddedPubkey;

  const proofId =
    o.proofId ??
    `prf_${o.timestamp.slice(0, 10).replaceAll('-', '')}_${o.timestamp.slice(11, 19).replaceAll(':', '')}_${chainHash.slice(0, 6)}`;
  const provider = o.tsa?.provider ?? 'test-tsa.invalid';
  const timestampAuthority: Record<string, unknown> = {
    status: 'submitted',
    provider,
    tsr_url: `${TRUST_LAYER}/v1/proof/${proofId}/tsr`,
  };
  if (o.tsa) {
    const chainBytes = Buffer.from(chainHash, 'hex');
    // A nonce derived from the chain hash keeps the request deterministic.
    const request = buildTimestampRequest(chainBytes, BigInt(`0x${chainHash.slice(0, 16)}`) | 1n);
    const response = await issueTimestampResponse(request, o.tsa.signer, {
      genTime: o.tsa.genTime,
      includeCertificates: o.tsa.carryCertificate ?? true,
    });
    timestampAuthority.status = 'verified';
    timestampAuthority.tsr_base64 = Buffer.from(response).toString('base64');
  }

  const amount = o.amount ?? 0.1;
  const currency = o.currency ?? 'eur';
  const transaction =
    (o.paymentField ?? 'certification_fee') === 'payment'
      ? { provider: 'prepaid_credit', transaction_id: o.transactionId, amount, currency, status: 'succeeded' }
      : { method: 'prepaid_credit', transaction_id: o.transactionId, amount, currency, status: 'succeeded' };

  const proof: Record<string, unknown> = { proof_id: proofId };
  const view = o.view ?? 'spec';
  if (view !== 'spec') proof.is_demo = false;
  if (specVersion !== null) proof.spec_version = specVersion;
  const hashes = { request: `sha256:${requestHash}`, response: `sha256:${responseHash}`, chain: `sha256:${chainHash}` };
  if (view === 'spec') {
    Object.assign(proof, {
      verification_url: `${TRUST_LAYER}/v1/proof/${proofId}`,
      verification_algorithm: 'https://github.com/ark-forge/proof-spec/blob/main/SPEC.md#2-chain-hash-algorithm',
      hashes,
      parties: {
        buyer_fingerprint: buyerFingerprint,
        seller: o.seller,
        agent_identity: null,
        agent_identity_verified: null,
        did_resolution_status: null,
        agent_version: null,
      },
      [o.paymentField ?? 'certification_fee']: transaction,
      timestamp: o.timestamp,
      timestamp_authority: timestampAuthority,
      identity_consistent: null,
      transaction_success: true,
      upstream_status_code: 200,
    });
  } else {
    // The order and the metadata of the service's production proofs.
    Object.assign(proof, {
      hashes,
      ...(view === 'service'
        ? { parties: { buyer_fingerprint: buyerFingerprint }, [o.paymentField ?? 'certification_fee']: transaction }
        : {}),
    });
    Object.assign(proof, {
      timestamp_authority: timestampAuthority,
      timestamp: o.timestamp,
      verification_algorithm: 'https://github.com/ark-forge/proof-spec/blob/main/SPEC.md#2-chain-hash-algorithm',
      identity_consistent: null,
      views_count: 1,
      transaction_success: true,
      upstream_status_code: 200,
      disputed: null,
      dispute_id: null,
      transparency_log: { provider: 'sigstore-rekor', status: 'pending' },
      agent_identity: null,
      agent_identity_verified: null,
      did_resolution_status: null,
      seller: o.seller,
      provider_payment: null,
      integrity_verified: true,
    });
  }
  if (o.upstreamTimestamp) proof.upstream_timestamp = o.upstreamTimestamp;
  if (receipt) {
    proof.provider_payment = {
      type: 'stripe',
      receipt_url: 'https://pay.stripe.com/receipts/payment/TEST-ONLY',
      receipt_fetch_status: 'fetched',
      receipt_content_hash: `sha256:${receipt}`,
      parsing_status: 'success',
      parsed_fields: null,
      verification_status: 'fetched',
    };
  }
  proof.arkforge_signature = `ed25519:${signature}`;
  if (embedded !== null) proof.arkforge_pubkey = embedded;
  return { proof, request: o.request, response: o.response };
}

/** Keys imported once per PEM: an example study mints thousands of proofs with one key. */
const signingKeys = new Map<string, KeyObject>();
export function signingKey(pem: string): KeyObject {
  let key = signingKeys.get(pem);
  if (!key) {
    key = createPrivateKey(pem);
    signingKeys.set(pem, key);
  }
  return key;
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
