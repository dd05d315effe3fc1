// The shape of an ArkForge proof once schemas/proof.schema.json has accepted it, and the
// chain-hash inputs the value algorithms (before 3.0) read from it.
// Keep this type and the schema in step: the schema decides, this type only names what it let through.
// The schema has one branch per algorithm family (spec_version absent, 1.x, 2.x: values; 3.0,
// 3.1: commitments) and only the common fields for a version it does not know.

/**
 * The transaction block (`payment` per proof-spec §1, `certification_fee` as the reference service
 * issues it). Only transaction_id is read (it enters the chain hash); the public view of a proof
 * may omit it, or the whole block.
 */
export interface ProofTransaction {
  provider?: string;
  method?: string;
  transaction_id?: string | null;
  amount?: number;
  currency?: string;
  status?: string;
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
 * A proof the schema accepted (plain JS values; optional fields may be null = absent). The
 * reference service serves two shapes: the full one (`parties` with the buyer fingerprint, a
 * transaction block) and the public view, where `seller` and the identity fields sit at the top
 * level and the buyer fingerprint and transaction id are not published (chainInputs). So
 * `parties`, `payment` / `certification_fee` and `commitments` (3.x only) are all optional here.
 */
export interface ArkForgeProof {
  proof_id: string;
  spec_version?: string | null;
  timestamp: string;
  hashes: { request: string; response: string; chain: string };
  parties?: { buyer_fingerprint?: string | null; seller?: string | null; [identity: string]: unknown } | null;
  /** The public view's place for the seller (read when parties.seller is absent). */
  seller?: string | null;
  /** Read when parties.buyer_fingerprint is absent, as seller is. */
  buyer_fingerprint?: string | null;
  payment?: ProofTransaction | null;
  certification_fee?: ProofTransaction | null;
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

/** The value chain inputs the issuer's public view leaves unpublished (below 3.0). */
export const REDACTED_CHAIN_INPUTS = ['transaction_id', 'buyer_fingerprint'] as const;

/**
 * The chain inputs as the reference service reads them (trust_layer/proofs.py): the transaction
 * id from `payment`, else `certification_fee` (the verifier has already refused a proof whose two
 * blocks differ); the buyer fingerprint and the seller from `parties`, else the top level (where
 * the public view serves the seller); optional fields only when non-empty strings.
 *
 * Three outcomes. `fields`: everything is served, the chain hash recomputes. `redacted`: the
 * issuer's public view, which serves the seller but neither the buyer fingerprint nor the
 * transaction id (absent or null) — nothing to recompute. `malformed`: any other gap (one of the
 * two withheld alone, or no seller), which no issuer serves: a proof with its fee block deleted
 * must not pass for a public view (that would turn a TAMPERED proof into an UNTRUSTED one).
 */
export function chainInputs(proof: ArkForgeProof): { fields: ChainFields } | { redacted: true } | { malformed: string } {
  const transactionId = (proof.payment ?? proof.certification_fee)?.transaction_id;
  const buyerFingerprint = proof.parties?.buyer_fingerprint ?? proof.buyer_fingerprint;
  const seller = proof.parties?.seller ?? proof.seller;
  if (typeof seller !== 'string')
    return { malformed: 'the proof serves no seller (parties.seller or seller): every proof below 3.0 does, its public view included' };
  const served = { transaction_id: typeof transactionId === 'string', buyer_fingerprint: typeof buyerFingerprint === 'string' };
  if (!served.transaction_id && !served.buyer_fingerprint) return { redacted: true };
  if (!served.transaction_id || !served.buyer_fingerprint) {
    const [given, missing] = served.transaction_id
      ? ['the transaction id', 'the buyer fingerprint']
      : ['the buyer fingerprint', 'the transaction id'];
    return { malformed: `the proof serves ${given} but not ${missing}: a full proof serves both, the issuer's public view neither` };
  }
  const fields: ChainFields = {
    request_hash: stripSha256(proof.hashes.request),
    response_hash: stripSha256(proof.hashes.response),
    transaction_id: transactionId as string,
    timestamp: proof.timestamp,
    buyer_fingerprint: buyerFingerprint as string,
    seller,
  };
  const upstream = servedUpstreamTimestamp(proof);
  if (upstream !== undefined) fields.upstream_timestamp = upstream;
  const receipt = servedReceiptContentHash(proof);
  if (receipt !== undefined) fields.receipt_content_hash = receipt;
  return { fields };
}

/** The chain inputs of a proof whose preimage is published; throws (a caller bug) for a redacted one. */
export function chainFields(proof: ArkForgeProof): ChainFields {
  const inputs = chainInputs(proof);
  if (!('fields' in inputs)) throw new TypeError('chainFields: the proof does not publish its chain inputs (check chainInputs first)');
  return inputs.fields;
}
