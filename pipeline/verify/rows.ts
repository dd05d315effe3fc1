// Verification results as rows of proof_checks, chain_checks and chain_entries (docs/tables.md),
// typed by the tables' declarations (pipeline/store/table-declarations.ts).
import type { CommitmentBinding, TimelineVerification } from '../evidence/aer1/index.ts';
import { PROOF_CATALOGUE, type ProofVerification } from '../evidence/arkforge/index.ts';
import { reconcileTimeline, TIMELINE_CATALOGUE, TOOLS_CATALOGUE } from '../evidence/aer1/index.ts';
import { checkCells } from '../evidence/check-catalogue.ts';
import { TLOG_CATALOGUE, type TlogCheck } from '../evidence/tlog/index.ts';
import type { CheckOutcome } from '../evidence/check-outcome.ts';
import { declaredColumns, type TableRow } from '../store/table-declarations.ts';
import { expectedToolsFor, type ExpectedTools, type RegisteredSystem } from '../study/study.ts';

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
  'record_id',
  'evidence_index',
  'system_id',
  'item_id',
  'attempt',
  'proof_id',
  'proof_timestamp',
  'declared_chain_hash',
  'recomputed_chain_hash',
  'request_hash',
  'response_hash',
  'witnessed_hash',
  'tsa_gen_time',
  'identity_json',
  'batch_id',
  'batch_root',
  'batch_leaf_index',
  'batch_tree_size',
  'tlog_log_index',
  'tlog_integrated_time',
  'problems',
  'buyer_fingerprint',
  'seller',
  // Texts a submission chooses freely (an unknown spec_version, an embedded key, a TSA or log it
  // made up): each could differ in every proof.
  'spec_version',
  'embedded_pubkey',
  'tsa_signer',
  'tlog_log_id',
] as const;

/** The columns of proof_checks (declared in pipeline/store/table-declarations.ts, the check_* ones from the catalogues). */
export const PROOF_CHECK_COLUMNS = declaredColumns('proof_checks');
export type ProofCheckRow = TableRow<'proof_checks'>;

/** One row of proof_checks, by column name. */
export function proofCheckRow(k: RecordKey, evidenceIndex: number, v: ProofVerification): ProofCheckRow {
  const tlog = (check: TlogCheck): CheckOutcome => v.tlog?.checks[check] ?? 'skipped';
  return {
    record_id: k.record_id,
    evidence_index: evidenceIndex,
    system_id: k.system_id,
    item_id: k.item_id,
    attempt: k.attempt,
    proof_id: v.proof_id,
    spec_version: v.spec_version,
    algorithm: v.algorithm,
    status: v.status,
    reason_codes: v.reason_codes,
    informational_codes: v.informational_codes,
    ...checkCells(PROOF_CATALOGUE, v.checks),
    proof_timestamp: v.timestamp,
    declared_chain_hash: v.declared_chain_hash,
    recomputed_chain_hash: v.recomputed_chain_hash,
    request_hash: v.request_hash,
    response_hash: v.response_hash,
    key_id: v.key_id,
    embedded_pubkey: v.embedded_pubkey,
    embedded_pubkey_pinned: v.embedded_pubkey_pinned,
    tsa_gen_time: v.tsa?.gen_time ?? null,
    tsa_signer: v.tsa?.signer ?? null,
    tsa_codes: v.tsa?.reason_codes ?? [],
    tsa_root_sha256: v.tsa?.root_sha256 ?? null,
    committed_fields: v.committed_fields,
    opened_fields: v.opened_fields,
    identity_json: v.identity_json,
    identity_anchored: v.identity_anchored,
    buyer_fingerprint: v.buyer_fingerprint,
    buyer_fingerprint_source: v.buyer_fingerprint_source,
    seller: v.seller,
    seller_source: v.seller_source,
    batch_status: v.batch?.status ?? null,
    batch_id: v.batch?.batch_id ?? null,
    batch_root: v.batch?.root ?? null,
    batch_leaf_index: v.batch?.leaf_index ?? null,
    batch_tree_size: v.batch?.tree_size ?? null,
    witnessed_hash: v.witnessed_hash,
    tlog_log_id: v.tlog?.log_id ?? null,
    tlog_log_index: v.tlog?.log_index ?? null,
    tlog_integrated_time: v.tlog?.integrated_time ?? null,
    ...(Object.fromEntries(TLOG_CATALOGUE.checks.map((check) => [`tlog_${check}`, tlog(check)])) as {
      [C in TlogCheck as `tlog_${C}`]: CheckOutcome;
    }),
    independent_witnesses: independentWitnesses(v),
    problems: v.problems,
  };
}

