// The contract between the orchestrator (../verify-item.ts) and each version module: what a module
// is given and what it reports. Its own file so the modules and the dispatch table (index.ts)
// both import it without importing each other.
import type { CheckOutcome } from '../../check-outcome.ts';
import type { Finding, ProofCheck } from '../checks.ts';
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
  /**
   * The seller the chain hash covers, bound as the buyer fingerprint is: below 3.0 from the
   * preimage when the chain hash recomputes, for 3.x from an opening of `seller` that opens its
   * commitment; null when none does. What a pinned seller is compared with (SPEC §12.4).
   */
  seller: BoundFingerprint | null;
}

/** A value the chain hash covers, and how: the recomputed preimage, or an opened commitment. */
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
