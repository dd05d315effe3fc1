// Transparency-log entries (SPEC §6.1, last paragraph; proof-spec v3.1.0 §7.1): one Sigstore
// Rekor v1 `hashedrekord` entry, carried with the evidence as retrieved at collection time
// (schemas/tlog-entry.schema.json), verified OFFLINE against log keys pinned in
// preregistration/trust/. Pure: no file system, clock or network — the entry, the witnessed hash
// and the trust material come in as arguments.
//
// The checks (one outcome each, every failure reported; a check that cannot be decided because
// what it needs failed is 'skipped'):
//   kind             the body is a hashedrekord v0.0.1 entry                 PROOF_TLOG_KIND
//   artifact         spec.data.hash = SHA-256 of the witnessed hash's hex    PROOF_TLOG_ARTIFACT
//                    string (the chain hash, or the batch root when anchored)
//   entry_signature  spec.signature verifies with the submitter's key in the PROOF_TLOG_ENTRY_SIGNATURE
//                    body, over the artifact bytes (the hex string) …
//                    … and that key is one of the issuer's pinned submitter  PROOF_TLOG_SUBMITTER_UNPINNED
//                    keys (tlog_submitter_keys) whose window holds integratedTime
//   set              the signed entry timestamp verifies with the pinned log PROOF_TLOG_SET
//                    key over canonical JSON {body, integratedTime, logID, logIndex}
//   inclusion        RFC 6962 audit path from SHA-256(0x00 ‖ body) reaches   PROOF_TLOG_INCLUSION
//                    the proof's rootHash, with exactly the length its logIndex and treeSize fix
//   checkpoint       the signed note's size and root are the proof's, and    PROOF_TLOG_CHECKPOINT
//                    its signature (key hint = log id[0..4]) verifies with the pinned log key
//   log_key          the entry's logID names a pinned log key whose window   PROOF_TLOG_KEY_UNPINNED
//                    [from, until) holds integratedTime
// An entry that does not follow the schema is PROOF_TLOG_MALFORMED with every check skipped:
// fields of unknown shape are not read. All PROOF_TLOG_* codes mean UNTRUSTED (SPEC §6.1): the
// log does not witness the hash, which says nothing against the issuer's own integrity.
//
// Decisions:
// - The message the submitter signed is the witnessed hash's hex string (ASCII), as the reference
//   verifier checks it (ark-forge/trust-layer scripts/verify_proof.py): Ed25519 signs those bytes
//   (pure EdDSA); ECDSA / RSA sign their SHA-256, i.e. the logged digest. The entry signature is
//   only checked once the artifact matches (otherwise the signed bytes are unknown): skipped.
// - An unpinned submitter key has its own code (PROOF_TLOG_SUBMITTER_UNPINNED, reported by the
//   entry_signature check): the entry is genuine but someone else logged the hash, which is not
//   the same failure as a signature that does not verify. The submitter keys are the issuer's
//   log-signing keys, pinned apart from its proof keys (SPEC §5.4): ArkForge signs its Rekor
//   entries with ECDSA P-256 "rekor" keys, never with its Ed25519 proof keys. A pinned key whose
//   window [from, until) does not hold integratedTime counts as unpinned for that entry.
// - A log key that is pinned but whose window does not hold integratedTime still verifies the
//   SET and the checkpoint (to tell a bad signature from an untrusted key); only log_key fails.
//   A log id that is not pinned at all leaves set and checkpoint without a key: 'skipped'
//   (the checkpoint still fails when its size or root differ from the proof's).
// - inclusionProof.logIndex is not compared with the entry's logIndex: a sharded Rekor reports a
//   global index for the entry and a shard-local one in the proof.
// - A checkpoint may carry other signatures (witness cosignatures): they are ignored; one line
//   with the pinned log key's hint must verify. Rekor's key hint is the first 4 bytes of SHA-256
//   of the DER SPKI (= the log id), for ECDSA and Ed25519 alike. The origin line is not pinned.
import { createPublicKey, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { canonicalJson, JsonNumber, parseJson, toPlain, type JsonValue, isRecord } from '../../formats/canonical-json.ts';
import { isHex64, sha256Hex } from '../../formats/hash.ts';
import { BASE64_STD, parseCheckpoint } from '../../formats/checkpoint.ts';
import { hashFromHex, hashLeaf, inclusionPathLength, type InclusionFailure, verifyInclusion } from '../../formats/merkle.ts';
import { inWindow, windowText } from '../../formats/utc-instant.ts';
import { describeErrors, validator } from '../../formats/schemas.ts';
import { logIdOf, type PinnedLogKey, type PinnedSubmitterKey } from './keys.ts';
import type { CheckOutcome } from '../check-outcome.ts';
import { checkCatalogue } from '../check-catalogue.ts';

// The pinned keys are decoded in keys.ts; callers take both from index.ts.

// --- types ---------------------------------------------------------------------------------

/** An entry as Rekor's API returns it under its uuid (schemas/tlog-entry.schema.json). */
export interface TlogEntry {
  /** Base64 of the canonicalized entry JSON ({apiVersion, kind, spec}). */
  body: string;
  /** Unix seconds. */
  integratedTime: number;
  /** Hex SHA-256 of the log key's DER SPKI. */
  logID: string;
  logIndex: number;
  verification: {
    /** Base64 signature of canonical {body, integratedTime, logID, logIndex} by the log key. */
    signedEntryTimestamp: string;
    inclusionProof: TlogInclusionProof;
  };
}

export interface TlogInclusionProof {
  logIndex: number;
  rootHash: string;
  treeSize: number;
  /** Audit path, bottom first, hex. */
  hashes: string[];
  /** Signed note: "origin\nsize\nbase64 root\n[…\n]\n— name base64(hint ‖ sig)\n". */
  checkpoint: string;
}

export interface TlogMaterial {
  readonly logKeys: readonly PinnedLogKey[];
  /** The issuer's pinned log-signing keys (tlog_submitter_keys): the entry's submitter must be one of them. */
  readonly submitterKeys: readonly PinnedSubmitterKey[];
}

/** The checks, in the order they are recorded. */
export const TLOG_CHECKS = ['kind', 'artifact', 'entry_signature', 'set', 'inclusion', 'checkpoint', 'log_key'] as const;
export type TlogCheck = (typeof TLOG_CHECKS)[number];

/** Every code this verifier reports, the check that reports it (null: the whole entry) and its status (SPEC §6.1). */
export const TLOG_CATALOGUE = checkCatalogue(TLOG_CHECKS, ['UNTRUSTED'], {
  PROOF_TLOG_MALFORMED: { check: null, status: 'UNTRUSTED' },
  PROOF_TLOG_KIND: { check: 'kind', status: 'UNTRUSTED' },
  PROOF_TLOG_ARTIFACT: { check: 'artifact', status: 'UNTRUSTED' },
  PROOF_TLOG_ENTRY_SIGNATURE: { check: 'entry_signature', status: 'UNTRUSTED' },
  PROOF_TLOG_SUBMITTER_UNPINNED: { check: 'entry_signature', status: 'UNTRUSTED' },
  PROOF_TLOG_SET: { check: 'set', status: 'UNTRUSTED' },
  PROOF_TLOG_INCLUSION: { check: 'inclusion', status: 'UNTRUSTED' },
  PROOF_TLOG_CHECKPOINT: { check: 'checkpoint', status: 'UNTRUSTED' },
  PROOF_TLOG_KEY_UNPINNED: { check: 'log_key', status: 'UNTRUSTED' },
});
export const TLOG_CODES = TLOG_CATALOGUE.codes;
export type TlogCode = keyof typeof TLOG_CODES;

export interface TlogVerification {
  /** Every check passed: the log witnesses the hash (one independent witness). */
  ok: boolean;
  /** Every failure, sorted and unique; empty exactly when ok. */
  reason_codes: TlogCode[];
  checks: Record<TlogCheck, CheckOutcome>;
  /** As the entry states them (null when the entry is malformed); integrated_time counts as a time only when ok. */
  log_id: string | null;
  log_index: number | null;
  /** integratedTime as ISO-8601 UTC (YYYY-MM-DDTHH:MM:SSZ). */
  integrated_time: string | null;
  /** What was wrong and where, one line each, in check order. */
  problems: string[];
}

// --- verification --------------------------------------------------------------------------

const validateEntry = validator('tlog-entry'); // compiled once, at module load

/**
 * Verify one entry offline. `witnessedHashHex` is the hash the log should witness, 64 lowercase
 * hex without prefix. Throws only for a caller bug (a witnessed hash of another form).
 */
export function verifyTlogEntry(entry: unknown, witnessedHashHex: string, material: TlogMaterial): TlogVerification {
  if (!isHex64(witnessedHashHex))
    throw new TypeError(`witnessed hash must be 64 lowercase hex digits, got ${JSON.stringify(witnessedHashHex)}`);
  const checks = Object.fromEntries(TLOG_CHECKS.map((c) => [c, 'skipped'])) as Record<TlogCheck, CheckOutcome>;
  const found = new Map<TlogCheck | null, string[]>();
  const codes = new Set<TlogCode>();
  const fail = (code: TlogCode, problem: string): void => {
    const check = TLOG_CODES[code].check;
    if (check !== null) checks[check] = 'fail';
    codes.add(code);
    found.set(check, [...(found.get(check) ?? []), problem]);
  };
  const pass = (check: TlogCheck): void => {
    if (checks[check] !== 'fail') checks[check] = 'pass';
  };
  const finish = (e: TlogEntry | undefined): TlogVerification => ({
    ok: codes.size === 0,
    reason_codes: [...codes].sort(),
    checks,
    log_id: e?.logID ?? null,
    log_index: e?.logIndex ?? null,
    integrated_time: e ? isoSeconds(e.integratedTime) : null,
    problems: [null, ...TLOG_CHECKS].flatMap((c) => found.get(c) ?? []),
  });

  const read = readEntry(entry);
  if ('problems' in read) {
    for (const p of read.problems) fail('PROOF_TLOG_MALFORMED', p);
    return finish(undefined);
  }
  const e = read.entry;
  const body = Buffer.from(e.body, 'base64');
  const proof = e.verification.inclusionProof;

  // log_key: the key that verifies the SET and the checkpoint, selected by the entry's log id.
  const logKey = material.logKeys.find((k) => k.log_id === e.logID);
  if (!logKey) {
    const pinned = material.logKeys.map((k) => k.log_id).join(', ') || 'none';
    fail('PROOF_TLOG_KEY_UNPINNED', `log id ${e.logID} is not a pinned log key (pinned: ${pinned})`);
  } else if (!inWindow(logKey, e.integratedTime * 1000)) {
    fail(
      'PROOF_TLOG_KEY_UNPINNED',
      `log key ${e.logID} is pinned for ${windowText(logKey)}, which does not contain integratedTime ${isoSeconds(e.integratedTime)}`,
    );
  } else pass('log_key');

  // kind → artifact → entry_signature: each needs the one before.
  const rekord = readHashedRekord(body);
  if ('problem' in rekord) fail('PROOF_TLOG_KIND', rekord.problem);
  else {
    pass('kind');
    const expected = sha256Hex(witnessedHashHex);
    const { algorithm, value } = rekord.spec;
    if (algorithm !== 'sha256' || value.toLowerCase() !== expected) {
      fail(
        'PROOF_TLOG_ARTIFACT',
        `the entry logs ${algorithm}:${value}; the witnessed hash ${witnessedHashHex} is logged as sha256:${expected} (SHA-256 of its hex string)`,
      );
    } else {
      pass('artifact');
      checkEntrySignature(rekord.spec, witnessedHashHex, e.integratedTime, material.submitterKeys, fail, pass);
    }
  }

  // set: the log's promise, over exactly the strings and integers the entry carries.
  if (logKey) {
    const payload = canonicalJson({ body: e.body, integratedTime: e.integratedTime, logID: e.logID, logIndex: e.logIndex });
    if (verifySignature(logKey.key, Buffer.from(payload, 'latin1'), Buffer.from(e.verification.signedEntryTimestamp, 'base64')))
      pass('set');
    else
      fail(
        'PROOF_TLOG_SET',
        `the signed entry timestamp does not verify with log key ${e.logID} over ${payload.length > 200 ? `{body, integratedTime: ${e.integratedTime}, logID, logIndex: ${e.logIndex}}` : payload}`,
      );
  }

  // inclusion: RFC 6962 leaf of the body bytes, RFC 9162 §2.1.3.2 walk with the exact path length.
  const inclusion = verifyInclusion(
    hashLeaf(body),
    proof.logIndex,
    proof.treeSize,
    proof.hashes.map(hashFromHex),
    hashFromHex(proof.rootHash),
  );
  if (inclusion.ok) pass('inclusion');
  else fail('PROOF_TLOG_INCLUSION', inclusionProblem(inclusion.failure, proof));

  checkCheckpoint(proof, logKey, fail, pass);
  return finish(e);
}

type Fail = (code: TlogCode, problem: string) => void;
type Pass = (check: TlogCheck) => void;

/** The submitter's signature over the artifact bytes, then the submitter's key against the pinned submitter keys at integratedTime. */
function checkEntrySignature(
  spec: HashedRekordSpec,
  witnessedHashHex: string,
  integratedTime: number,
  submitterKeys: readonly PinnedSubmitterKey[],
  fail: Fail,
  pass: Pass,
): void {
  const key = submitterKey(spec.publicKey);
  if (typeof key === 'string') {
    fail('PROOF_TLOG_ENTRY_SIGNATURE', key);
    return;
  }
  if (!verifySignature(key, Buffer.from(witnessedHashHex, 'latin1'), Buffer.from(spec.signature, 'base64'))) {
    fail(
      'PROOF_TLOG_ENTRY_SIGNATURE',
      `spec.signature does not verify with the submitter's ${key.asymmetricKeyType} key over the witnessed hash's hex string`,
    );
    return;
  }
  const pinned = submitterKeys.filter((k) => k.key.equals(key));
  const ms = integratedTime * 1000;
  if (pinned.some((k) => inWindow(k, ms))) pass('entry_signature');
  else if (pinned.length === 0) {
    const names = submitterKeys.map((k) => k.key_id).join(', ') || 'none';
    fail(
      'PROOF_TLOG_SUBMITTER_UNPINNED',
      `the entry verifies, but its submitter key (${key.asymmetricKeyType}, SPKI SHA-256 ${logIdOf(key)}) is not a pinned submitter key (tlog_submitter_keys: ${names}): someone else logged this hash`,
    );
  } else {
    const windows = pinned.map((k) => `${k.key_id} ${windowText(k)}`).join(', ');
    fail(
      'PROOF_TLOG_SUBMITTER_UNPINNED',
      `the entry verifies with pinned submitter key ${windows}, whose window does not contain integratedTime ${isoSeconds(integratedTime)}`,
    );
  }
}

/** Size and root equal the proof's; a signature line with the log key's hint verifies over the note. */
function checkCheckpoint(proof: TlogInclusionProof, logKey: PinnedLogKey | undefined, fail: Fail, pass: Pass): void {
  const cp = parseCheckpoint(proof.checkpoint);
  if (typeof cp === 'string') {
    fail('PROOF_TLOG_CHECKPOINT', `the checkpoint is not a signed note: ${cp}`);
    return;
  }
  let failed = false;
  const problem = (text: string): void => {
    failed = true;
    fail('PROOF_TLOG_CHECKPOINT', text);
  };
  if (cp.size !== proof.treeSize) problem(`the checkpoint is for tree size ${cp.size}, the inclusion proof for ${proof.treeSize}`);
  if (cp.root.toString('hex') !== proof.rootHash)
    problem(`the checkpoint's root ${cp.root.toString('hex')} differs from the inclusion proof's root ${proof.rootHash}`);
  if (!logKey) return; // no pinned key to verify the signature with: log_key reports it
  const hint = Buffer.from(logKey.log_id, 'hex').subarray(0, 4);
  const lines = cp.signatures.filter((s) => s.hint.equals(hint));
  const note = Buffer.from(cp.note, 'utf8');
  if (lines.length === 0) {
    const signers = cp.signatures.map((s) => `${s.name} (key hint ${s.hint.toString('hex')})`).join(', ');
    problem(
      `the checkpoint carries no signature by log key ${logKey.log_id} (key hint ${hint.toString('hex')}); it is signed by ${signers}`,
    );
  } else if (!lines.some((s) => verifySignature(logKey.key, note, s.signature))) {
    problem(`the checkpoint's signature with the key hint of log ${logKey.log_id} does not verify with the pinned log key`);
  }
  if (!failed) pass('checkpoint');
}

function inclusionProblem(failure: InclusionFailure, p: TlogInclusionProof): string {
  switch (failure) {
    case 'HASH_SIZE':
      return 'inclusion proof: the root hash and every audit-path hash must be 64 hex digits (a 32-byte SHA-256 hash)';
    case 'INDEX_OUT_OF_RANGE':
      return `inclusion proof: leaf index ${p.logIndex} is outside a tree of size ${p.treeSize}`;
    case 'PATH_LENGTH':
      return `inclusion proof: the audit path has ${p.hashes.length} nodes, RFC 6962 fixes ${inclusionPathLength(p.logIndex, p.treeSize)} for leaf ${p.logIndex} of a tree of size ${p.treeSize}`;
    case 'ROOT_MISMATCH':
      return `inclusion proof: the audit path from the entry's leaf does not reach the root ${p.rootHash} of a tree of size ${p.treeSize}`;
  }
}

// --- reading the entry and its body (the checkpoint: pipeline/formats/checkpoint.ts) ----------

function readEntry(raw: unknown): { entry: TlogEntry } | { problems: string[] } {
  if (!isRecord(raw))
    return {
      problems: [
        `the transparency-log entry must be a JSON object, got ${raw === null ? 'null' : Array.isArray(raw) ? 'an array' : raw instanceof JsonNumber ? 'a number' : typeof raw}`,
      ],
    };
  // ajv sees plain JS; an integer beyond 2^53 becomes a bigint, which is not a JSON-Schema integer.
  const plain = toPlain(raw as JsonValue);
  if (!validateEntry(plain)) return { problems: describeErrors(validateEntry.errors).map((p) => `transparency-log entry ${p.trim()}`) };
  const entry = plain as TlogEntry;
  const p = entry.verification.inclusionProof;
  const unsafe = [
    ['integratedTime', entry.integratedTime],
    ['logIndex', entry.logIndex],
    ['inclusionProof/logIndex', p.logIndex],
    ['inclusionProof/treeSize', p.treeSize],
  ]
    .filter(([, n]) => !Number.isSafeInteger(n))
    .map(([name]) => `transparency-log entry /${String(name)} is beyond 2^53`);
  return unsafe.length > 0 ? { problems: unsafe } : { entry };
}

interface HashedRekordSpec {
  algorithm: string;
  value: string;
  /** Base64 of the submitter's signature. */
  signature: string;
  /** Base64 of the submitter's PEM public key (or certificate). */
  publicKey: string;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body as a hashedrekord v0.0.1 entry (sigstore/rekor pkg/types/hashedrekord), or why it is not one. */
function readHashedRekord(body: Buffer): { spec: HashedRekordSpec } | { problem: string } {
  let doc: JsonValue;
  try {
    doc = parseJson(UTF8.decode(body));
  } catch (e) {
    return { problem: `the entry body is not UTF-8 JSON (${e instanceof Error ? e.message : String(e)})` };
  }
  if (!isRecord(doc)) return { problem: 'the entry body is not a JSON object' };
  const kind = field(doc, ['kind']);
  if (kind !== 'hashedrekord')
    return { problem: `the entry is of kind ${shown(kind)}, not hashedrekord: it does not log a signed artifact hash` };
  const apiVersion = field(doc, ['apiVersion']);
  if (apiVersion !== '0.0.1') return { problem: `the hashedrekord entry has apiVersion ${shown(apiVersion)}, not 0.0.1` };
  const spec: Partial<HashedRekordSpec> = {};
  const paths = {
    algorithm: ['spec', 'data', 'hash', 'algorithm'],
    value: ['spec', 'data', 'hash', 'value'],
    signature: ['spec', 'signature', 'content'],
    publicKey: ['spec', 'signature', 'publicKey', 'content'],
  } as const;
  for (const [name, path] of Object.entries(paths) as [keyof HashedRekordSpec, readonly string[]][]) {
    const value = field(doc, path);
    if (typeof value !== 'string' || (name !== 'algorithm' && name !== 'value' && !BASE64_STD.test(value))) {
      return {
        problem: `the hashedrekord body's ${path.join('.')} is missing or not a ${name === 'algorithm' || name === 'value' ? 'string' : 'base64 string'}`,
      };
    }
    spec[name] = value;
  }
  return { spec: spec as HashedRekordSpec };
}

/** The submitter's key from spec.signature.publicKey.content: base64 of a PEM public key or certificate. */
function submitterKey(content: string): KeyObject | string {
  const pem = Buffer.from(content, 'base64').toString('utf8').trim();
  if (!/^-----BEGIN (PUBLIC KEY|CERTIFICATE)-----/.test(pem))
    return "the submitter's key (spec.signature.publicKey.content) is not a PEM public key or certificate";
  try {
    return createPublicKey(pem);
  } catch (e) {
    return `the submitter's key does not parse (${e instanceof Error ? e.message : String(e)})`;
  }
}

// --- small helpers -------------------------------------------------------------------------

/** Ed25519 over the bytes; ECDSA (ASN.1 DER) and RSA (PKCS #1 v1.5) over their SHA-256. Never throws. */
function verifySignature(key: KeyObject, data: Uint8Array, signature: Uint8Array): boolean {
  const algorithm = key.asymmetricKeyType === 'ed25519' || key.asymmetricKeyType === 'ed448' ? null : 'sha256';
  try {
    return cryptoVerify(algorithm, data, key, signature);
  } catch {
    return false;
  }
}

function isoSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
}

/** A body value for a message: absent, or its canonical JSON (cut short). */
function shown(value: unknown): string {
  if (value === undefined) return 'absent';
  const text = canonicalJson(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function field(o: Record<string, unknown>, path: readonly string[]): unknown {
  let at: unknown = o;
  for (const key of path) {
    if (!isRecord(at) || !Object.hasOwn(at, key)) return undefined;
    at = at[key];
  }
  return at;
}
