// Verification results as rows of proof_checks, chain_checks and chain_entries (docs/tables.md).
import type { ChainVerification } from '../evidence/aer1-chain.ts';
import type { ProofVerification } from '../evidence/arkforge-proof.ts';
import type { CellValue } from '../store/db.ts';

export interface RecordKey {
  record_id: number;
  system_id: string;
  item_id: string;
  attempt: number;
}

/** Witnesses independent of the issuer (SPEC §6.1): a TSA token that verified. */
export function independentWitnesses(v: ProofVerification): number {
  return v.checks.tsa === 'pass' ? 1 : 0;
}

export function proofCheckRow(k: RecordKey, evidenceIndex: number, v: ProofVerification): CellValue[] {
  return [
    k.record_id, evidenceIndex, k.system_id, k.item_id, k.attempt,
    v.proof_id, v.spec_version, v.algorithm, v.status, v.codes,
    v.checks.structure, v.checks.request_hash, v.checks.response_hash, v.checks.chain,
    v.checks.signature, v.checks.key, v.checks.tsa, v.checks.time,
    v.timestamp, v.declared_chain_hash, v.recomputed_chain_hash, v.request_hash, v.response_hash,
    v.key_id, v.embedded_pubkey, v.embedded_pubkey_pinned,
    v.tsa?.gen_time ?? null, v.tsa?.signer ?? null, v.tsa?.codes ?? [],
    independentWitnesses(v), v.problems,
  ];
}

export function chainCheckRow(k: RecordKey, v: ChainVerification): CellValue[] {
  const c = v.checks;
  return [
    k.record_id, k.system_id, k.item_id, k.attempt, v.job_id, v.revision, v.status, v.codes,
    c.structure, c.revision, c.genesis, c.seq, c.job, c.close, c.receipt_hash, c.links,
    c.commitment_found, c.commitment_count, c.commitment_final_digest, c.commitment_timely,
    v.entry_count, v.final_entry_digest, v.commitment?.witness ?? null, v.commitment?.published_at ?? null,
    v.provenance_classes, v.problems,
  ];
}

export function chainEntryRows(recordId: number, v: ChainVerification): CellValue[][] {
  return v.entries.map((e) => [recordId, e.seq, e.digest, e.id, e.output_hash, e.tool, e.provenance_class]);
}
