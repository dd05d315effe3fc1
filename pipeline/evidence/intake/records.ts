// The records of sealed intake (SPEC §12.2, docs/intake.md): a participant's signed intake
// request, the operator's log entry, the receipt the participant keeps, and the seal. Pure: the
// shapes, what each signature covers and each digest is taken over.
//
//   request   {format:"prereg.intake-request/2", study_id, system_id, freeze_digest, kind, version,
//              supersedes, sha256, bytes, file?, public_key, signature}; signature = Ed25519 by
//              public_key over canonical {study_id, system_id, freeze_digest, kind, version,
//              supersedes, sha256, bytes}. version: 1 for a system's first request of a kind, one
//              more for each that supersedes; supersedes: the request digest of the version before
//              (64 zeros for version 1). /1 (no version; signed over the same without version and
//              supersedes) is read in old logs; intake refuses it (docs/intake.md).
//   request digest = SHA-256(canonical JSON of the request without `file`), hex: what `supersedes`
//              names and what a participant's own TSA token dates.
//   entry     {seq, prev, request, lines_read, lines_rejected, token}: one line of
//              inputs/intake.jsonl; seq is 0-based (the entry's RFC 6962 leaf index); prev is the
//              previous entry's digest (64 zeros for seq 0); token is the TSA's TimeStampResp
//              (DER, base64) over the entry digest.
//   entry digest = SHA-256(canonical JSON of the entry without `token`), hex: the chain's link,
//              the seal's Merkle leaf (0x00 ‖ its 32 bytes), and what the token dates (its message
//              imprint is a SHA-2 hash over the 32 bytes, as for the freeze's anchors).
//   receipt   {format:"prereg.intake-receipt/2", study_id, freeze_digest, entry, entry_digest,
//              intake_key, intake_key_certificate?, signature}; signature = Ed25519 by
//              intake_key over the canonical receipt without `signature`; the certificate is
//              the operator identity's for that key when it is not the identity (key-certificate.ts).
//   seal      inputs/seal.json {format:"prereg.seal/1", study_id, freeze_digest, closes_at,
//              log:{entries, root, head}, files:[{path, bytes, sha256}]}; seal_digest =
//              SHA-256(canonical seal.json), which the seal's anchors (inputs/anchors/) witness.
// docs/intake.md describes each, for participants, operators and auditors.
import { utcMillis } from '../../formats/utc-instant.ts';
import { canonicalJson, isRecord } from '../../formats/canonical-json.ts';
import { isHex64, sha256Hex } from '../../formats/hash.ts';
import { schemaProblems } from '../../formats/schemas.ts';
import type { IntakeKeyCertificate } from './key-certificate.ts';
import { hashFromHex, inclusionPath, leafHashOfHex, rootFromLeafHashes, verifyInclusion } from '../../formats/merkle.ts';

export const INTAKE_REQUEST_FORMAT = 'prereg.intake-request/2';
/** The request before versions: still read in a log, refused by intake. */
export const INTAKE_REQUEST_FORMAT_V1 = 'prereg.intake-request/1';
export const INTAKE_RECEIPT_FORMAT = 'prereg.intake-receipt/2';
export const SEAL_FORMAT = 'prereg.seal/1';
export const GENESIS_PREV = '0'.repeat(64);
export const INTAKE_KINDS = ['submissions', 'commitments'] as const;
export type IntakeKind = (typeof INTAKE_KINDS)[number];
/** A system_id that names a file: inputs/<kind>/<system_id>.jsonl. */
export const FILE_SAFE_SYSTEM_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export interface IntakeRequest {
  format: typeof INTAKE_REQUEST_FORMAT | typeof INTAKE_REQUEST_FORMAT_V1;
  study_id: string;
  system_id: string;
  freeze_digest: string;
  kind: IntakeKind;
  /** /2: 1 for the system's first request of this kind, one more for each that supersedes (absent in /1). */
  version?: number;
  /** /2: the request digest of the version before, 64 zeros for version 1 (absent in /1). */
  supersedes?: string;
  sha256: string;
  bytes: number;
  /** The file's name, beside the request (informational: the signature binds sha256 and bytes). */
  file?: string;
  /** The agent key that signed, `ed25519:<base64url>`: one of the system's frozen agent_keys. */
  public_key: string;
  signature: string;
}

export interface IntakeEntry {
  seq: number;
  prev: string;
  request: IntakeRequest;
  lines_read: number;
  lines_rejected: number;
  /** base64 of the DER TimeStampResp over the entry digest. */
  token: string;
}

export interface IntakeReceipt {
  format: typeof INTAKE_RECEIPT_FORMAT;
  study_id: string;
  freeze_digest: string;
  entry: IntakeEntry;
  entry_digest: string;
  /** The key that signed, `ed25519:<base64url>`: the operator's identity key or one it certified. */
  intake_key: string;
  intake_key_certificate?: IntakeKeyCertificate;
  signature: string;
}

export interface SealedFile {
  /** From the study root, "/"-separated. */
  path: string;
  bytes: number;
  sha256: string;
}

