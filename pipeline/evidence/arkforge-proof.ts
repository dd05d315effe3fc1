// ArkForge proofs and evidence items (SPEC §6.1; proof-spec v2.1.0 and older, v3.1.0 for spec 3.0 /
// 3.1 and batch anchors): verification of one item against the pinned trust material and the
// study window. Pure: no file system, clock or network — "now" never matters, the window and the
// trust come in as arguments.
//
// The orchestrator below reads as the list of checks, one per witness, in SPEC order:
//   structure → request_hash / response_hash → the version's checks (chain, commitments,
//   disclosures, body_binding, identity; proof-versions/) → batch → tsa → tlog → signature + key
//   → time.
// (The token is verified before the signature because its genTime, when the token verifies,
// also bounds which pinned keys count — SPEC §5.4.) Every check runs when what it needs is
// well-formed, and every failure is reported; a check that cannot run, or has nothing to check,
// is 'skipped'. When the structure fails nothing else runs: fields of unknown shape are not read.
// Bad evidence never throws; only a caller bug (a window that is not ISO-8601 UTC) does.
//
// Inputs are parsed JsonValue (numbers as JsonNumber lexemes, so body hashes and openings are
// Python-exact) or plain JS (numbers are then JS numbers: 1.0 and 1 are the same, as JSON.parse
// reads them).
//
// Decisions (see also schemas/proof.schema.json and docs/proofs.md):
// - request_hash / response_hash in the result are the proof's DECLARED hashes (hex): the values
//   the chain binds (3.x: that an opening binds), which the body checks compare against.
// - A body given as null counts as not given.
// - Only a token that verifies contributes its genTime (to the key windows and the time check):
//   an untrusted or broken token is nobody's word about time; its genTime is still reported.
// - key_id names the pinned key the signature verified with, also when that key is outside its
//   window (then the key check fails); null when no pinned key verified.
// - Informational codes (PROOF_IDENTITY_UNANCHORED; PROOF_BATCH_PENDING when the policy does not
//   require a token) are in `codes` AND in `informational_codes`; the status is computed from the
//   other codes only, and their check stays 'skipped'.
// - With a batch anchor the token witnesses the declared batch root; a pending batch has no
//   witness, so a token it may carry is not read (the tsa check is skipped).
// - The transparency-log entry carried with the item (never the proof's own `transparency_log`
//   field, which is the issuer's word) is verified over the same witnessed hash (tlog/rekor-entry.ts); no
//   entry, or a pending batch, leaves the tlog check skipped without a code. Each of its checks
//   is reported in `tlog.checks`; every PROOF_TLOG_* code fails the one `tlog` check.
// - independent_witnesses counts the token and the log entry that verified, and counts neither
//   when the batch path failed: both then witness a root this proof's chain hash does not reach.
import { createPublicKey, verify as ed25519Verify, type KeyObject } from 'node:crypto';
import { checkBatchAnchor, type BatchReport } from './batch-anchor.ts';
import { PROOF_CHECKS, proofStatus, type CheckOutcome, type Finding, type ProofCheck, type ProofCode, type ProofParseCode, type ProofStatus } from './proof-checks.ts';
import { isRecord, member } from '../formats/canonical-json.ts';
import { readItem, type EvidenceItem, type ReadProof } from './proof-item.ts';
import { proofVersionModule, KNOWN_SPEC_VERSIONS, type ArkForgeProof, type ChainAlgorithm } from './proof-versions/index.ts';
import { SHA256_PREFIX, stripSha256 } from './proof-versions/proof.ts';
import { verifyTimestampToken, type TsaReasonCode } from './timestamp/index.ts';
import { verifyTlogEntry, type TlogCheck, type TlogCheckOutcome, type TlogCode } from './tlog/index.ts';
import { inWindow, windowText } from '../formats/utc-instant.ts';
import { decodeEd25519PublicKey, utcMillis, type PinnedKey, type ProofPolicy, type TrustMaterial } from './trust-material.ts';

export { PROOF_CHECKS, PROOF_CODES, proofStatus } from './proof-checks.ts';
export type { CheckOutcome, ProofCheck, ProofCode, ProofParseCode, ProofStatus } from './proof-checks.ts';
export type { EvidenceItem } from './proof-item.ts';
export type { BatchReport } from './batch-anchor.ts';

export interface ProofTsaOutcome {
  /** TSTInfo genTime as the token states it (ISO-8601 UTC), also when the token does not verify. */
  gen_time: string | null;
  /** The TSA_* codes of pipeline/evidence/timestamp/rfc3161.ts; empty when the token verified. */
  codes: TsaReasonCode[];
  /** Subject of the token's signer certificate (RFC 4514). */
  signer: string | null;
}

