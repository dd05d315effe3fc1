// The trust material (SPEC §5.4): the pinned keys, TSA roots and log keys of preregistration/trust/,
// decoded once from plain texts and handed to every verifier. Pure: the files are read by
// pipeline/io/trust-files.ts. (Editing the policy from an issuer's keys is pipeline/trust-import/.)
export {
  buildTrustMaterial,
  buildTrustMaterialFrom,
  decodeEd25519PublicKey,
  importEd25519Raw,
  DEFAULT_BATCH_MAX_SKEW_SECONDS,
  trustMaterialInputs,
} from './material.ts';
export type { PinnedKey, ProofPolicy, TrustMaterial, TrustMaterialInputs } from './material.ts';
