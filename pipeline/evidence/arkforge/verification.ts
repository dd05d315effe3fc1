// The result of verifying one evidence item (plain data: it crosses worker threads), and how the
// orchestrator (verify-item.ts) records into it: a failed check, a module's findings, the final
// status from the codes.
import type { TlogVerification } from '../tlog/index.ts';
import type { TsaReasonCode } from '../timestamp/index.ts';
import type { CheckOutcome } from '../check-outcome.ts';
import { isRecord, member } from '../../formats/canonical-json.ts';
import type { BatchReport } from './batch-anchor.ts';
import {
  PROOF_CHECKS,
  proofStatus,
  type Finding,
  type ProofCheck,
  type ProofCode,
  type ProofParseCode,
  type ProofStatus,
} from './checks.ts';
import { SHA256_PREFIX } from './versions/proof.ts';
import type { ChainAlgorithm } from './versions/index.ts';

export interface ProofTsaOutcome {
  /** TSTInfo genTime as the token states it (ISO-8601 UTC), also when the token does not verify. */
  gen_time: string | null;
  /** The TSA_* codes of pipeline/evidence/timestamp/rfc3161.ts; empty when the token verified. */
  reason_codes: TsaReasonCode[];
  /** Subject of the token's signer certificate (RFC 4514). */
  signer: string | null;
  /** SHA-256 of the DER of the pinned root the token chained to; null when it chained to none. */
  root_sha256: string | null;
}

/** The log entry's verification as a proof keeps it: its codes, its checks, and where and when the entry says it was logged. */
export type ProofTlogOutcome = Pick<TlogVerification, 'reason_codes' | 'checks' | 'log_id' | 'log_index' | 'integrated_time'>;

/** Plain data only (it crosses worker threads by structured clone). */
export interface ProofVerification {
  status: ProofStatus;
  /** Every code reported, informational ones included, sorted and unique; empty when nothing was found. */
  reason_codes: Array<ProofCode | ProofParseCode>;
  /** The codes of `codes` that do not change the status (see the file comment). */
  informational_codes: ProofCode[];
  checks: Record<ProofCheck, CheckOutcome>;
  proof_id: string | null;
  /** As the proof states it; null when absent or null. */
  spec_version: string | null;
  algorithm: ChainAlgorithm | null;
  timestamp: string | null;
  /** hashes.chain without "sha256:" (only when well-formed). */
  declared_chain_hash: string | null;
  recomputed_chain_hash: string | null;
  /** hashes.request / hashes.response without "sha256:" (declared; only when well-formed). */
  request_hash: string | null;
  response_hash: string | null;
  /** 3.x: the committed field names (code-point order); null otherwise. */
  committed_fields: string[] | null;
  /** Fields whose opening (proof or disclosure) opens its commitment, sorted. */
  opened_fields: string[];
  /** The identity block reported with the proof (canonical JSON): opened (3.1) or as served; null when none is claimed. */
  identity_json: string | null;
  /** Whether an anchor backs identity_json: true only for a 3.1 block committed, opened and in its domain. */
  identity_anchored: boolean | null;
  /** The buyer fingerprint the chain hash covers (preimage below 3.0, an opening for 3.x); null when none does. */
  buyer_fingerprint: string | null;
  buyer_fingerprint_source: 'preimage' | 'opening' | null;
  /** The seller the chain hash covers (preimage below 3.0, an opening for 3.x); null when none does: never the served field alone. */
  seller: string | null;
  seller_source: 'preimage' | 'opening' | null;
  /** The batch anchor as the proof states it; null without one. */
  batch: BatchReport | null;
  /** The hash the RFC 3161 token and the log entry must witness: the chain hash, or the batch root; null while the batch is pending. */
  witnessed_hash: string | null;
  /** The pinned key the signature verified with (see the file comment). */
  key_id: string | null;
  /** arkforge_pubkey as the proof carries it: reported, never trusted on its own. */
  embedded_pubkey: string | null;
  /** Whether the embedded key is one of the pinned keys (any window); null without one. */
  embedded_pubkey_pinned: boolean | null;
  /** The RFC 3161 token's outcome; null when the proof carries none (or its batch is pending). */
  tsa: ProofTsaOutcome | null;
  /** The transparency-log entry's outcome; null when the item carries none (or its batch is pending). */
  tlog: ProofTlogOutcome | null;
  /**
   * Witnesses independent of the issuer that verified for THIS proof, when no batch path failed:
   * a TSA token over the witnessed hash (1) and a transparency-log entry of it (1), so 0 to 2.
   * The issuer's signature and hashes, and the proof's own transparency_log field, never count.
   */
  independent_witnesses: number;
  /** What was wrong and where, one line each, in check order (for the report and `explain`). */
  problems: string[];
}