export interface ProofTlogOutcome {
  /** The PROOF_TLOG_* codes of tlog/rekor-entry.ts; empty when the entry verified. */
  codes: TlogCode[];
  /** Each of the entry's checks (tlog/rekor-entry.ts TLOG_CHECKS). */
  checks: Record<TlogCheck, TlogCheckOutcome>;
  /** As the entry states them; null when the entry is malformed. integrated_time: ISO-8601 UTC. */
  log_id: string | null;
  log_index: number | null;
  integrated_time: string | null;
}

/** Plain data only (it crosses worker threads by structured clone). */
export interface ProofVerification {
  status: ProofStatus;
  /** Every code reported, informational ones included, sorted and unique; empty when nothing was found. */
  codes: Array<ProofCode | ProofParseCode>;
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

/** A bare proof: an evidence item without bodies. */
export function verifyProof(proof: unknown, trust: TrustMaterial, window: StudyWindow): Promise<ProofVerification> {
  return verifyEvidenceItem({ proof }, trust, window);
}

/** SPEC §6.1 steps 1–6 for one evidence item. */
export async function verifyEvidenceItem(item: EvidenceItem, trust: TrustMaterial, window: StudyWindow): Promise<ProofVerification> {
  const study = studyWindow(window);
  const v = newVerification(item.proof);

  // 1. Structure: the published schema, then what a schema cannot say. Nothing else runs without it.
  const read = readItem(item);
  if ('problems' in read) {
    v.checks.structure = 'fail';
    v.codes.push('PROOF_MALFORMED');
    v.problems.push(...read.problems);
    return finish(v);
  }
  v.checks.structure = 'pass';
  const declaredChain = stripSha256(read.proof.hashes.chain);

  checkBodies(read, v); // 2.
  checkVersion(read, declaredChain, v); // 3. (the checks the spec_version decides)
  const batch = checkBatchAnchor(read.proof.batch_anchor, declaredChain, trust.policy.requireTsaToken); // batch anchor
  if (batch.check === 'pass') v.checks.batch = 'pass';
  record(v, batch.findings);
  v.batch = batch.report;
  v.witnessed_hash = batch.witnessed?.hash ?? null;
  const genTimeMs = await checkToken(read.proof, batch.witnessed, trust, v); // 5. (its genTime bounds the key windows)
  checkTlog(item.transparency_log_entry, batch.witnessed, trust, v); // the log entry over the same witnessed hash
  checkSignature(read.proof, declaredChain, read.timestampMs, genTimeMs, trust.keys, v); // 4.
  checkTime(read.proof, read.timestampMs, genTimeMs, trust.policy, study, v); // 5. (time)
  // 6. transparency_log and other post-chain metadata never enter the chain hash.
  return finish(v);
}

function fail(v: ProofVerification, check: ProofCheck, code: ProofCode, problem: string): void {
  v.checks[check] = 'fail';
  v.codes.push(code);
  v.problems.push(problem);
}

/**
 * A module's or the batch check's findings: failures fail their check, undecided ones leave it
 * 'skipped' with a code that counts, informational ones only note.
 */
function record(v: ProofVerification, findings: readonly Finding[]): void {
  for (const f of findings) {
    if (f.informational) {
      v.codes.push(f.code);
      v.informational_codes.push(f.code);
      v.problems.push(`${f.problem} (informational)`);
    } else if (f.undecided) {
      v.codes.push(f.code);
      v.problems.push(f.problem);
    } else {
      fail(v, f.check, f.code, f.problem);
    }
  }
}

// --- step 2: bodies ----------------------------------------------------------------------------

/** SHA-256 of each given body's canonical JSON (SPEC §3) against the declared hash. */
function checkBodies(read: ReadProof, v: ProofVerification): void {
  for (const [check, body, declared, code] of [
    ['request_hash', read.requestHash, read.proof.hashes.request, 'PROOF_REQUEST_HASH_MISMATCH'],
    ['response_hash', read.responseHash, read.proof.hashes.response, 'PROOF_RESPONSE_HASH_MISMATCH'],
  ] as const) {
    if (body === undefined) continue;
    if (SHA256_PREFIX + body === declared) v.checks[check] = 'pass';
    else fail(v, check, code, `${check.replace('_hash', '')} body hashes to sha256:${body}, the proof declares ${declared}`);
  }
}

// --- step 3: what the spec_version decides -----------------------------------------------------

/** The module the spec_version selects (proof-versions/) recomputes the chain hash and decides its checks. */
function checkVersion(read: ReadProof, declaredChain: string, v: ProofVerification): void {
  const version = proofVersionModule(read.proof.spec_version);
  if (!version) {
    const known = KNOWN_SPEC_VERSIONS.map((s) => (s === null ? 'absent' : JSON.stringify(s))).join(', ');
    fail(v, 'chain', 'PROOF_SPEC_VERSION_UNKNOWN', `spec_version ${JSON.stringify(read.proof.spec_version)} is not one of ${known}`);
    return;
  }
  v.algorithm = version.algorithm;
  const outcome = version.verify({
    proof: read.proof,
    raw: read.raw,
    declaredChain,
    openings: read.openings,
    bodyHashes: { ...(read.requestHash !== undefined ? { request: read.requestHash } : {}), ...(read.responseHash !== undefined ? { response: read.responseHash } : {}) },
    ...(read.chainInputs !== undefined ? { chainInputs: read.chainInputs } : {}),
  });
  v.recomputed_chain_hash = outcome.recomputed_chain_hash;
  v.committed_fields = outcome.committed_fields;
  v.opened_fields = outcome.opened_fields;
  v.identity_json = outcome.identity?.json ?? null;
  v.identity_anchored = outcome.identity?.anchored ?? null;
  v.buyer_fingerprint = outcome.buyer_fingerprint?.value ?? null;
  v.buyer_fingerprint_source = outcome.buyer_fingerprint?.source ?? null;
  for (const [check, result] of Object.entries(outcome.checks) as Array<[ProofCheck, CheckOutcome]>) v.checks[check] = result;
  record(v, outcome.findings);
}

// --- step 5: RFC 3161 token --------------------------------------------------------------------

/**
 * The token in timestamp_authority.tsr_base64 over the 32 bytes of the witnessed hash — the
 * declared chain hash, or the declared batch root — chained to a pinned root (timestamp/rfc3161.ts).
 * Returns the genTime (epoch ms) of a token that verifies. Nothing is witnessed while a batch is pending.
 */
async function checkToken(
  proof: ArkForgeProof,
  witnessed: { hash: string; what: string } | null,
  trust: TrustMaterial,
  v: ProofVerification,
): Promise<number | undefined> {
  if (witnessed === null) return undefined;
  const tsr = proof.timestamp_authority?.tsr_base64;
  if (typeof tsr !== 'string' || tsr === '') {
    if (trust.policy.requireTsaToken) fail(v, 'tsa', 'PROOF_TSA_MISSING', 'the policy requires a timestamp token and timestamp_authority.tsr_base64 is absent');
    return undefined;
  }
  const outcome = await verifyTimestampToken(Buffer.from(tsr, 'base64'), Buffer.from(witnessed.hash, 'hex'), trust.tsa);
  v.tsa = { gen_time: outcome.genTime ?? null, codes: outcome.codes, signer: outcome.signerSubject ?? null };
  if (outcome.ok && outcome.genTime !== undefined) {
    v.checks.tsa = 'pass';
    return utcMillis(outcome.genTime);
  }
  // What the trust material lacks (a root, the signer's certificate) is untrusted; the rest is the token's own fault.
  const untrusted = outcome.codes.filter((c) => TRUST_GAPS.has(c));
  const invalid = outcome.codes.filter((c) => !TRUST_GAPS.has(c));
  if (untrusted.length > 0) {
    fail(v, 'tsa', 'PROOF_TSA_UNTRUSTED', `timestamp token is not established by the pinned trust material (no pinned root it chains to, or no signer certificate carried or in tsa_certs; signer ${outcome.signerSubject ?? 'unknown'}): ${untrusted.join(', ')}`);
  }
  if (invalid.length > 0) fail(v, 'tsa', 'PROOF_TSA_INVALID', `timestamp token does not verify over the ${witnessed.what}: ${invalid.join(', ')}`);
  return undefined;
}

/** The token codes that say the trust material, not the token, falls short. */
const TRUST_GAPS: ReadonlySet<TsaReasonCode> = new Set(['TSA_CHAIN_UNTRUSTED', 'TSA_SIGNER_NOT_FOUND']);

// --- transparency log ------------------------------------------------------------------------

/**
 * The entry carried with the evidence item, verified offline over the witnessed hash (the declared
 * chain hash, or the declared batch root) against the pinned log keys and issuer keys (tlog/rekor-entry.ts).
 * No entry (absent or null), or nothing witnessed yet (a pending batch): skipped, no code.
 */
function checkTlog(entry: unknown, witnessed: { hash: string; what: string } | null, trust: TrustMaterial, v: ProofVerification): void {
  if (entry === undefined || entry === null || witnessed === null) return;
  const outcome = verifyTlogEntry(entry, witnessed.hash, trust.tlog);
  v.tlog = { codes: outcome.codes, checks: outcome.checks, log_id: outcome.log_id, log_index: outcome.log_index, integrated_time: outcome.integrated_time };
  if (outcome.ok) {
    v.checks.tlog = 'pass';
    return;
  }
  v.checks.tlog = 'fail';
  v.codes.push(...outcome.codes);
  v.problems.push(...outcome.problems.map((p) => `transparency log (over the ${witnessed.what}): ${p}`));
}

// --- step 5 (time) -----------------------------------------------------------------------------

/**
 * timestamp — and a verified genTime — inside [opens_at, closes_at). Without a batch,
 * |genTime − timestamp| ≤ max_skew_seconds; anchored in a batch, the token is made when the batch
 * closes: genTime − timestamp in [0, batch_max_skew_seconds] (it may trail, never precede).
 */
function checkTime(
  proof: ArkForgeProof,
  timestampMs: number,
  genTimeMs: number | undefined,
  policy: ProofPolicy,
  study: ParsedWindow,
  v: ProofVerification,
): void {
  const problems: string[] = [];
  if (!study.contains(timestampMs)) problems.push(`timestamp ${proof.timestamp} is outside the study window ${study.text}`);
  if (genTimeMs !== undefined) {
    const skewMs = genTimeMs - timestampMs;
    if (proof.batch_anchor?.status === 'anchored') {
      if (skewMs < 0) {
        problems.push(`token genTime ${v.tsa?.gen_time} precedes timestamp ${proof.timestamp} by ${-skewMs / 1000} s; a batch root is timestamped after its proofs, never before`);
      } else if (skewMs > policy.batchMaxSkewSeconds * 1000) {
        problems.push(`token genTime ${v.tsa?.gen_time} trails timestamp ${proof.timestamp} by ${skewMs / 1000} s; the policy allows ${policy.batchMaxSkewSeconds} s for a batch-anchored proof`);
      }
    } else if (Math.abs(skewMs) > policy.maxSkewSeconds * 1000) {
      problems.push(`token genTime ${v.tsa?.gen_time} is ${Math.abs(skewMs) / 1000} s from timestamp ${proof.timestamp}; the policy allows ${policy.maxSkewSeconds} s`);
    }
    if (!study.contains(genTimeMs)) problems.push(`token genTime ${v.tsa?.gen_time} is outside the study window ${study.text}`);
  }
  if (problems.length === 0) {
    v.checks.time = 'pass';
    return;
  }
  fail(v, 'time', 'PROOF_TIME_OUTSIDE_WINDOW', problems[0]!);
  v.problems.push(...problems.slice(1));
}

// --- step 4: signature and key -----------------------------------------------------------------

/**
 * arkforge_signature over the declared chain-hash hex string with a pinned key whose window
 * [from, until) holds the proof's timestamp (and a verified genTime). The key that can count and
 * that the proof names is tried first: one Ed25519 verify for a good proof. Only when nothing that
 * counts verifies are the other keys tried, to tell a bad signature from an untrusted key.
 */
function checkSignature(
  proof: ArkForgeProof,
  declaredChain: string,
  timestampMs: number,
  genTimeMs: number | undefined,
  keys: readonly PinnedKey[],
  v: ProofVerification,
): void {
  const embedded = typeof proof.arkforge_pubkey === 'string' ? decodeEd25519PublicKey(proof.arkforge_pubkey) : undefined;
  const embeddedX = embedded?.toString('base64url');
  if (embedded) v.embedded_pubkey_pinned = keys.some((k) => k.x === embeddedX);

  const signature = proof.arkforge_signature;
  if (typeof signature !== 'string') {
    fail(v, 'signature', 'PROOF_SIGNATURE_MISSING', 'the proof carries no arkforge_signature');
    return;
  }
  const sig = Buffer.from(signature.slice('ed25519:'.length), 'base64url');
  // proof-spec §6: the signed message is the chain-hash hex string, UTF-8 (ASCII) — never a JS string.
  const message = Buffer.from(declaredChain, 'latin1');
  const verifies = (key: KeyObject): boolean => {
    try {
      return ed25519Verify(null, message, key, sig);
    } catch {
      return false;
    }
  };
  const counts = (k: PinnedKey): boolean =>
    inWindow(k, timestampMs) && (genTimeMs === undefined || inWindow(k, genTimeMs));

  // Pinned keys whose window holds come first, the one the proof names (arkforge_pubkey) first among them.
  const counting: PinnedKey[] = [];
  const outOfWindow: PinnedKey[] = [];
  for (const k of keys) {
    const list = counts(k) ? counting : outOfWindow;
    if (k.x === embeddedX) list.unshift(k);
    else list.push(k);
  }
  for (const k of counting) {
    if (verifies(k.key)) {
      v.checks.signature = 'pass';
      v.checks.key = 'pass';
      v.key_id = k.key_id;
      return;
    }
  }
  // Nothing that counts verifies: find out whether the signature is bad or only the key is.
  for (const k of outOfWindow) {
    if (verifies(k.key)) {
      v.checks.signature = 'pass';
      v.key_id = k.key_id;
      fail(v, 'key', 'PROOF_KEY_UNTRUSTED', `the signature verifies with pinned key ${k.key_id}, whose window ${windowText(k)} does not contain the proof's timestamp${genTimeMs === undefined ? '' : ' and token genTime'}`);
      return;
    }
  }
  const embeddedKey = embedded && v.embedded_pubkey_pinned === false ? importRawKey(embedded) : undefined;
  if (embeddedKey && verifies(embeddedKey)) {
    v.checks.signature = 'pass';
    fail(v, 'key', 'PROOF_KEY_UNTRUSTED', `the signature verifies only with the embedded arkforge_pubkey ${proof.arkforge_pubkey}, which is not pinned`);
    return;
  }
  fail(v, 'signature', 'PROOF_SIGNATURE_INVALID', 'arkforge_signature does not verify over the declared chain hash with any pinned key or the embedded key');
}


/** An unpinned embedded key, imported only on the failure path (never per verified proof); undefined when the bytes are no key. */
function importRawKey(raw: Buffer): KeyObject | undefined {
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  } catch {
    return undefined;
  }
}

