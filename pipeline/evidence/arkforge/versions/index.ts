// One dispatch from spec_version to the module that checks what the chain hash covers (SPEC §6.1
// step 3). Each algorithm is one small module: the value algorithms (legacy.ts, canonical.ts,
// for spec_version absent, 1.x and 2.x) and the per-field commitments of 3.0 / 3.1
// (commitments.ts). A new spec version is one more row here.
//
// A module recomputes the chain hash and reports the checks it decides — chain, commitments,
// disclosures, body_binding, identity — as check outcomes and findings (code + problem), so the
// orchestrator (../verify-item.ts) records them like any other check. It never throws for bad
// evidence: the schema has accepted the proof's shape for this version before it runs.
import { canonical } from './canonical.ts';
import { commitments30, commitments31 } from './commitments.ts';
import { legacy } from './legacy.ts';
import type { ProofVersionModule } from './types.ts';

/** spec_version → module; `null` is an absent (or null) spec_version. Keep in step with the schema's branches. */
const BY_SPEC_VERSION: ReadonlyMap<string | null, ProofVersionModule> = new Map<string | null, ProofVersionModule>([
  [null, legacy],
  ['1.0', legacy],
  ['1.1', legacy],
  ['2.0', legacy],
  ['1.2', canonical],
  ['2.1', canonical],
  ['3.0', commitments30],
  ['3.1', commitments31],
]);

/** The spec versions this verifier knows, absent first. */
export const KNOWN_SPEC_VERSIONS: readonly (string | null)[] = [...BY_SPEC_VERSION.keys()];

/** The module for a spec_version (null or undefined = absent), or undefined for an unknown version. */
export function proofVersionModule(specVersion: string | null | undefined): ProofVersionModule | undefined {
  return BY_SPEC_VERSION.get(specVersion ?? null);
}

export type { ArkForgeProof, BatchAnchor, ChainFields, Opening, ProofTransaction } from './proof.ts';
export type { ChainAlgorithm, ProofVersionModule, SourcedOpening, VersionInput, VersionOutcome } from './types.ts';
