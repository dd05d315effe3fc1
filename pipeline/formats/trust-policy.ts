// preregistration/trust/policy.json (schemas/trust-policy.schema.json, docs/trust.md): the
// policy's shape, and the policy with the texts of the files it names as plain data — what
// pipeline/io/trust-files.ts reads and evidence/trust/ decodes, so neither imports the other.

/** A window's end: an ISO-8601 UTC instant, exclusive, or null for no end. */
export type WindowEnd = string | null;

export interface TrustPolicy {
  format: 'prereg.trust/1';
  arkforge_keys: Array<{ key_id: string; public_key: string; valid_from: string; valid_until: WindowEnd }>;
  tsa_roots: string[];
  /** TSA signing and intermediate certificates for tokens that carry none; never anchors. */
  tsa_certs?: string[];
  tlog_keys?: Array<{ log_id: string; public_key_file: string; valid_from?: string; valid_until?: WindowEnd }>;
  /** The issuer's transparency-log signing keys (ECDSA P-256 or Ed25519). */
  tlog_submitter_keys?: Array<{ key_id: string; public_key_file: string; valid_from: string; valid_until: WindowEnd }>;
  operator_public_key?: string;
  /** PEM file of the Ed25519 key that signs intake receipts; absent: operator_public_key (docs/intake.md). */
  intake_public_key?: string;
  /** JSON file of the operator key's certificate for intake_public_key (prereg.intake-key-certificate/1); needed when that key is not operator_public_key. */
  intake_key_certificate?: string;
  require_tsa_token: boolean;
  max_skew_seconds: number;
  /** Absent: DEFAULT_BATCH_MAX_SKEW_SECONDS (900). */
  batch_max_skew_seconds?: number;
  require_receipts: boolean;
  /**
   * The identities of the study's retrieval services whose proofs can prove a passage served, or
   * "any" (a weakened mode, sellerMode). Absent in older policies: freeze refuses it
   * (TRUST_SELLERS_MISSING) and verify then pins no seller.
   */
  sellers?: string[] | 'any';
}

/** How the policy pins sellers (SPEC §12.4): a list, "any", or nothing (refused at freeze). */
export type SellerMode = { mode: 'pinned'; sellers: readonly string[] } | { mode: 'any' } | { mode: 'missing' };

export function sellerMode(policy: Pick<TrustPolicy, 'sellers'>): SellerMode {
  if (policy.sellers === 'any') return { mode: 'any' };
  if (Array.isArray(policy.sellers) && policy.sellers.length > 0) return { mode: 'pinned', sellers: policy.sellers };
  return { mode: 'missing' };
}

/** A weaker choice the trust policy made, frozen with it, that the verdict lists (SPEC §12.4). */
export type TrustWeakenedMode = 'any seller';

/** The weakened modes the policy declares: `sellers: "any"` accepts proofs from every seller. */
export function trustWeakenedModes(policy: Pick<TrustPolicy, 'sellers'>): TrustWeakenedMode[] {
  return sellerMode(policy).mode === 'any' ? ['any seller'] : [];
}

/** The policy's members in the order the schema lists them: how a rewritten policy orders new ones. */
export const TRUST_POLICY_FIELDS = [
  'format',
  'arkforge_keys',
  'tsa_roots',
  'tsa_certs',
  'tlog_keys',
  'tlog_submitter_keys',
  'operator_public_key',
  'intake_public_key',
  'intake_key_certificate',
  'require_tsa_token',
  'max_skew_seconds',
  'batch_max_skew_seconds',
  'require_receipts',
  'sellers',
] as const satisfies ReadonlyArray<keyof TrustPolicy>;

/** Plain data from which TrustMaterial is rebuilt (e.g. on a worker thread). */
export interface TrustMaterialInputs {
  policy: TrustPolicy;
  /** The text of each policy.tsa_roots[i]. */
  tsaRootPems: string[];
  /** The text of each policy.tlog_keys[i].public_key_file, in the policy's order. */
  tlogKeyPems: string[];
  /** The text of each policy.tsa_certs[i]; absent when the policy supplies none. */
  tsaCertPems?: string[];
  /** The text of each policy.tlog_submitter_keys[i].public_key_file; absent when the policy pins none. */
  tlogSubmitterKeyPems?: string[];
}
