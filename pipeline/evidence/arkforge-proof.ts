// ArkForge proofs and evidence items (SPEC §6.1, proof-spec v2.1.0 and older): verification of
// one item against the pinned trust material and the study window. Pure: no file system, clock
// or network — "now" never matters, the window and the trust come in as arguments.
//
// The orchestrator below reads as the list of checks, one per witness, in SPEC order:
//   structure → request_hash / response_hash → chain → tsa → signature + key → time.
// (The token is verified before the signature because its genTime, when the token verifies,
// also bounds which pinned keys count — SPEC §5.4.) Every check runs when what it needs is
// well-formed, and every failure is reported; a check that cannot run is 'skipped'. When the
// structure fails nothing else runs: fields of unknown shape are not read. Bad evidence never
// throws; only a caller bug (a window that is not ISO-8601 UTC) does.
//
// Inputs are parsed JsonValue (numbers as JsonNumber lexemes, so body hashes are Python-exact)
// or plain JS (numbers are then JS numbers: 1.0 and 1 are the same, as JSON.parse reads them).
//
// Decisions (see also schemas/proof.schema.json):
// - request_hash / response_hash in the result are the proof's DECLARED hashes (hex): the values
//   the chain binds, which the body checks compare against when bodies are given.
// - A body given as null counts as not given.
// - Only a token that verifies contributes its genTime (to the key windows and the time check):
//   an untrusted or broken token is nobody's word about time; its genTime is still reported.
// - key_id names the pinned key the signature verified with, also when that key is outside its
//   window (then the key check fails); null when no pinned key verified.
import { createPublicKey, verify as ed25519Verify, type KeyObject } from 'node:crypto';
import { CanonicalText, JsonNumber, canonicalJson, sha256Hex, toPlain, type JsonValue } from '../formats/canonical-json.ts';
import { describeErrors, validator } from '../formats/schemas.ts';
import type { ReasonCode } from '../reasons.ts';
import { proofVersionModule, KNOWN_SPEC_VERSIONS, type ArkForgeProof, type ChainAlgorithm } from './proof-versions/index.ts';
import { SHA256_PREFIX, stripSha256 } from './proof-versions/proof.ts';
import { verifyTimestampToken, type TsaReasonCode } from './rfc3161.ts';
import { decodeEd25519PublicKey, utcMillis, type PinnedKey, type TrustMaterial } from './trust-material.ts';

export type ProofStatus = 'VERIFIED' | 'TAMPERED' | 'UNTRUSTED' | 'MALFORMED';

/** The checks, in the order they are recorded (one column each in proof_checks). */
export const PROOF_CHECKS = ['structure', 'request_hash', 'response_hash', 'chain', 'signature', 'key', 'tsa', 'time'] as const;
export type ProofCheck = (typeof PROOF_CHECKS)[number];
export type CheckOutcome = 'pass' | 'fail' | 'skipped';

/** Every code this verifier reports, with the one check that reports it and the status it implies (SPEC §6.1 table). */
export const PROOF_CODES = {
  PROOF_MALFORMED: { check: 'structure', status: 'MALFORMED' },
  PROOF_REQUEST_HASH_MISMATCH: { check: 'request_hash', status: 'TAMPERED' },
  PROOF_RESPONSE_HASH_MISMATCH: { check: 'response_hash', status: 'TAMPERED' },
  PROOF_SPEC_VERSION_UNKNOWN: { check: 'chain', status: 'MALFORMED' },
  PROOF_CHAIN_MISMATCH: { check: 'chain', status: 'TAMPERED' },
  PROOF_SIGNATURE_MISSING: { check: 'signature', status: 'UNTRUSTED' },
  PROOF_SIGNATURE_INVALID: { check: 'signature', status: 'TAMPERED' },
  PROOF_KEY_UNTRUSTED: { check: 'key', status: 'UNTRUSTED' },
  PROOF_TSA_MISSING: { check: 'tsa', status: 'UNTRUSTED' },
  PROOF_TSA_INVALID: { check: 'tsa', status: 'UNTRUSTED' },
  PROOF_TSA_UNTRUSTED: { check: 'tsa', status: 'UNTRUSTED' },
  PROOF_TIME_OUTSIDE_WINDOW: { check: 'time', status: 'UNTRUSTED' },
} as const satisfies Partial<Record<ReasonCode, { check: ProofCheck; status: Exclude<ProofStatus, 'VERIFIED'> }>>;
export type ProofCode = keyof typeof PROOF_CODES;

