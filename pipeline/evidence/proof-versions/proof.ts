// The shape of an ArkForge proof (proof-spec v2.1.0 and older) once schemas/proof.schema.json
// has accepted it, and the chain-hash inputs every pre-3.0 algorithm reads from it.
// Keep this type and the schema in step: the schema decides, this type only names what it let through.

/** The transaction block (`payment` per proof-spec §1, `certification_fee` as the reference service issues it). */
export interface ProofTransaction {
  provider?: string;
  method?: string;
  transaction_id: string;
  amount: number;
  currency: string;
  status: string;
}

/** A proof the schema accepted (plain JS values; optional fields may be null = absent). */
export interface ArkForgeProof {
  proof_id: string;
  spec_version?: string | null;
  timestamp: string;
  hashes: { request: string; response: string; chain: string };
  parties: { buyer_fingerprint: string; seller: string };
  payment?: ProofTransaction;
  certification_fee?: ProofTransaction;
  upstream_timestamp?: string | null;
  provider_payment?: { receipt_content_hash?: string | null } | null;
  arkforge_signature?: string | null;
  arkforge_pubkey?: string | null;
  timestamp_authority?: { tsr_base64?: string | null } | null;
}

/** The components of a pre-3.0 chain hash (proof-spec §2 "Definitions"), hashes without prefix. */
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

/**
 * The chain inputs as the reference service reads them (trust_layer/proofs.py): the transaction
 * id from `payment`, else `certification_fee` (the verifier has already refused a proof whose two
 * blocks differ); optional fields only when non-empty strings.
 */
export function chainFields(proof: ArkForgeProof): ChainFields {
  const transaction = proof.payment ?? proof.certification_fee;
  if (!transaction) throw new TypeError('chainFields: the proof has neither payment nor certification_fee (schema not applied?)');
  const fields: ChainFields = {
    request_hash: stripSha256(proof.hashes.request),
    response_hash: stripSha256(proof.hashes.response),
    transaction_id: transaction.transaction_id,
    timestamp: proof.timestamp,
    buyer_fingerprint: proof.parties.buyer_fingerprint,
    seller: proof.parties.seller,
  };
  const upstream = proof.upstream_timestamp;
  if (typeof upstream === 'string' && upstream !== '') fields.upstream_timestamp = upstream;
  const receipt = proof.provider_payment?.receipt_content_hash;
  if (typeof receipt === 'string' && receipt !== '') fields.receipt_content_hash = stripSha256(receipt);
  return fields;
}