export type ChainCheckRow = TableRow<'chain_checks'>;

/** One row of chain_checks, by column name. */
export function chainCheckRow(k: RecordKey, v: TimelineVerification): ChainCheckRow {
  return {
    record_id: k.record_id,
    system_id: k.system_id,
    item_id: k.item_id,
    attempt: k.attempt,
    job_id: v.job_id,
    form: v.form,
    revision: v.revision,
    construction: v.construction,
    status: v.status,
    reason_codes: v.reason_codes,
    informational_codes: v.informational_codes,
    ...checkCells(TIMELINE_CATALOGUE, v.checks),
    entry_count: v.entry_count,
    final_entry_digest: v.final_entry_digest,
    commitment_witness: v.commitment?.witness ?? null,
    commitment_published_at: v.commitment?.published_at ?? null,
    commitment_route: v.commitment_provenance?.route ?? null,
    commitment_witnessed_by: v.commitment_provenance?.witnessed_by ?? null,
    commitment_witnessed_at: v.commitment_provenance?.witnessed_at ?? null,
    provenance_classes: v.provenance_classes,
    problems: v.problems,
  };
}

export type ChainEntryRow = TableRow<'chain_entries'>;

/** The rows of chain_entries: the entry's id member and its output commitment, computed here. */
export function chainEntryRows(recordId: number, v: TimelineVerification): ChainEntryRow[] {
  return v.entries.map((e) => ({
    record_id: recordId,
    seq: e.seq,
    entry_digest: e.digest,
    entry_id: e.id,
    output_commitment: e.output_commitment,
    tool: e.tool,
    provenance_class: e.provenance_class,
  }));
}

/** timeline_tools: the timeline's logged tools reconciled with the protocol's expected tools under the system's names (SPEC §13.3). */
export function timelineToolsRow(k: RecordKey, v: TimelineVerification, expected: ExpectedTools): TableRow<'timeline_tools'> {
  const tools = expectedToolsFor(expected, k.system_id);
  const r = reconcileTimeline(v, tools);
  return {
    record_id: k.record_id,
    system_id: k.system_id,
    item_id: k.item_id,
    attempt: k.attempt,
    job_id: v.job_id,
    expected_tools: expected.tools,
    logged_as: tools.map((t) => t.logged_as),
    logged_tools: r.logged,
    ...checkCells(TOOLS_CATALOGUE, r.checks),
    missing_tools: r.missing,
    unexpected_tools: r.unexpected,
    reason_codes: r.reason_codes,
  };
}

/** registered_systems: study.json's systems. */
export function registeredSystemRow(s: RegisteredSystem): TableRow<'registered_systems'> {
  return {
    system_id: s.system_id,
    buyer_fingerprints: s.buyer_fingerprints ?? [],
    agent_identities: s.agent_identities ?? [],
    affiliated: s.affiliated === true,
    replicate_of: s.replicate_of ?? null,
  };
}

/** owned_commitments: whom each commitment line binds. */
export function ownedCommitmentRow(b: CommitmentBinding): TableRow<'owned_commitments'> {
  return { system_id: b.system_id, job_id: b.job_id, bound_by: b.bound_by, file: b.file, line_no: b.line };
}

/** seller_policy: the trust policy's sellers, one row. */
