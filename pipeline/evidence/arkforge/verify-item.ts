// ArkForge proofs and evidence items (SPEC §6.1; proof-spec v2.1.0 and older, v3.1.0 for spec 3.0 /
// 3.1 and batch anchors): verification of one item against the pinned trust material and the
// study window. Pure: no file system, clock or network — "now" never matters, the window and the
// trust come in as arguments.
//
// The orchestrator below reads as the list of checks, one per witness, in SPEC order:
//   structure → request_hash / response_hash → the version's checks (chain, commitments,
//   disclosures, body_binding, identity; versions/) → batch → tsa → tlog → signature + key
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
import type { KeyObject } from 'node:crypto';
import { checkBatchAnchor } from './batch-anchor.ts';
import type { CheckOutcome } from '../check-outcome.ts';
import { checkOnThisThread, type SignatureCheck } from '../signature-check.ts';
import type { ProofCheck } from './checks.ts';
import { readItem, type EvidenceItem, type ReadProof } from './item.ts';
import { fail, finish, newVerification, record, type ProofVerification, type StudyWindow } from './verification.ts';
import { proofVersionModule, KNOWN_SPEC_VERSIONS, type ArkForgeProof } from './versions/index.ts';
import { SHA256_PREFIX, stripSha256 } from './versions/proof.ts';
import { TSA_TRUST_GAP, verifyTimestampTokenOnce } from '../timestamp/index.ts';
import { verifyTlogEntry } from '../tlog/index.ts';
import { inWindow, utcMillis, windowText } from '../../formats/utc-instant.ts';
import { decodeEd25519PublicKey, importEd25519Raw, type PinnedKey, type ProofPolicy, type TrustMaterial } from '../trust/index.ts';

/** A bare proof: an evidence item without bodies. */
export function verifyProof(
  proof: unknown,
  trust: TrustMaterial,
  window: StudyWindow,
  signatures: SignatureCheck = checkOnThisThread,
): Promise<ProofVerification> {
  return verifyEvidenceItem({ proof }, trust, window, signatures);
}

