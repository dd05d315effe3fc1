// One dispatch from spec_version to the module that checks what the chain hash covers (SPEC §6.1
// step 3). Each algorithm is one small module: the value algorithms (legacy.ts, canonical.ts,
// for spec_version absent, 1.x and 2.x) and the per-field commitments of 3.0 / 3.1
// (commitments.ts). A new spec version is one more row here.
//
// A module recomputes the chain hash and reports the checks it decides — chain, commitments,
// disclosures, body_binding, identity — as check outcomes and findings (code + problem), so the
// orchestrator (arkforge-proof.ts) records them like any other check. It never throws for bad
// evidence: the schema has accepted the proof's shape for this version before it runs.
import type { CheckOutcome, Finding, ProofCheck } from '../proof-checks.ts';
import { canonical } from './canonical.ts';
import { commitments30, commitments31 } from './commitments.ts';
import { legacy } from './legacy.ts';
import type { ArkForgeProof, chainInputs } from './proof.ts';

export type ChainAlgorithm = 'legacy' | 'canonical' | 'commitments';

/** An opening of a commitment, from the proof's own `disclosed` or the evidence item's `disclosure.disclosed`. */
export interface SourcedOpening {
  field: string;
  /** 64 lowercase hex (the reader checked it). */
  nonce: string;
  /** As given (JsonValue keeps number lexemes): hashed and compared as canonical JSON. */
  value: unknown;
  source: 'proof' | 'disclosure';
}

export interface VersionInput {
  /** The proof as the schema accepted it (plain JS). */
  proof: ArkForgeProof;
  /** The same proof as given: values that are hashed or compared are read from here. */
  raw: unknown;
  /** hashes.chain without "sha256:". */
  declaredChain: string;
  /** Every opening given: the proof's `disclosed` first, then the evidence item's, each sorted by field. */
  openings: readonly SourcedOpening[];
  /** SHA-256 hex of the canonical JSON of each body given with the evidence item. */
  bodyHashes: { request?: string; response?: string };
  /** Below 3.0: the chain inputs as the structure step already read them (chainInputs), so they are read once. */
  chainInputs?: ReturnType<typeof chainInputs>;
}

export interface VersionOutcome {
  /** The chain hash recomputed by this version's algorithm (64 lowercase hex); null when the preimage is redacted. */
  recomputed_chain_hash: string | null;
  /** Outcomes of the checks this module decides; a check it does not list stays 'skipped'. */
  checks: Partial<Record<ProofCheck, CheckOutcome>>;
  /** Every failed rule (and informational notes), in the order found. */
  findings: Finding[];
  /** 3.x: the committed field names, sorted by code point; null for a value algorithm. */
  committed_fields: string[] | null;
  /** Fields with an opening that opens its commitment, sorted, unique. */
  opened_fields: string[];
  /** The identity block reported with the proof: canonical JSON, and whether an anchor backs it; null when none is claimed. */
  identity: { json: string; anchored: boolean } | null;
  /**
   * The buyer fingerprint the chain hash covers: below 3.0 from the preimage when the chain hash
   * recomputes, for 3.x from an opening that opens its commitment; null when none does (a
   * redacted preimage, an unopened commitment, a mismatch). What binds a proof to a system (SPEC §6.2).
   */
  buyer_fingerprint: BoundFingerprint | null;
}

export interface BoundFingerprint {
  value: string;
  source: 'preimage' | 'opening';
}

export interface ProofVersionModule {
  readonly algorithm: ChainAlgorithm;
  /** The chain hash (64 lowercase hex) recomputed from the proof alone. */
  chainHash(proof: ArkForgeProof): string;
  /** Every check this version decides, for one evidence item. */
  verify(input: VersionInput): VersionOutcome;
}

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