/** Parse refusals that make a proof MALFORMED before it reaches this module (SPEC §6.1 table). */
export type ProofParseCode = 'JSON_DUPLICATE_KEY' | 'JSON_NUMBER_INVALID';

export interface ProofTsaOutcome {
  /** TSTInfo genTime as the token states it (ISO-8601 UTC), also when the token does not verify. */
  gen_time: string | null;
  /** The TSA_* codes of pipeline/evidence/rfc3161.ts; empty when the token verified. */
  codes: TsaReasonCode[];
  /** Subject of the token's signer certificate (RFC 4514). */
  signer: string | null;
}

export interface ProofVerification {
  status: ProofStatus;
  /** Every failure, sorted and unique; empty when VERIFIED. */
  codes: Array<ProofCode | ProofParseCode>;
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
  /** The pinned key the signature verified with (see the file comment). */
  key_id: string | null;
  /** arkforge_pubkey as the proof carries it: reported, never trusted on its own. */
  embedded_pubkey: string | null;
  /** Whether the embedded key is one of the pinned keys (any window); null without one. */
  embedded_pubkey_pinned: boolean | null;
  /** The RFC 3161 token's outcome; null when the proof carries none. */
  tsa: ProofTsaOutcome | null;
  /** What was wrong and where, one line each, in check order (for the report and `explain`). */
  problems: string[];
}

export interface StudyWindow {
  opens_at: string;
  closes_at: string;
}

export interface EvidenceItem {
  proof: unknown;
  request?: unknown;
  response?: unknown;
}

/** The status the codes imply, first match wins: MALFORMED > TAMPERED > UNTRUSTED > VERIFIED. */
export function proofStatus(codes: readonly (ProofCode | ProofParseCode)[]): ProofStatus {
  let rank: number = STATUS_RANK.length;
  for (const code of codes) {
    const status = code === 'JSON_DUPLICATE_KEY' || code === 'JSON_NUMBER_INVALID' ? 'MALFORMED' : PROOF_CODES[code].status;
    rank = Math.min(rank, STATUS_RANK.indexOf(status));
  }
  return STATUS_RANK[rank] ?? 'VERIFIED';
}
const STATUS_RANK: readonly ProofStatus[] = ['MALFORMED', 'TAMPERED', 'UNTRUSTED'];

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
  checkChain(read.proof, declaredChain, v); // 3.
  const genTimeMs = await checkToken(read.proof, declaredChain, trust, v); // 5. (its genTime bounds the key windows)
  checkSignature(read.proof, declaredChain, read.timestampMs, genTimeMs, trust.keys, v); // 4.
  checkTime(read.proof, read.timestampMs, genTimeMs, trust.policy.maxSkewSeconds, study, v); // 5. (time)
  // 6. transparency_log and other post-chain metadata are never read.
  return finish(v);
}

