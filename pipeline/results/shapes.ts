// The shapes of what a run produces, as emit reads them from the store and report/ renders them:
// report/ depends on these, not on emit (which reads DuckDB). emit/tables.ts declares the table of
// each result name (`satisfies Record<ResultName, TableSpec>`: the two cannot drift apart).
import type { Row } from '../store/cells.ts';

/** The results, keyed as results.json names them: section 5's views, then the statistics the score stage adds. */
export type ResultName =
  | 'assertion_classes'
  | 'scores'
  | 'constancy'
  | 'sign_tests'
  | 'discordant_items'
  | 'hypotheses'
  | 'score_intervals'
  | 'sign_test_adjustments'
  | 'noise_floor'
  | 'retrieval'
  | 'constancy_flips';

/**
 * The results emit holds whole: every one but assertion_classes, a row per assertion and record,
 * which is streamed into results.json and the decision digest and counted for the report.
 */
export type HeldResultName = Exclude<ResultName, 'assertion_classes'>;

/** Every input digest the outputs depend on; run_id is derived from this object alone. */
export interface EmitInputs {
  /** RFC 6962 root of the frozen corpus (freeze.json corpus.root). */
  corpus_root: string;
  section5_sha256: string;
  /** The answer-key commitment root (freeze.json answer_key.root). */
  answer_key_root: string;
  /** Merkle root of preregistration/trust/ (freeze.json trust.root, rechecked against the files). */
  trust_root: string;
  /** SHA-256 of canonical freeze.json. */
  freeze_digest: string;
  /** Every submission file ingest read, sorted by file. */
  submissions: Array<{ file: string; sha256: string; bytes: number }>;
  /** SHA-256 of inputs/commitments.jsonl, or null when the study has none. */
  commitments_sha256: string | null;
  /** SHA-256 of inputs/deviations.jsonl, or null when no deviation was recorded (SPEC §13.3). */
  deviations_sha256: string | null;
  /** The anchor tokens of the freeze the report names as witnesses, sorted by file. */
  anchors: Array<{ file: string; sha256: string }>;
  /**
   * The sealed intake's files (SPEC §12.2): inputs/intake.jsonl, inputs/seal.json, inputs/anchors/*
   * and the systems' own inputs/commitments/*.jsonl, sorted by file; empty for an unsealed study.
   */
  intake_files: Array<{ file: string; sha256: string }>;
}

export interface StoreFacts {
  submission_files: Row[];
  rejects_by_code: Array<{ reason_code: string; lines: bigint }>;
  records_by_system: Array<{ system_id: string; records: bigint }>;
  counts: { assertions: bigint; proof_checks: bigint; chain_checks: bigint };
  /** Rows by `status`, when the table has that column (verify stage). */
  proof_status: Array<{ status: string; rows: bigint }> | null;
  chain_status: Array<{ status: string; rows: bigint }> | null;
  /**
   * Per system, from proof_checks (when it has independent_witnesses): proofs checked, proofs
   * with at least one independent witness (TSA token, transparency log) that verified for them,
   * and the sum of those witnesses (SPEC §6.1).
   */
  witnesses_by_system: Array<{ system_id: string; proofs: bigint; witnessed: bigint; witnesses: bigint }> | null;
  /** Whose evidence is whose (SPEC §6.2): what results.json's `evidence` holds. */
  evidence: EvidenceOwnershipFacts;
  /** What the protocol expected and what came (SPEC §12.5, §12.6): what results.json's `coverage` holds. */
  coverage: CoverageFacts;
  /** The answer key's amounts marked derived (SPEC §13.1): exempt from freeze's corpus check, listed in the report. */
  derived_amounts: Row[];
}

export interface CoverageFacts {
  /** Rows of coverage, one per system. */
  systems: Row[];
  /** Rows of unsubmitted_jobs (JOB_NOT_SUBMITTED). */
  jobs_not_submitted: Row[];
  /** The records whose refused flag the frozen refusal pattern contradicts (REFUSAL_FLAG_DISAGREES). */
  refusal_flags_disagreeing: Row[];
  /** Per system, each configuration its records carry, with `varies` (CONFIG_VARIES). */
  configurations: Row[];
  /** The records whose timeline lacks an expected tool (EXPECTED_TOOL_MISSING), with their file and line. */
  expected_tools_missing: Row[];
}

export interface EvidenceOwnershipFacts {
  /** The systems study.json registers (rows of registered_systems); empty when it registers none. */
  registered_systems: Row[];
  /** Every value used by more than one record (rows of evidence_reuse). */
  reuse: Row[];
  /**
   * Per system, from evidence_ownership: proofs, VERIFIED ones, proofs EVIDENCE_NOT_BOUND,
   * proofs EVIDENCE_REUSED, timelines EVIDENCE_REUSED.
   */
  by_system: Row[];
  /**
   * Each request (item, request hash, seller) a pinned seller served different sets of passages,
   * in VERIFIED proofs bound to the record's system: `{reason_code: "SELLER_INCONSISTENT", item_id,
   * request_hash, seller, served: [{system_id, attempt, evidence_index, passages: [{ref, text}]}]}`.
   */
  seller_inconsistencies: Row[];
}
