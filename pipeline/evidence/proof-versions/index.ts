// One dispatch from spec_version to the module that recomputes the chain hash (SPEC §6.1 step 3).
// Each algorithm is one small module; a new spec version is one more row here (3.0 / 3.1
// commitments will be another module next to legacy.ts and canonical.ts).
import { canonical } from './canonical.ts';
import { legacy } from './legacy.ts';
import type { ArkForgeProof } from './proof.ts';

export type ChainAlgorithm = 'legacy' | 'canonical';

export interface ProofVersionModule {
  readonly algorithm: ChainAlgorithm;
  /** The chain hash (64 lowercase hex) recomputed from the proof's own fields. */
  chainHash(proof: ArkForgeProof): string;
}

/** spec_version → module; `null` is an absent (or null) spec_version. */
const BY_SPEC_VERSION: ReadonlyMap<string | null, ProofVersionModule> = new Map<string | null, ProofVersionModule>([
  [null, legacy],
  ['1.0', legacy],
  ['1.1', legacy],
  ['2.0', legacy],
  ['1.2', canonical],
  ['2.1', canonical],
]);

/** The spec versions this verifier knows, absent first. */
export const KNOWN_SPEC_VERSIONS: readonly (string | null)[] = [...BY_SPEC_VERSION.keys()];

/** The module for a spec_version (null or undefined = absent), or undefined for an unknown version. */
export function proofVersionModule(specVersion: string | null | undefined): ProofVersionModule | undefined {
  return BY_SPEC_VERSION.get(specVersion ?? null);
}

export type { ArkForgeProof, ChainFields, ProofTransaction } from './proof.ts';