function fail(v: ProofVerification, check: ProofCheck, code: ProofCode, problem: string): void {
  v.checks[check] = 'fail';
  v.codes.push(code);
  v.problems.push(problem);
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

// --- step 3: chain hash ------------------------------------------------------------------------

/** Recompute by the algorithm the spec_version selects (one module per algorithm, proof-versions/). */
function checkChain(proof: ArkForgeProof, declaredChain: string, v: ProofVerification): void {
  const version = proofVersionModule(proof.spec_version);
  if (!version) {
    const known = KNOWN_SPEC_VERSIONS.map((s) => (s === null ? 'absent' : JSON.stringify(s))).join(', ');
    fail(v, 'chain', 'PROOF_SPEC_VERSION_UNKNOWN', `spec_version ${JSON.stringify(proof.spec_version)} is not one of ${known}`);
    return;
  }
  v.algorithm = version.algorithm;
  v.recomputed_chain_hash = version.chainHash(proof);
  if (v.recomputed_chain_hash === declaredChain) v.checks.chain = 'pass';
  else fail(v, 'chain', 'PROOF_CHAIN_MISMATCH', `chain hash recomputed by the ${version.algorithm} algorithm is ${v.recomputed_chain_hash}, the proof declares ${declaredChain}`);
}

// --- step 5: RFC 3161 token --------------------------------------------------------------------

/**
 * The token in timestamp_authority.tsr_base64 over the 32 bytes of the declared chain hash,
 * chained to a pinned root (rfc3161.ts). Returns the genTime (epoch ms) of a token that verifies.
 */
async function checkToken(proof: ArkForgeProof, declaredChain: string, trust: TrustMaterial, v: ProofVerification): Promise<number | undefined> {
  const tsr = proof.timestamp_authority?.tsr_base64;
  if (typeof tsr !== 'string' || tsr === '') {
    if (trust.policy.requireTsaToken) fail(v, 'tsa', 'PROOF_TSA_MISSING', 'the policy requires a timestamp token and timestamp_authority.tsr_base64 is absent');
    return undefined;
  }
  const outcome = await verifyTimestampToken(Buffer.from(tsr, 'base64'), Buffer.from(declaredChain, 'hex'), trust.tsa);
  v.tsa = { gen_time: outcome.genTime ?? null, codes: outcome.codes, signer: outcome.signerSubject ?? null };
  if (outcome.ok && outcome.genTime !== undefined) {
    v.checks.tsa = 'pass';
    return utcMillis(outcome.genTime);
  }
  const invalid = outcome.codes.filter((c) => c !== 'TSA_CHAIN_UNTRUSTED');
  if (outcome.codes.includes('TSA_CHAIN_UNTRUSTED')) {
    fail(v, 'tsa', 'PROOF_TSA_UNTRUSTED', `timestamp token does not chain to a pinned TSA root (signer ${outcome.signerSubject ?? 'unknown'})`);
  }
  if (invalid.length > 0) fail(v, 'tsa', 'PROOF_TSA_INVALID', `timestamp token does not verify over the chain hash: ${invalid.join(', ')}`);
  return undefined;
}

// --- step 5 (time) -----------------------------------------------------------------------------

/** timestamp — and a verified genTime — inside [opens_at, closes_at); |genTime − timestamp| ≤ the skew. */
function checkTime(
  proof: ArkForgeProof,
  timestampMs: number,
  genTimeMs: number | undefined,
  maxSkewSeconds: number,
  study: ParsedWindow,
  v: ProofVerification,
): void {
  const problems: string[] = [];
  if (!study.contains(timestampMs)) problems.push(`timestamp ${proof.timestamp} is outside the study window ${study.text}`);
  if (genTimeMs !== undefined) {
    const skewMs = Math.abs(genTimeMs - timestampMs);
    if (skewMs > maxSkewSeconds * 1000) {
      problems.push(`token genTime ${v.tsa?.gen_time} is ${skewMs / 1000} s from timestamp ${proof.timestamp}; the policy allows ${maxSkewSeconds} s`);
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

// --- step 1: structure -------------------------------------------------------------------------

const validateProof = validator('proof'); // compiled once, at module load

interface ReadProof {
  proof: ArkForgeProof;
  timestampMs: number;
  /** SHA-256 hex of the canonical JSON of each body given. */
  requestHash?: string;
  responseHash?: string;
}

function readItem(item: EvidenceItem): ReadProof | { problems: string[] } {
  const raw = item.proof;
  if (!isRecord(raw)) return { problems: [`the proof must be a JSON object, got ${describe(raw)}`] };
  // ajv sees plain JS: JsonNumber lexemes become numbers (the schema only asks "is a number").
  const plain = toPlain(raw as JsonValue);
  if (!validateProof(plain)) return { problems: describeErrors(validateProof.errors).map((p) => (p.startsWith('/ ') ? `proof${p.slice(1)}` : `proof${p}`)) };
  const proof = plain as ArkForgeProof;
  const problems: string[] = [];
  const timestampMs = utcMillis(proof.timestamp);
  if (timestampMs === undefined) problems.push(`proof/timestamp ${JSON.stringify(proof.timestamp)} is not a real instant`);
  const payment = ownValue(raw, 'payment');
  const fee = ownValue(raw, 'certification_fee');
  // Compared on the parsed values (lexemes kept): 1 and 1.0 differ, as in Python's canonical form.
  if (payment !== undefined && fee !== undefined && canonicalJson(payment) !== canonicalJson(fee)) {
    problems.push('proof/payment and proof/certification_fee are both present and differ (canonical JSON)');
  }
  const requestHash = bodyHash(item.request, 'request', problems);
  const responseHash = bodyHash(item.response, 'response', problems);
  if (problems.length > 0 || timestampMs === undefined) return { problems };
  const read: ReadProof = { proof, timestampMs };
  if (requestHash !== undefined) read.requestHash = requestHash;
  if (responseHash !== undefined) read.responseHash = responseHash;
  return read;
}

/** SHA-256 hex of the body's canonical JSON; undefined when no body is given (absent or null). */
function bodyHash(body: unknown, name: string, problems: string[]): string | undefined {
  if (body === undefined || body === null || (body instanceof CanonicalText && body.text === 'null')) return undefined;
  try {
    return sha256Hex(canonicalJson(body));
  } catch (e) {
    problems.push(`the ${name} body is not a JSON value: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
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
    inKeyWindow(k, timestampMs) && (genTimeMs === undefined || inKeyWindow(k, genTimeMs));

  // Pinned keys whose window holds come first, the one the proof names (arkforge_pubkey) first among them.
  const inWindow: PinnedKey[] = [];
  const outOfWindow: PinnedKey[] = [];
  for (const k of keys) {
    const list = counts(k) ? inWindow : outOfWindow;
    if (k.x === embeddedX) list.unshift(k);
    else list.push(k);
  }
  for (const k of inWindow) {
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
      fail(v, 'key', 'PROOF_KEY_UNTRUSTED', `the signature verifies with pinned key ${k.key_id}, whose window [${new Date(k.from_ms).toISOString()}, ${new Date(k.until_ms).toISOString()}) does not contain the proof's timestamp${genTimeMs === undefined ? '' : ' and token genTime'}`);
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

function inKeyWindow(k: PinnedKey, ms: number): boolean {
  return k.from_ms <= ms && ms < k.until_ms;
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

function newVerification(raw: unknown): ProofVerification {
  const o = isRecord(raw) ? raw : undefined;
  const hashes = o && ownValue(o, 'hashes');
  const h = isRecord(hashes) ? hashes : undefined;
  const declared = (key: string): string | null => {
    const value = h && ownValue(h, key);
    return typeof value === 'string' && HASH.test(value) ? value.slice(SHA256_PREFIX.length) : null;
  };
  const text = (key: string): string | null => {
    const value = o && ownValue(o, key);
    return typeof value === 'string' ? value : null;
  };
  return {
    status: 'VERIFIED',
    codes: [],
    checks: {
      structure: 'skipped',
      request_hash: 'skipped',
      response_hash: 'skipped',
      chain: 'skipped',
      signature: 'skipped',
      key: 'skipped',
      tsa: 'skipped',
      time: 'skipped',
    },
    proof_id: text('proof_id'),
    spec_version: text('spec_version'),
    algorithm: null,
    timestamp: text('timestamp'),
    declared_chain_hash: declared('chain'),
    recomputed_chain_hash: null,
    request_hash: declared('request'),
    response_hash: declared('response'),
    key_id: null,
    embedded_pubkey: text('arkforge_pubkey'),
    embedded_pubkey_pinned: null,
    tsa: null,
    problems: [],
  };
}

function finish(v: ProofVerification): ProofVerification {
  v.codes = [...new Set(v.codes)].sort();
  v.status = proofStatus(v.codes);
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

// --- small helpers ------------------------------------------------------------------------------

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);
}

function ownValue(o: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(o, key) ? o[key] : undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return value instanceof JsonNumber ? 'a number' : typeof value;
}
