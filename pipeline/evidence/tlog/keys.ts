// The transparency-log keys of the trust policy (SPEC §5.4), decoded once: the log keys
// (tlog_keys: who signs SETs and checkpoints) and the issuer's submitter keys
// (tlog_submitter_keys: who signs the entries). Pure: the caller reads the PEM files, inside the
// trust directory, and hands in their texts in the policy's order.
//
// Both kinds are ECDSA P-256 or Ed25519 SubjectPublicKeyInfo PEM files, with half-open windows
// [valid_from, valid_until); `valid_until: null` (or, for a log key, absent) means no end.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { sha256Hex } from '../../formats/hash.ts';
import { utcMillis } from '../../formats/utc-instant.ts';
import type { TrustPolicy } from '../../formats/trust-policy.ts';
import { PreregError } from '../../reasons.ts';

/** One pinned log key, decoded once (loadTlogKeys); the window is half-open [from_ms, until_ms). */
export interface PinnedLogKey {
  readonly log_id: string;
  /** ECDSA P-256 or Ed25519. */
  readonly key: KeyObject;
  readonly from_ms?: number;
  readonly until_ms?: number;
}

/** One of the issuer's pinned transparency-log signing keys; no until_ms: no end. */
export interface PinnedSubmitterKey {
  readonly key_id: string;
  /** ECDSA P-256 or Ed25519. */
  readonly key: KeyObject;
  readonly from_ms: number;
  readonly until_ms?: number;
}

export type TlogKeyPolicy = NonNullable<TrustPolicy['tlog_keys']>[number];
export type TlogSubmitterKeyPolicy = NonNullable<TrustPolicy['tlog_submitter_keys']>[number];

/** Rekor's log id of a key: hex SHA-256 of its DER SubjectPublicKeyInfo. */
export function logIdOf(key: KeyObject): string {
  return sha256Hex(key.export({ type: 'spki', format: 'der' }));
}

/**
 * Decode the policy's tlog_keys once. `pems[i]` is the text of `entries[i].public_key_file`.
 * Throws PreregError TRUST_POLICY_INVALID for a file that is not one PEM SPKI public key, a key
 * that is neither ECDSA P-256 nor Ed25519, a log_id that is not the key's (hex SHA-256 of its DER
 * SPKI), a log_id given twice, or a window that is not ISO-8601 UTC or is empty.
 */
export function loadTlogKeys(entries: readonly TlogKeyPolicy[] | undefined, pems: readonly string[]): PinnedLogKey[] {
  const list = entries ?? [];
  if (list.length !== pems.length) throw new TypeError(`loadTlogKeys: ${list.length} tlog_keys but ${pems.length} PEM texts`);
  const seen = new Set<string>();
  return list.map((entry, i): PinnedLogKey => {
    const where = `tlog_keys[${i}] (${entry.public_key_file})`;
    const key = readPinnedPublicKey(pems[i]!, where, 'a log key');
    const id = logIdOf(key);
    if (entry.log_id !== id) invalid(`${where}: log_id ${entry.log_id} is not this key's log id ${id} (hex SHA-256 of its DER SPKI)`);
    if (seen.has(id)) invalid(`${where}: log_id ${id} is pinned twice`);
    seen.add(id);
    const from_ms = entry.valid_from === undefined ? undefined : instant(entry.valid_from, `${where}: valid_from`);
    const until_ms =
      entry.valid_until === undefined || entry.valid_until === null ? undefined : instant(entry.valid_until, `${where}: valid_until`);
    if (from_ms !== undefined && until_ms !== undefined && !(from_ms < until_ms))
      invalid(`${where}: the window [valid_from, valid_until) is empty`);
    return Object.freeze({
      log_id: id,
      key,
      ...(from_ms === undefined ? {} : { from_ms }),
      ...(until_ms === undefined ? {} : { until_ms }),
    });
  });
}

/**
 * Decode the policy's tlog_submitter_keys once. `pems[i]` is the text of
 * `entries[i].public_key_file`. Throws PreregError TRUST_POLICY_INVALID for a file that is not
 * one PEM SPKI public key, a key that is neither ECDSA P-256 nor Ed25519, a key_id given twice, or
 * a window that is not ISO-8601 UTC or is empty.
 */
export function loadTlogSubmitterKeys(
  entries: readonly TlogSubmitterKeyPolicy[] | undefined,
  pems: readonly string[],
): PinnedSubmitterKey[] {
  const list = entries ?? [];
  if (list.length !== pems.length)
    throw new TypeError(`loadTlogSubmitterKeys: ${list.length} tlog_submitter_keys but ${pems.length} PEM texts`);
  const seen = new Set<string>();
  return list.map((entry, i): PinnedSubmitterKey => {
    const where = `tlog_submitter_keys[${i}] (key_id ${JSON.stringify(entry.key_id)}, ${entry.public_key_file})`;
    if (seen.has(entry.key_id)) invalid(`${where}: key_id given twice`);
    seen.add(entry.key_id);
    const key = readPinnedPublicKey(pems[i]!, where, 'a transparency-log submitter key');
    const from_ms = instant(entry.valid_from, `${where}: valid_from`);
    const until_ms = entry.valid_until === null ? undefined : instant(entry.valid_until, `${where}: valid_until`);
    if (until_ms !== undefined && !(from_ms < until_ms)) invalid(`${where}: the window [valid_from, valid_until) is empty`);
    return Object.freeze({ key_id: entry.key_id, key, from_ms, ...(until_ms === undefined ? {} : { until_ms }) });
  });
}

const SPKI_PEM = /^\s*-----BEGIN PUBLIC KEY-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END PUBLIC KEY-----\s*$/;

/** One PEM SubjectPublicKeyInfo and nothing else, of any key type; undefined when it is not one or does not parse. */
export function parseSpkiPem(pem: string): KeyObject | undefined {
  const m = SPKI_PEM.exec(pem);
  if (!m) return undefined;
  try {
    return createPublicKey({ key: Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'), format: 'der', type: 'spki' });
  } catch {
    return undefined;
  }
}

/** One PEM SubjectPublicKeyInfo, ECDSA P-256 or Ed25519; anything else is TRUST_POLICY_INVALID. */
function readPinnedPublicKey(pem: string, where: string, what: string): KeyObject {
  if (!SPKI_PEM.test(pem)) invalid(`${where}: not one PEM public key (-----BEGIN PUBLIC KEY-----)`);
  const key = parseSpkiPem(pem);
  if (key === undefined) invalid(`${where}: the public key does not parse`);
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (!(key.asymmetricKeyType === 'ed25519' || (key.asymmetricKeyType === 'ec' && curve === 'prime256v1'))) {
    invalid(`${where}: ${what} must be ECDSA P-256 or Ed25519, not ${key.asymmetricKeyType}${curve ? ` ${curve}` : ''}`);
  }
  return key;
}

function instant(text: string, where: string): number {
  const ms = utcMillis(text);
  if (ms === undefined) invalid(`${where} ${JSON.stringify(text)} is not an ISO-8601 UTC instant`);
  return ms;
}

function invalid(message: string): never {
  throw new PreregError('TRUST_POLICY_INVALID', `trust policy: ${message}`);
}
