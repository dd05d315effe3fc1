// Mints spec 3.0 / 3.1 ArkForge proofs and batch anchors as the reference service does
// (proof-spec v3.1.0 §2, §2.2, §9; ark-forge/trust-layer), for the tests. TEST support: it signs
// with the TEST-ONLY keys and derives its nonces deterministically (the service draws 32 random
// bytes per field and per proof; a fixture must be reproducible, not secret).
//
// The commitment formula is written out here rather than imported from
// pipeline/evidence/proof-versions/, so that a shared bug cannot make the verifier agree with
// itself; test/evidence/arkforge/arkforge-proof-v3.test.ts also recomputes minted proofs with Python's
// hashlib. The Merkle trees (commitment root, batch tree, audit paths) are built with
// pipeline/formats/merkle.ts, the project's one RFC 6962 implementation (tested on its own).
// What the reference service does and this copies:
//  - commitment(field) = SHA-256(field UTF-8 ‖ 0x00 ‖ nonce (32 bytes) ‖ canonical JSON of the value),
//    published as sha256:<hex>; the nonce travels as 64 lowercase hex digits;
//  - chain hash = RFC 6962 root over SHA-256(0x00 ‖ commitment) in sorted field order;
//  - committed: the six base fields (request_hash / response_hash without prefix, transaction_id,
//    timestamp, buyer_fingerprint, seller), upstream_timestamp / receipt_content_hash when
//    served, and from 3.1 the identity block, always (null when absent), whose openings are
//    published in `disclosed`; agent_identity_verified is true or null, never false;
//  - arkforge_signature over the chain-hash hex string, as before 3.0;
//  - a proof anchored on its own carries a token over the 32 chain-hash bytes; a batch-anchored
//    one carries batch_anchor {status, batch_id, leaf_index, tree_size, audit_path, root} and a
//    token over the 32 batch-root bytes (leaves SHA-256(0x00 ‖ 32 chain-hash bytes)).
//  - the same witnessed hash (chain hash, or batch root) is logged in a transparency log as a
//    hashedrekord of its hex string signed with the issuer's key (logWitnessedHash, with the
//    in-test log of test/support/tlog/); the evidence item carries the entry as retrieved.
// Options marked "non-conforming" mint a proof the real service would not, with a valid root and
// signature, so that a test isolates one rule.
import { createHash, createPublicKey, sign } from 'node:crypto';
import { canonicalJson } from '../../pipeline/formats/canonical-json.ts';
import { hashLeaf, inclusionPath, rootFromLeafHashes } from '../../pipeline/formats/merkle.ts';
import { buildTimestampRequest } from '../../pipeline/formats/timestamp-request.ts';
import type { TlogEntry } from '../../pipeline/evidence/tlog/index.ts';
import { hashedRekordBody, type EntryOptions, type TestLog } from './tlog/test-log.ts';
import { issueTimestampResponse, type TsaSigner } from './tsa/pkijs-tsa.ts';
import { chainFields, signingKey, type IssueProofBase } from './arkforge-issuer.ts';

export interface IdentityBlock {
  agent_identity: unknown;
  agent_identity_verified: unknown;
  did_resolution_status: unknown;
  identity_consistent: unknown;
}

export const NULL_IDENTITY: IdentityBlock = {
  agent_identity: null,
  agent_identity_verified: null,
  did_resolution_status: null,
  identity_consistent: null,
};
export const BOUND_IDENTITY: IdentityBlock = {
  agent_identity: 'did:web:agent.example',
  agent_identity_verified: true,
  did_resolution_status: 'bound',
  identity_consistent: true,
};

export interface IssueProofV3Options extends IssueProofBase {
  specVersion: '3.0' | '3.1';
  /** The identity block served (and, from 3.1, committed); default NULL_IDENTITY. */
  identity?: IdentityBlock;
  /** 3.1: publish the identity block's openings in `disclosed` (default true). */
  publishIdentityOpenings?: boolean;
  /** Non-conforming: leave these fields out of the commitments (and of `disclosed`). */
  omitCommitments?: readonly string[];
  /** Non-conforming: commit these fields too. */
  extraCommitments?: Readonly<Record<string, unknown>>;
  /** proof-spec §9 public response: buyer_fingerprint and the transaction amounts omitted. */
  publicView?: boolean;
  /** Seed of the deterministic nonces; default transactionId|timestamp. */
  nonceSeed?: string;
}

export interface Opening {
  nonce: string;
  value: unknown;
}

export interface IssuedProofV3 {
  proof: Record<string, unknown>;
  request: unknown;
  response: unknown;
  /** Every field's opening: the owner's secret nonces (hand some over as a disclosure). */
  openings: Record<string, Opening>;
  /** The chain hash, hex. */
  chainHash: string;
}

const TRUST_LAYER = 'https://trust.arkforge.tech';