export interface SealRecord {
  format: typeof SEAL_FORMAT;
  study_id: string;
  freeze_digest: string;
  closes_at: string;
  log: { entries: number; root: string; head: string };
  files: SealedFile[];
}

/** What the participant's signature covers: /2 adds version and supersedes to /1's members. */
export function requestPayload(
  r: Pick<IntakeRequest, 'study_id' | 'system_id' | 'freeze_digest' | 'kind' | 'version' | 'supersedes' | 'sha256' | 'bytes'>,
): Record<string, unknown> {
  const versioned = r.version === undefined ? {} : { version: r.version, supersedes: r.supersedes };
  return {
    study_id: r.study_id,
    system_id: r.system_id,
    freeze_digest: r.freeze_digest,
    kind: r.kind,
    ...versioned,
    sha256: r.sha256,
    bytes: r.bytes,
  };
}

/** SHA-256(canonical request without `file`), hex: `file` is informational and unsigned. */
export function requestDigest(r: IntakeRequest): string {
  const { file: _file, ...signed } = r;
  return sha256Hex(canonicalJson(signed));
}

/** What a possession proof covers (study.json systems[].agent_keys[].possession). */
export function possessionPayload(studyId: string, systemId: string): Record<string, unknown> {
  return { study_id: studyId, system_id: systemId };
}

/** SHA-256(canonical entry without `token`), hex. */
export function entryDigest(entry: Omit<IntakeEntry, 'token'> & { token?: string }): string {
  const { token: _token, ...rest } = entry;
  return sha256Hex(canonicalJson(rest));
}

export function receiptPayload(r: Omit<IntakeReceipt, 'signature'> & { signature?: string }): Record<string, unknown> {
  const { signature: _signature, ...rest } = r;
  return rest;
}

export function sealDigest(seal: SealRecord): string {
  return sha256Hex(canonicalJson(seal));
}

/** Where intake stores a system's file of a kind, from the study root. */
export function storedPath(kind: IntakeKind, systemId: string): string {
  return `inputs/${kind}/${systemId}.jsonl`;
}

/** RFC 6962 root over the entry digests (leaves 0x00 ‖ digest bytes), hex. */
export function logRoot(entryDigests: readonly string[]): string {
  return rootFromLeafHashes(entryDigests.map(leafHashOfHex)).toString('hex');
}

/** The audit path of entry `index` among `entryDigests`, hex. */
export function logAuditPath(entryDigests: readonly string[], index: number): string[] {
  return inclusionPath(entryDigests.map(leafHashOfHex), index).map((b) => b.toString('hex'));
}

/** RFC 9162 §2.1.3.2: is `digest` leaf `index` of a log of `size` entries whose root is `root`? */
export function verifyLogInclusion(digest: string, index: number, size: number, path: readonly string[], root: string): boolean {
  return verifyInclusion(leafHashOfHex(digest), index, size, path.map(hashFromHex), hashFromHex(root)).ok;
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** What is wrong with a value read as an intake request (schemas/intake-request.schema.json); empty: it is one. */
export function requestProblems(value: unknown): string[] {
  return schemaProblems('intake-request', value);
}

/** What is wrong with a value read as a log entry (its request is checked by requestProblems). */
export function entryProblems(value: unknown): string[] {
  if (!isRecord(value)) return ['an intake entry is a JSON object'];
  const p: string[] = [];
  for (const k of Object.keys(value))
    if (!['seq', 'prev', 'request', 'lines_read', 'lines_rejected', 'token'].includes(k)) p.push(`unknown member ${JSON.stringify(k)}`);
  if (!isCount(value.seq)) p.push('seq must be a non-negative integer');
  if (!isHex64(value.prev)) p.push('prev must be 64 lowercase hex digits');
  if (!isCount(value.lines_read) || !isCount(value.lines_rejected)) p.push('lines_read and lines_rejected must be non-negative integers');
  if (typeof value.token !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(value.token)) p.push('token must be base64');
  p.push(...requestProblems(value.request).map((x) => `request: ${x}`));
  return p;
}

/** What is wrong with a value read as inputs/seal.json (schemas/seal.schema.json); empty: it is one. */
export function sealProblems(value: unknown): string[] {
  return schemaProblems('seal', value);
}

/**
 * Where an entry dated `genTime` (its token's, never a local clock) falls against the study window:
 * null inside [opens_at, closes_at), else the code and why. One rule for intake, which refuses the
 * entry, and for the log's check, which fails it.
 */
export function entryTimeFinding(
  genTime: string,
  window: { opens_at: string; closes_at: string },
): { code: 'INTAKE_EARLY' | 'INTAKE_LATE'; problem: string } | null {
  const at = utcMillis(genTime)!;
  if (at < utcMillis(window.opens_at)!) return { code: 'INTAKE_EARLY', problem: `dated ${genTime}, before opens_at ${window.opens_at}` };
  if (at >= utcMillis(window.closes_at)!)
    return { code: 'INTAKE_LATE', problem: `dated ${genTime}, not before closes_at ${window.closes_at}` };
  return null;
}