export interface StudyWindow {
  opens_at: string;
  closes_at: string;
}

export function fail(v: ProofVerification, check: ProofCheck, code: ProofCode, problem: string): void {
  v.checks[check] = 'fail';
  v.reason_codes.push(code);
  v.problems.push(problem);
}

/**
 * A module's or the batch check's findings: failures fail their check, undecided ones leave it
 * 'skipped' with a code that counts, informational ones only note.
 */
export function record(v: ProofVerification, findings: readonly Finding[]): void {
  for (const f of findings) {
    if (f.informational) {
      v.reason_codes.push(f.code);
      v.informational_codes.push(f.code);
      v.problems.push(`${f.problem} (informational)`);
    } else if (f.undecided) {
      v.reason_codes.push(f.code);
      v.problems.push(f.problem);
    } else {
      fail(v, f.check, f.code, f.problem);
    }
  }
}

// --- result ----------------------------------------------------------------------------------

/**
 * A proof whose JSON text does not even parse (the parser's code; a syntax error is
 * PROOF_MALFORMED): MALFORMED, structure failed, every other check skipped.
 */
export function unparsedProofVerification(
  code: 'JSON_DUPLICATE_KEY' | 'JSON_NUMBER_INVALID' | 'JSON_SYNTAX',
  problem: string,
): ProofVerification {
  const v = newVerification(undefined);
  v.checks.structure = 'fail';
  v.reason_codes.push(code === 'JSON_SYNTAX' ? 'PROOF_MALFORMED' : code);
  v.problems.push(problem);
  return finish(v);
}

/** Every check 'skipped', in PROOF_CHECKS order: copied per proof (a copy keeps the object's fast shape; Object.fromEntries per proof made one in dictionary mode). */
const ALL_SKIPPED = Object.fromEntries(PROOF_CHECKS.map((c) => [c, 'skipped'])) as Record<ProofCheck, CheckOutcome>;

export function newVerification(raw: unknown): ProofVerification {
  const o = isRecord(raw) ? raw : undefined;
  const hashes = member(o, 'hashes');
  const declared = (key: string): string | null => {
    const value = member(hashes, key);
    return typeof value === 'string' && HASH.test(value) ? value.slice(SHA256_PREFIX.length) : null;
  };
  const text = (key: string): string | null => {
    const value = member(o, key);
    return typeof value === 'string' ? value : null;
  };
  return {
    status: 'VERIFIED',
    reason_codes: [],
    informational_codes: [],
    checks: { ...ALL_SKIPPED },
    proof_id: text('proof_id'),
    spec_version: text('spec_version'),
    algorithm: null,
    timestamp: text('timestamp'),
    declared_chain_hash: declared('chain'),
    recomputed_chain_hash: null,
    request_hash: declared('request'),
    response_hash: declared('response'),
    committed_fields: null,
    opened_fields: [],
    identity_json: null,
    identity_anchored: null,
    buyer_fingerprint: null,
    buyer_fingerprint_source: null,
    seller: null,
    seller_source: null,
    batch: null,
    witnessed_hash: null,
    key_id: null,
    embedded_pubkey: text('arkforge_pubkey'),
    embedded_pubkey_pinned: null,
    tsa: null,
    tlog: null,
    independent_witnesses: 0,
    problems: [],
  };
}

export function finish(v: ProofVerification): ProofVerification {
  v.reason_codes = [...new Set(v.reason_codes)].sort();
  v.informational_codes = [...new Set(v.informational_codes)].sort();
  const informational = new Set<string>(v.informational_codes);
  v.status = proofStatus(v.reason_codes.filter((c) => !informational.has(c)));
  // A token or a log entry over a batch root witnesses this proof only when the path from its chain hash reaches that root.
  v.independent_witnesses = v.checks.batch === 'fail' ? 0 : (v.checks.tsa === 'pass' ? 1 : 0) + (v.checks.tlog === 'pass' ? 1 : 0);
  return v;
}

const HASH = /^sha256:[0-9a-f]{64}$/;