export async function issueProofV3(o: IssueProofV3Options): Promise<IssuedProofV3> {
  const identity = o.identity ?? NULL_IDENTITY;

  // The committed values (proof-spec v3.1.0 §2 "Definitions").
  const base = chainFields(o);
  const { request_hash: requestHash, response_hash: responseHash, buyer_fingerprint: buyerFingerprint } = base;
  const receipt = base.receipt_content_hash;
  const values: Record<string, unknown> = { ...base };
  if (o.specVersion === '3.1') Object.assign(values, identity);
  Object.assign(values, o.extraCommitments ?? {});
  for (const f of o.omitCommitments ?? []) delete values[f];

  const seed = o.nonceSeed ?? `${o.transactionId}|${o.timestamp}`;
  const openings: Record<string, Opening> = {};
  const commitments: Record<string, string> = {};
  for (const field of Object.keys(values).sort(utf8Order)) {
    const nonce = sha256(`TEST-ONLY nonce|${seed}|${field}`);
    openings[field] = { nonce, value: values[field] };
    commitments[field] = `sha256:${commit(field, nonce, values[field])}`;
  }
  const chainHash = rootFromLeafHashes(
    Object.keys(commitments).map((f) => hashLeaf(Buffer.from(commitments[f]!.slice(7), 'hex'))),
  ).toString('hex');

  const privateKey = signingKey(o.signingKeyPem);
  const signature = sign(null, Buffer.from(chainHash, 'utf8'), privateKey).toString('base64url');
  const ownPubkey = `ed25519:${createPublicKey(privateKey).export({ format: 'jwk' }).x}`;
  const embedded = o.embeddedPubkey === undefined ? ownPubkey : o.embeddedPubkey;

  const proofId = `prf_${o.timestamp.slice(0, 10).replaceAll('-', '')}_${o.timestamp.slice(11, 19).replaceAll(':', '')}_${chainHash.slice(0, 6)}`;
  const timestampAuthority: Record<string, unknown> = {
    status: 'submitted',
    provider: o.tsa?.provider ?? 'test-tsa.invalid',
    tsr_url: `${TRUST_LAYER}/v1/proof/${proofId}/tsr`,
  };
  if (o.tsa) {
    timestampAuthority.status = 'verified';
    timestampAuthority.tsr_base64 = await tokenOver(chainHash, o.tsa.signer, o.tsa.genTime);
  }

  const amounts = o.publicView ? {} : { amount: 0.1, currency: 'eur', status: 'succeeded' };
  const transaction =
    (o.paymentField ?? 'certification_fee') === 'payment'
      ? { provider: 'prepaid_credit', transaction_id: o.transactionId, ...amounts }
      : { method: 'prepaid_credit', transaction_id: o.transactionId, ...amounts };
  const parties: Record<string, unknown> = {
    ...(o.publicView ? {} : { buyer_fingerprint: buyerFingerprint }),
    seller: o.seller,
    agent_identity: identity.agent_identity,
    agent_identity_verified: identity.agent_identity_verified,
    did_resolution_status: identity.did_resolution_status,
    agent_version: null,
  };

  const proof: Record<string, unknown> = {
    proof_id: proofId,
    spec_version: o.specVersion,
    verification_url: `${TRUST_LAYER}/v1/proof/${proofId}`,
    verification_algorithm: 'https://github.com/ark-forge/proof-spec/blob/main/SPEC.md#2-chain-hash-algorithm',
    hashes: { request: `sha256:${requestHash}`, response: `sha256:${responseHash}`, chain: `sha256:${chainHash}` },
    commitments,
    parties,
    [o.paymentField ?? 'certification_fee']: transaction,
    timestamp: o.timestamp,
    timestamp_authority: timestampAuthority,
    identity_consistent: identity.identity_consistent,
    transaction_success: true,
    upstream_status_code: 200,
  };
  if (o.specVersion === '3.1' && o.publishIdentityOpenings !== false) {
    proof.disclosed = Object.fromEntries(
      ['agent_identity', 'agent_identity_verified', 'did_resolution_status', 'identity_consistent']
        .filter((f) => f in openings)
        .map((f) => [f, openings[f]]),
    );
  }
  if (o.upstreamTimestamp) proof.upstream_timestamp = o.upstreamTimestamp;
  if (receipt) proof.provider_payment = { type: 'stripe', receipt_content_hash: `sha256:${receipt}`, verification_status: 'fetched' };
  proof.arkforge_signature = `ed25519:${signature}`;
  if (embedded !== null) proof.arkforge_pubkey = embedded;
  return { proof, request: o.request, response: o.response, openings, chainHash };
}

/** The owner's disclosure of some fields, as an evidence item carries it. */
export function ownerDisclosure(
  issued: IssuedProofV3,
  fields: readonly string[] = ['request_hash', 'response_hash'],
): { disclosed: Record<string, Opening> } {
  return { disclosed: Object.fromEntries(fields.map((f) => [f, issued.openings[f]!])) };
}

