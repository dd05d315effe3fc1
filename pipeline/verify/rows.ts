// Verification results as rows of proof_checks, chain_checks and chain_entries (docs/tables.md).
import type { TimelineVerification } from '../evidence/aer1/index.ts';
import type { ProofVerification } from '../evidence/arkforge/index.ts';
import { TLOG_CHECKS } from '../evidence/tlog/index.ts';
import type { CellValue } from '../store/db.ts';

export interface RecordKey {
  record_id: number;
  system_id: string;
  item_id: string;
  attempt: number;
}

/**
 * Witnesses independent of the issuer (SPEC §6.1) that verified for this proof — a TSA token and a
 * transparency-log entry over its chain hash, or over a batch root its path reaches — as the
 * verifier counts them.
 */
export function independentWitnesses(v: ProofVerification): number {
  return v.independent_witnesses;
}

/**
 * The proof_checks columns that differ from proof to proof (identifiers, hashes, times, texts);
 * the verify stage stores the others once per distinct combination (store/factored-appender.ts).
 * Only a matter of speed: a column left out here is still stored right, just once per profile.
 */
export const PROOF_CHECK_VARYING_COLUMNS = [
  'record_id', 'evidence_index', 'system_id', 'item_id', 'attempt', 'proof_id', 'proof_timestamp',
  'declared_chain_hash', 'recomputed_chain_hash', 'request_hash', 'response_hash', 'witnessed_hash',
  'tsa_gen_time', 'identity_json', 'batch_id', 'batch_root', 'batch_leaf_index', 'batch_tree_size',
  'tlog_log_index', 'tlog_integrated_time', 'problems', 'buyer_fingerprint',
  // Texts a submission chooses freely (an unknown spec_version, an embedded key, a TSA or log it
  // made up): each could differ in every proof.
  'spec_version', 'embedded_pubkey', 'tsa_signer', 'tlog_log_id',
] as const;

/** One row of proof_checks, in the column order of pipeline/store/verify-tables.sql. */
export function proofCheckRow(k: RecordKey, evidenceIndex: number, v: ProofVerification): CellValue[] {
  const c = v.checks;
  return [
    k.record_id, evidenceIndex, k.system_id, k.item_id, k.attempt,
    v.proof_id, v.spec_version, v.algorithm, v.status, v.codes, v.informational_codes,
    c.structure, c.request_hash, c.response_hash, c.chain,
    c.signature, c.key, c.tsa, c.time,
    c.commitments, c.disclosures, c.body_binding, c.identity, c.batch, c.tlog,
    v.timestamp, v.declared_chain_hash, v.recomputed_chain_hash, v.request_hash, v.response_hash,
    v.key_id, v.embedded_pubkey, v.embedded_pubkey_pinned,
    v.tsa?.gen_time ?? null, v.tsa?.signer ?? null, v.tsa?.codes ?? [],
    v.committed_fields, v.opened_fields, v.identity_json, v.identity_anchored, v.buyer_fingerprint, v.buyer_fingerprint_source,
    v.batch?.status ?? null, v.batch?.batch_id ?? null, v.batch?.root ?? null, v.batch?.leaf_index ?? null, v.batch?.tree_size ?? null,
    v.witnessed_hash,
    v.tlog?.log_id ?? null, v.tlog?.log_index ?? null, v.tlog?.integrated_time ?? null,
    ...TLOG_CHECKS.map((check) => v.tlog?.checks[check] ?? 'skipped'),
    independentWitnesses(v), v.problems,
  ];
}

/** One row of chain_checks, in the column order of pipeline/store/verify-tables.sql. */
export function chainCheckRow(k: RecordKey, v: TimelineVerification): CellValue[] {
  const c = v.checks;
  return [
    k.record_id, k.system_id, k.item_id, k.attempt, v.job_id, v.form, v.revision, v.construction, v.status, v.codes,
    c.structure, c.revision, c.genesis, c.seq, c.job, c.close, c.links,
    c.commitment_found, c.commitment_wellformed, c.commitment_count, c.commitment_final_digest, c.commitment_timely,
    c.commitment_consistent,
    v.entry_count, v.final_entry_digest, v.commitment?.witness ?? null, v.commitment?.published_at ?? null,
    v.provenance_classes, v.problems,
  ];
}

/** The rows of chain_entries: the entry's id member and its output commitment, computed here. */
export function chainEntryRows(recordId: number, v: TimelineVerification): CellValue[][] {
  return v.entries.map((e) => [recordId, e.seq, e.digest, e.id, e.output_commitment, e.tool, e.provenance_class]);
}