/** SPEC §6.1 steps 1–6 for one evidence item; `signatures` says where the signatures' arithmetic runs (signature-check.ts). */
export async function verifyEvidenceItem(
  item: EvidenceItem,
  trust: TrustMaterial,
  window: StudyWindow,
  signatures: SignatureCheck = checkOnThisThread,
): Promise<ProofVerification> {
  const study = studyWindow(window);
  const v = newVerification(item.proof);

  // 1. Structure: the published schema, then what a schema cannot say. Nothing else runs without it.
  const read = readItem(item);
  if ('problems' in read) {
    v.checks.structure = 'fail';
    v.reason_codes.push('PROOF_MALFORMED');
    v.problems.push(...read.problems);
    return finish(v);
  }
  v.checks.structure = 'pass';
  const declaredChain = stripSha256(read.proof.hashes.chain);

  checkBodies(read, v); // 2.
  checkVersion(read, declaredChain, v); // 3. (the checks the spec_version decides)
  const batch = checkBatchAnchor(read.proof.batch_anchor, declaredChain, trust.policy.requireTsaToken); // 4. batch anchor
  if (batch.check === 'pass') v.checks.batch = 'pass';
  record(v, batch.findings);
  v.batch = batch.report;
  v.witnessed_hash = batch.witnessed?.hash ?? null;
  const genTimeMs = await checkToken(read.proof, batch.witnessed, trust, signatures, v); // 5. token (its genTime bounds the key windows)
  checkTlog(item.transparency_log_entry, batch.witnessed, trust, v); // 6. the log entry over the same witnessed hash
  await checkSignature(read.proof, declaredChain, read.timestampMs, genTimeMs, trust.keys, signatures, v); // 7. signature and key
  checkTime(read.proof, read.timestampMs, genTimeMs, trust.policy, study, v); // 8. time
  // The proof's own transparency_log member and other post-chain metadata never enter the chain hash.
  return finish(v);
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

/** The module the spec_version selects (versions/) recomputes the chain hash and decides its checks. */
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
    bodyHashes: {
      ...(read.requestHash !== undefined ? { request: read.requestHash } : {}),
      ...(read.responseHash !== undefined ? { response: read.responseHash } : {}),
    },
    ...(read.chainInputs !== undefined ? { chainInputs: read.chainInputs } : {}),
  });
  v.recomputed_chain_hash = outcome.recomputed_chain_hash;
  v.committed_fields = outcome.committed_fields;
  v.opened_fields = outcome.opened_fields;
  v.identity_json = outcome.identity?.json ?? null;
  v.identity_anchored = outcome.identity?.anchored ?? null;
  v.buyer_fingerprint = outcome.buyer_fingerprint?.value ?? null;
  v.buyer_fingerprint_source = outcome.buyer_fingerprint?.source ?? null;
  v.seller = outcome.seller?.value ?? null;
  v.seller_source = outcome.seller?.source ?? null;
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
  signatures: SignatureCheck,
  v: ProofVerification,
): Promise<number | undefined> {
  if (witnessed === null) return undefined;
  const tsr = proof.timestamp_authority?.tsr_base64;
  if (typeof tsr !== 'string' || tsr === '') {
    if (trust.policy.requireTsaToken)
      fail(v, 'tsa', 'PROOF_TSA_MISSING', 'the policy requires a timestamp token and timestamp_authority.tsr_base64 is absent');
    return undefined;
  }
  // A batch's proofs share one token: verified once, its time still checked for each proof.
  const outcome = await verifyTimestampTokenOnce(tsr, witnessed.hash, trust.tsa, signatures);
  // The outcome is shared by every proof of its token (verified-once.ts): its codes are copied.
  v.tsa = {
    gen_time: outcome.genTime ?? null,
    reason_codes: [...outcome.reason_codes],
    signer: outcome.signerSubject ?? null,
    root_sha256: outcome.rootSha256 ?? null,
  };
  if (outcome.ok && outcome.genTime !== undefined) {
    v.checks.tsa = 'pass';
    return utcMillis(outcome.genTime);
  }
  // What the trust material lacks (a root, the signer's certificate) is untrusted; the rest is the token's own fault.
  const untrusted = outcome.reason_codes.filter((c) => TSA_TRUST_GAP[c]);
  const invalid = outcome.reason_codes.filter((c) => !TSA_TRUST_GAP[c]);
  if (untrusted.length > 0) {
    fail(
      v,
      'tsa',
      'PROOF_TSA_UNTRUSTED',
      `timestamp token is not established by the pinned trust material (no pinned root it chains to, or no signer certificate carried or in tsa_certs; signer ${outcome.signerSubject ?? 'unknown'}): ${untrusted.join(', ')}`,
    );
  }
  if (invalid.length > 0)
    fail(v, 'tsa', 'PROOF_TSA_INVALID', `timestamp token does not verify over the ${witnessed.what}: ${invalid.join(', ')}`);
  return undefined;
}

// --- step 6: transparency log -----------------------------------------------------------------

/**
 * The entry carried with the evidence item, verified offline over the witnessed hash (the declared
 * chain hash, or the declared batch root) against the pinned log keys and issuer keys (tlog/rekor-entry.ts).
 * No entry (absent or null), or nothing witnessed yet (a pending batch): skipped, no code.
 */
function checkTlog(entry: unknown, witnessed: { hash: string; what: string } | null, trust: TrustMaterial, v: ProofVerification): void {
  if (entry === undefined || entry === null || witnessed === null) return;
  const outcome = verifyTlogEntry(entry, witnessed.hash, trust.tlog);
  v.tlog = {
    reason_codes: outcome.reason_codes,
    checks: outcome.checks,
    log_id: outcome.log_id,
    log_index: outcome.log_index,
    integrated_time: outcome.integrated_time,
  };
  if (outcome.ok) {
    v.checks.tlog = 'pass';
    return;
  }
  v.checks.tlog = 'fail';
  v.reason_codes.push(...outcome.reason_codes);
  v.problems.push(...outcome.problems.map((p) => `transparency log (over the ${witnessed.what}): ${p}`));
}