export interface Batch {
  /** Hex. */
  root: string;
  leafHashes: Buffer[];
  /** The TimeStampResp over the 32 root bytes, base64. */
  tsrBase64: string;
}

/**
 * Closes a batch over these proofs (any spec version), in the order given: the tree over
 * SHA-256(0x00 ‖ 32 chain-hash bytes), one token over the 32 root bytes, and each proof's
 * batch_anchor with its audit path. The chain hashes and signatures are unchanged (the anchor is
 * post-chain metadata); each proof's timestamp_authority now carries the batch token.
 */
export async function anchorBatch(
  items: ReadonlyArray<{ proof: Record<string, unknown> }>,
  o: { signer: TsaSigner; genTime: string | Date; batchId: string },
): Promise<Batch> {
  const chains = items.map((i) => String((i.proof.hashes as Record<string, string>).chain).slice(7));
  const leafHashes = chains.map((c) => hashLeaf(Buffer.from(c, 'hex')));
  const root = rootFromLeafHashes(leafHashes).toString('hex');
  const tsrBase64 = await tokenOver(root, o.signer, o.genTime);
  items.forEach((item, index) => {
    item.proof.batch_anchor = {
      status: 'anchored',
      batch_id: o.batchId,
      leaf_index: index,
      tree_size: items.length,
      audit_path: inclusionPath(leafHashes, index).map((h) => h.toString('hex')),
      root: `sha256:${root}`,
    };
    item.proof.timestamp_authority = { ...(item.proof.timestamp_authority as object), status: 'verified', tsr_base64: tsrBase64 };
  });
  return { root, leafHashes, tsrBase64 };
}

/** A proof whose batch has not closed: batch_anchor pending, no token yet. */
export function markPending(item: { proof: Record<string, unknown> }, batchId: string): void {
  item.proof.batch_anchor = { status: 'pending', batch_id: batchId };
  item.proof.timestamp_authority = { status: 'pending', provider: 'test-tsa.invalid' };
}

/**
 * The hash a proof's external witnesses attest, hex: the batch root when the proof is anchored in
 * a batch, else its chain hash; null while its batch is pending (nothing is witnessed yet).
 */
export function witnessedHash(proof: Record<string, unknown>): string | null {
  const anchor = proof.batch_anchor as { status?: string; root?: string } | undefined | null;
  if (anchor?.status === 'pending') return null;
  const hash = anchor?.status === 'anchored' ? anchor.root : (proof.hashes as Record<string, string>).chain;
  return String(hash).replace(/^sha256:/, '');
}

export interface LogOptions extends Omit<EntryOptions, 'treeSize'> {
  /**
   * PKCS#8 PEM of the submitter's key. The tests log with the issuer's TEST-ONLY Ed25519 key and
   * pin it as a tlog_submitter_keys entry; the reference service logs with ECDSA P-256 "rekor" keys.
   */
  signingKeyPem: string;
  /** Log this hash (hex) instead of the proof's witnessed hash (a non-conforming entry). */
  hashHex?: string;
}

/**
 * Logs a proof's witnessed hash in the in-test log, as the reference service submits it (a
 * hashedrekord of the hash's hex string, signed by the issuer), and returns the entry as the log
 * serves it then: SET, and an inclusion proof and checkpoint for the log's current size.
 */
export function logWitnessedHash(log: TestLog, proof: Record<string, unknown>, o: LogOptions): TlogEntry {
  const { signingKeyPem, hashHex, ...entry } = o;
  const hash = hashHex ?? witnessedHash(proof);
  if (hash === null) throw new Error("logWitnessedHash: the proof's batch is pending, nothing is witnessed yet");
  const index = log.append(hashedRekordBody({ witnessedHashHex: hash, submitter: signingKey(signingKeyPem) }));
  return log.entry(index, entry);
}

/** A TimeStampResp over the 32 bytes of a hex digest, base64 (deterministic request nonce). */
export async function tokenOver(hexDigest: string, signer: TsaSigner, genTime: string | Date): Promise<string> {
  const request = buildTimestampRequest(Buffer.from(hexDigest, 'hex'), BigInt(`0x${hexDigest.slice(0, 16)}`) | 1n);
  return Buffer.from(await issueTimestampResponse(request, signer, { genTime })).toString('base64');
}

function commit(field: string, nonceHex: string, value: unknown): string {
  const preimage = Buffer.concat([
    Buffer.from(field, 'utf8'),
    Buffer.of(0),
    Buffer.from(nonceHex, 'hex'),
    Buffer.from(canonicalJson(value), 'utf8'),
  ]);
  return createHash('sha256').update(preimage).digest('hex');
}

/** Python's sorted() on str: code-point order, which is UTF-8 byte order. */
function utf8Order(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
