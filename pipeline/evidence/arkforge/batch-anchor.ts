// Batch anchors (SPEC §6.1, proof-spec v3.1.0 §2.2): the external anchors may witness the RFC 6962
// root of a batch of chain hashes instead of one chain hash. The proof then carries its inclusion
// proof, checked in order (RFC 9162 §2.1.3.2, pipeline/formats/merkle.ts):
//   1. leaf_index in [0, tree_size)                 PROOF_BATCH_INDEX_OUT_OF_RANGE
//   2. audit_path of exactly the length RFC 6962     PROOF_BATCH_PATH_LENGTH
//      fixes for that index and size (a longer or shorter path — how an overstated size shows)
//   3. the walk from SHA-256(0x00 ‖ 32 chain-hash    PROOF_BATCH_PATH_INVALID
//      bytes) reaches `root`
// A batch not yet closed (`pending`) has no external anchor: waiting, never tampered —
// PROOF_BATCH_PENDING, UNTRUSTED when the policy requires a token, informational otherwise.
// Pure: inputs in, outcome out.
import { hashFromHex, inclusionPathLength, leafHashOfHex, verifyInclusion } from '../../formats/merkle.ts';
import type { CheckOutcome, Finding } from './checks.ts';
import { stripSha256, type BatchAnchor } from './versions/proof.ts';

/** What proof_checks records of the batch anchor, as the proof states it. */
export interface BatchReport {
  status: string;
  batch_id: string | null;
  /** Hex, without "sha256:". */
  root: string | null;
  leaf_index: number | null;
  tree_size: number | null;
}

export interface BatchOutcome {
  check: CheckOutcome;
  findings: Finding[];
  /**
   * The hash the external witnesses (RFC 3161 token, transparency log) attest for this proof: the
   * declared batch root when the proof is anchored in a batch (also when the path does not reach
   * it — the token is still checked against it, and the failed path keeps it from counting), the
   * chain hash without a batch, null while the batch is pending.
   */
  witnessed: { hash: string; what: 'chain hash' | 'batch root' } | null;
  report: BatchReport | null;
}

/** Checks a proof's batch_anchor (absent or null: no batch, the chain hash is witnessed itself). */
export function checkBatchAnchor(anchor: BatchAnchor | null | undefined, declaredChain: string, requireTsaToken: boolean): BatchOutcome {
  if (anchor === undefined || anchor === null)
    return { check: 'skipped', findings: [], witnessed: { hash: declaredChain, what: 'chain hash' }, report: null };
  const report: BatchReport = {
    status: anchor.status,
    batch_id: anchor.batch_id ?? null,
    root: anchor.root === undefined ? null : stripSha256(anchor.root),
    leaf_index: anchor.leaf_index ?? null,
    tree_size: anchor.tree_size ?? null,
  };
  const batch = anchor.batch_id ? `batch ${anchor.batch_id}` : 'the batch';
  if (anchor.status === 'pending') {
    const problem = `${batch} has not closed yet: the proof has no external anchor at this point`;
    return requireTsaToken
      ? {
          check: 'fail',
          findings: [{ check: 'batch', code: 'PROOF_BATCH_PENDING', problem: `${problem}, and the policy requires a token` }],
          witnessed: null,
          report,
        }
      : {
          check: 'skipped',
          findings: [{ check: 'batch', code: 'PROOF_BATCH_PENDING', problem, informational: true }],
          witnessed: null,
          report,
        };
  }
  // anchored: the schema has required root, leaf_index, tree_size and audit_path.
  const root = report.root!;
  const index = anchor.leaf_index!;
  const size = anchor.tree_size!;
  const path = anchor.audit_path!;
  const witnessed = { hash: root, what: 'batch root' as const };
  const result = verifyInclusion(leafHashOfHex(declaredChain), index, size, path.map(hashFromHex), hashFromHex(root));
  if (result.ok) return { check: 'pass', findings: [], witnessed, report };
  const finding: Finding =
    result.failure === 'HASH_SIZE'
      ? {
          check: 'batch',
          code: 'PROOF_BATCH_PATH_INVALID',
          problem: 'batch_anchor.root and every audit_path node must be 64 hex digits (a 32-byte SHA-256 hash)',
        }
      : result.failure === 'INDEX_OUT_OF_RANGE'
        ? {
            check: 'batch',
            code: 'PROOF_BATCH_INDEX_OUT_OF_RANGE',
            problem: `batch_anchor.leaf_index ${index} is outside [0, ${size}) (tree_size ${size})`,
          }
        : result.failure === 'PATH_LENGTH'
          ? {
              check: 'batch',
              code: 'PROOF_BATCH_PATH_LENGTH',
              problem: `batch_anchor.audit_path has ${path.length} node(s); RFC 6962 fixes exactly ${inclusionPathLength(index, size)} for leaf ${index} of a tree of ${size}`,
            }
          : {
              check: 'batch',
              code: 'PROOF_BATCH_PATH_INVALID',
              problem: `the audit path from the chain hash (leaf ${index} of ${size}) does not reach batch_anchor.root sha256:${root}`,
            };
  return { check: 'fail', findings: [finding], witnessed, report };
}