// --- step 8: time -------------------------------------------------------------------------------

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
        problems.push(
          `token genTime ${v.tsa?.gen_time} precedes timestamp ${proof.timestamp} by ${-skewMs / 1000} s; a batch root is timestamped after its proofs, never before`,
        );
      } else if (skewMs > policy.batchMaxSkewSeconds * 1000) {
        problems.push(
          `token genTime ${v.tsa?.gen_time} trails timestamp ${proof.timestamp} by ${skewMs / 1000} s; the policy allows ${policy.batchMaxSkewSeconds} s for a batch-anchored proof`,
        );
      }
    } else if (Math.abs(skewMs) > policy.maxSkewSeconds * 1000) {
      problems.push(
        `token genTime ${v.tsa?.gen_time} is ${Math.abs(skewMs) / 1000} s from timestamp ${proof.timestamp}; the policy allows ${policy.maxSkewSeconds} s`,
      );
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

// --- step 7: signature and key -----------------------------------------------------------------

/**
 * arkforge_signature over the declared chain-hash hex string with a pinned key whose window
 * [from, until) holds the proof's timestamp (and a verified genTime). The key that can count and
 * that the proof names is tried first: one Ed25519 verify for a good proof. Only when nothing that
 * counts verifies are the other keys tried, to tell a bad signature from an untrusted key.
 */
async function checkSignature(
  proof: ArkForgeProof,
  declaredChain: string,
  timestampMs: number,
  genTimeMs: number | undefined,
  keys: readonly PinnedKey[],
  signatures: SignatureCheck,
  v: ProofVerification,
): Promise<void> {
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
  const verifies = (key: KeyObject) => signatures(null, message, key, sig);
  const counts = (k: PinnedKey): boolean => inWindow(k, timestampMs) && (genTimeMs === undefined || inWindow(k, genTimeMs));

  // Pinned keys whose window holds come first, the one the proof names (arkforge_pubkey) first among them.
  const counting: PinnedKey[] = [];
  const outOfWindow: PinnedKey[] = [];
  for (const k of keys) {
    const list = counts(k) ? counting : outOfWindow;
    if (k.x === embeddedX) list.unshift(k);
    else list.push(k);
  }
  for (const k of counting) {
    if (await verifies(k.key)) {
      v.checks.signature = 'pass';
      v.checks.key = 'pass';
      v.key_id = k.key_id;
      return;
    }
  }
  // Nothing that counts verifies: find out whether the signature is bad or only the key is.
  for (const k of outOfWindow) {
    if (await verifies(k.key)) {
      v.checks.signature = 'pass';
      v.key_id = k.key_id;
      fail(
        v,
        'key',
        'PROOF_KEY_UNTRUSTED',
        `the signature verifies with pinned key ${k.key_id}, whose window ${windowText(k)} does not contain the proof's timestamp${genTimeMs === undefined ? '' : ' and token genTime'}`,
      );
      return;
    }
  }
  const embeddedKey = embedded && v.embedded_pubkey_pinned === false ? importRawKey(embedded) : undefined;
  if (embeddedKey && (await verifies(embeddedKey))) {
    v.checks.signature = 'pass';
    fail(
      v,
      'key',
      'PROOF_KEY_UNTRUSTED',
      `the signature verifies only with the embedded arkforge_pubkey ${proof.arkforge_pubkey}, which is not pinned`,
    );
    return;
  }
  fail(
    v,
    'signature',
    'PROOF_SIGNATURE_INVALID',
    'arkforge_signature does not verify over the declared chain hash with any pinned key or the embedded key',
  );
}

/** An unpinned embedded key, imported only on the failure path (never per verified proof); undefined when the bytes are no key. */
function importRawKey(raw: Buffer): KeyObject | undefined {
  try {
    return importEd25519Raw(raw);
  } catch {
    return undefined;
  }
}

// --- the study window ---------------------------------------------------------------------------

interface ParsedWindow {
  contains(ms: number): boolean;
  /** "[opens_at, closes_at)" for messages. */
  text: string;
}
/**
 * [opens_at, closes_at) in epoch ms. Parsed on every call, not remembered between proofs: two
 * instants cost ≈ 1 µs against ≈ 240 µs per proof, and a module-level cache would outlive the study.
 * Throws TypeError (a caller bug) when not ISO-8601 UTC.
 */
function studyWindow(window: StudyWindow): ParsedWindow {
  const opens = utcMillis(window.opens_at);
  const closes = utcMillis(window.closes_at);
  if (opens === undefined || closes === undefined) {
    throw new TypeError(`study window must be ISO-8601 UTC instants, got [${window.opens_at}, ${window.closes_at})`);
  }
  return { contains: (ms) => opens <= ms && ms < closes, text: `[${window.opens_at}, ${window.closes_at})` };
}
