// Trust material (SPEC §5.4): everything pinned in preregistration/trust/ that a proof is
// verified against, decoded ONCE and passed down (STYLE.md: never looked up from globals).
// Pure: the caller reads the files (pipeline/io/trust-files.ts) and hands in the policy, the TSA
// roots' PEM texts and the pinned transparency-log keys' PEM texts.
//
// Verification will run on worker threads: KeyObjects and pkijs certificates do not cross a
// thread boundary as they are, so a worker rebuilds the material from `TrustMaterialInputs`,
// plain data that structuredClone / postMessage carry unchanged. Rebuilding costs one JWK import
// per pinned key (≈10 µs, STACK-NOTES), one parse per TSA root and one SPKI import per log key.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { loadTsaTrust, type TsaTrust } from './rfc3161.ts';
import { loadTlogKeys, type TlogMaterial } from './tlog.ts';
import type { TrustPolicy } from '../io/trust-files.ts';
import { utcMillis } from '../formats/utc-instant.ts';
import { EXIT, PreregError } from '../reasons.ts';

// Re-exported: the evidence modules read instants through here.
export { utcMillis };

/** One pinned ArkForge Ed25519 key with its half-open validity window [from, until). */
export interface PinnedKey {
  readonly key_id: string;
  /** As the policy pins it: ed25519:<base64url of the raw 32 bytes>. */
  readonly public_key: string;
  /** The raw 32 bytes in canonical base64url (no padding), for comparison with embedded keys. */
  readonly x: string;
  readonly key: KeyObject;
  /** Epoch milliseconds (fractions kept) of valid_from, inclusive. */
  readonly from_ms: number;
  /** Epoch milliseconds (fractions kept) of valid_until, exclusive. */
  readonly until_ms: number;
}

/** The policy's numbers a verifier needs. */
export interface ProofPolicy {
  readonly requireTsaToken: boolean;
  readonly maxSkewSeconds: number;
  readonly batchMaxSkewSeconds: number;
  readonly requireReceipts: boolean;
}

/** Plain data from which TrustMaterial is rebuilt (e.g. on a worker thread). */
export interface TrustMaterialInputs {
  policy: TrustPolicy;
  tsaRootPems: string[];
  /** The text of each policy.tlog_keys[i].public_key_file, in the policy's order. */
  tlogKeyPems: string[];
}

export interface TrustMaterial {
  readonly keys: readonly PinnedKey[];
  readonly tsa: TsaTrust;
  /** The pinned log keys, and the pinned issuer keys an entry's submitter must be one of (tlog.ts). */
  readonly tlog: TlogMaterial;
  readonly policy: ProofPolicy;
  /** What this material was built from: post it to a worker, rebuild with buildTrustMaterialFrom. */
  readonly inputs: TrustMaterialInputs;
}

const ED25519_PREFIX = 'ed25519:';
const BASE64URL_43 = /^[A-Za-z0-9_-]{43}$/;

/**
 * Decode the pinned keys, TSA roots and log keys. Throws PreregError TRUST_POLICY_INVALID for a
 * key that is not an Ed25519 public key, a window that is not ISO-8601 UTC or is empty (from ≥
 * until), or a key_id given twice; for a log key as loadTlogKeys says (tlog.ts); TSA_TRUST_INVALID
 * for a TSA root that does not parse (rfc3161.ts). `tlogKeyPems[i]` is the text of
 * `policy.tlog_keys[i].public_key_file` (none when the policy pins no log key).
 */
export function buildTrustMaterial(policy: TrustPolicy, tsaRootPems: string[], tlogKeyPems: string[] = []): TrustMaterial {
  const seen = new Set<string>();
  const keys = policy.arkforge_keys.map((entry, index): PinnedKey => {
    const where = `arkforge_keys[${index}] (key_id ${JSON.stringify(entry.key_id)})`;
    if (seen.has(entry.key_id)) invalid(`${where}: key_id given twice`);
    seen.add(entry.key_id);
    const raw = decodeEd25519PublicKey(entry.public_key);
    if (!raw) invalid(`${where}: public_key must be ed25519:<base64url of 32 bytes>`);
    const x = raw.toString('base64url');
    let key: KeyObject;
    try {
      key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    } catch (e) {
      invalid(`${where}: public_key is not an Ed25519 key (${e instanceof Error ? e.message : String(e)})`);
    }
    const from_ms = utcMillis(entry.valid_from);
    const until_ms = utcMillis(entry.valid_until);
    if (from_ms === undefined) invalid(`${where}: valid_from ${JSON.stringify(entry.valid_from)} is not an ISO-8601 UTC instant`);
    if (until_ms === undefined) invalid(`${where}: valid_until ${JSON.stringify(entry.valid_until)} is not an ISO-8601 UTC instant`);
    if (!(from_ms < until_ms)) invalid(`${where}: the window [valid_from, valid_until) is empty`);
    return Object.freeze({ key_id: entry.key_id, public_key: entry.public_key, x, key, from_ms, until_ms });
  });
  for (const [name, value] of [
    ['max_skew_seconds', policy.max_skew_seconds],
    ['batch_max_skew_seconds', policy.batch_max_skew_seconds],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0) invalid(`${name} must be a non-negative integer`);
  }
  // A log entry's submitter must be a pinned issuer key, whatever its window: the window bounds the
  // proof's timestamp, which the key check decides; the log only says who logged the hash.
  const tlog: TlogMaterial = Object.freeze({
    logKeys: Object.freeze(loadTlogKeys(policy.tlog_keys ?? [], tlogKeyPems)),
    issuerKeys: Object.freeze(keys.map((k) => k.key)),
  });
  return Object.freeze({
    keys: Object.freeze(keys),
    tsa: loadTsaTrust(tsaRootPems),
    tlog,
    policy: Object.freeze({
      requireTsaToken: policy.require_tsa_token,
      maxSkewSeconds: policy.max_skew_seconds,
      batchMaxSkewSeconds: policy.batch_max_skew_seconds,
      requireReceipts: policy.require_receipts,
    }),
    inputs: structuredClone({ policy, tsaRootPems, tlogKeyPems }),
  });
}

/** Rebuild from plain data (a worker thread's entry point). */
export function buildTrustMaterialFrom(inputs: TrustMaterialInputs): TrustMaterial {
  return buildTrustMaterial(inputs.policy, inputs.tsaRootPems, inputs.tlogKeyPems);
}

/** The plain, structured-cloneable inputs of a TrustMaterial. */
export function trustMaterialInputs(material: TrustMaterial): TrustMaterialInputs {
  return structuredClone(material.inputs);
}

/** The raw 32 bytes of `ed25519:<base64url>` (43 characters, no padding), or undefined. */
export function decodeEd25519PublicKey(text: string): Buffer | undefined {
  if (!text.startsWith(ED25519_PREFIX)) return undefined;
  const body = text.slice(ED25519_PREFIX.length);
  if (!BASE64URL_43.test(body)) return undefined;
  const raw = Buffer.from(body, 'base64url');
  return raw.length === 32 ? raw : undefined;
}

function invalid(message: string): never {
  throw new PreregError('TRUST_POLICY_INVALID', `trust policy: ${message}`, EXIT.blocked);
}