// --- result ----------------------------------------------------------------------------------

/**
 * A proof whose JSON text does not even parse (the parser's code; a syntax error is
 * PROOF_MALFORMED): MALFORMED, structure failed, every other check skipped.
 */
export function unparsedProofVerification(code: 'JSON_DUPLICATE_KEY' | 'JSON_NUMBER_INVALID' | 'JSON_SYNTAX', problem: string): ProofVerification {
  const v = newVerification(undefined);
  v.checks.structure = 'fail';
  v.codes.push(code === 'JSON_SYNTAX' ? 'PROOF_MALFORMED' : code);
  v.problems.push(problem);
  return finish(v);
}

function newVerification(raw: unknown): ProofVerification {
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
    codes: [],
    informational_codes: [],
    checks: Object.fromEntries(PROOF_CHECKS.map((c) => [c, 'skipped'])) as Record<ProofCheck, CheckOutcome>,
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

function finish(v: ProofVerification): ProofVerification {
  v.codes = [...new Set(v.codes)].sort();
  v.informational_codes = [...new Set(v.informational_codes)].sort();
  const informational = new Set<string>(v.informational_codes);
  v.status = proofStatus(v.codes.filter((c) => !informational.has(c)));
  // A token or a log entry over a batch root witnesses this proof only when the path from its chain hash reaches that root.
  v.independent_witnesses = v.checks.batch === 'fail' ? 0 : (v.checks.tsa === 'pass' ? 1 : 0) + (v.checks.tlog === 'pass' ? 1 : 0);
  return v;
}

const HASH = /^sha256:[0-9a-f]{64}$/;

// --- the study window ---------------------------------------------------------------------------

interface ParsedWindow {
  contains(ms: number): boolean;
  /** "[opens_at, closes_at)" for messages. */
  text: string;
}
let lastWindow: { opens_at: string; closes_at: string; parsed: ParsedWindow } | undefined;

/** [opens_at, closes_at) in epoch ms; parsed once per distinct window. Throws TypeError (a caller bug) when not ISO-8601 UTC. */
function studyWindow(window: StudyWindow): ParsedWindow {
  if (lastWindow && lastWindow.opens_at === window.opens_at && lastWindow.closes_at === window.closes_at) return lastWindow.parsed;
  const opens = utcMillis(window.opens_at);
  const closes = utcMillis(window.closes_at);
  if (opens === undefined || closes === undefined) {
    throw new TypeError(`study window must be ISO-8601 UTC instants, got [${window.opens_at}, ${window.closes_at})`);
  }
  const parsed: ParsedWindow = { contains: (ms) => opens <= ms && ms < closes, text: `[${window.opens_at}, ${window.closes_at})` };
  lastWindow = { opens_at: window.opens_at, closes_at: window.closes_at, parsed };
  return parsed;
}

