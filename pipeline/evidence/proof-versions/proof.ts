// The shape of an ArkForge proof once schemas/proof.schema.json has accepted it, and the
// chain-hash inputs the value algorithms (before 3.0) read from it.
// Keep this type and the schema in step: the schema decides, this type only names what it let through.
// The schema has one branch per algorithm family (spec_version absent, 1.x, 2.x: values; 3.0,
// 3.1: commitments) and only the common fields for a version it does not know.

/** The transaction block (`payment` per proof-spec §1, `certification_fee` as the reference service issues it). */
export interface ProofTransaction {
  provider?: string;
  method?: string;
  transaction_id: string;
  amount: number;
  currency: string;
  status: string;
}

/** One opening of a spec 3.x commitment: the field's 32-byte nonce (64 lowercase hex) and its value. */
export interface Opening {
  nonce: string;
  value: unknown;
}

/** proof-spec v3.1.0 §2.2: the inclusion proof from the chain hash up to an anchored batch root. */
export interface BatchAnchor {
  status: 'anchored' | 'pending';
  batch_id?: string | null;
  /** sha256:<hex> (required when anchored). */
  root?: string;
  leaf_index?: number;
  tree_size?: number;
  /** Sibling hashes, bottom first, 64 lowercase hex each (required when anchored). */
  audit_path?: string[];
}

/**
 * A proof the schema accepted (plain JS values; optional fields may be null = absent). Fields the
 * schema requires only for some versions are optional here: `parties` (a value proof always has
 * it; a public 3.x proof may omit buyer_fingerprint), `payment` / `certification_fee`,
 * `commitments` (3.x only).
 */
export interface ArkForgeProof {
  proof_id: string;
  spec_version?: string | null;
  timestamp: string;
  hashes: { request: string; response: string; chain: string };
  parties?: { buyer_fingerprint?: string | null; seller?: string | null; [identity: string]: unknown };
  payment?: ProofTransaction;
  certification_fee?: ProofTransaction;
  upstream_timestamp?: string | null;
  provider_payment?: { receipt_content_hash?: string | null } | null;
  arkforge_signature?: string | null;
  arkforge_pubkey?: string | null;
  timestamp_authority?: { tsr_base64?: string | null } | null;
  /** 3.x: field → sha256:<hex>. */
  commitments?: Record<string, string>;
  /** 3.1: the identity block's openings, published in the proof (any version may carry the key). */
  disclosed?: Record<string, Opening> | null;
  batch_anchor?: BatchAnchor | null;
}

/** The components of a value chain hash (proof-spec §2 "Definitions"), hashes without prefix. */
export interface ChainFields {
  request_hash: string;
  response_hash: string;
  transaction_id: string;
  timestamp: string;
  buyer_fingerprint: string;
  seller: string;
  /** Present only when the proof serves a non-empty string. */
  upstream_timestamp?: string;
  /** `provider_payment.receipt_content_hash` without "sha256:"; present only when non-empty. */
  receipt_content_hash?: string;
}

export const SHA256_PREFIX = 'sha256:';

export function stripSha256(value: string): string {
  return value.startsWith(SHA256_PREFIX) ? value.slice(SHA256_PREFIX.length) : value;
}

/** upstream_timestamp as it takes part in a chain hash: only a non-empty string (trust_layer/proofs.py). */
export function servedUpstreamTimestamp(proof: ArkForgeProof): string | undefined {
  const upstream = proof.upstream_timestamp;
  return typeof upstream === 'string' && upstream !== '' ? upstream : undefined;
}

/** provider_payment.receipt_content_hash without "sha256:", only when a non-empty string. */
export function servedReceiptContentHash(proof: ArkForgeProof): string | undefined {
  const receipt = proof.provider_payment?.receipt_content_hash;
  return typeof receipt === 'string' && receipt !== '' ? stripSha256(receipt) : undefined;
}

/**
 * The chain inputs as the reference service reads them (trust_layer/proofs.py): the transaction
 * id from `payment`, else `certification_fee` (the verifier has already refused a proof whose two
 * blocks differ); optional fields only when non-empty strings.
 */
export function chainFields(proof: ArkForgeProof): ChainFields {
  const transaction = proof.payment ?? proof.certification_fee;
  const parties = proof.parties;
  if (!transaction || typeof parties?.buyer_fingerprint !== 'string' || typeof parties.seller !== 'string') {
    throw new TypeError('chainFields: the proof lacks the transaction block or parties (schema not applied?)');
  }
  const fields: ChainFields = {
    request_hash: stripSha256(proof.hashes.request),
    response_hash: stripSha256(proof.hashes.response),
    transaction_id: transaction.transaction_id,
    timestamp: proof.timestamp,
    buyer_fingerprint: parties.buyer_fingerprint,
    seller: parties.seller,
  };
  const upstream = servedUpstreamTimestamp(proof);
  if (upstream !== undefined) fields.upstream_timestamp = upstream;
  const receipt = servedReceiptContentHash(proof);
  if (receipt !== undefined) fields.receipt_content_hash = receipt;
  return fields;
}
