// Trust material (SPEC §5.4): everything pinned in preregistration/trust/ that a proof is
// verified against, decoded ONCE and passed down, never looked up from globals.
// Pure: the caller reads the files (pipeline/io/trust-files.ts; the study's trust directory, pipeline/study/trust.ts) and hands in the policy and the
// texts of the files it names: TSA roots, supplied TSA certificates (tsa_certs), log keys
// (tlog_keys) and the issuer's log-signing keys (tlog_submitter_keys). docs/trust.md.
//
// Verification runs on worker threads too: KeyObjects and pkijs certificates do not cross a
// thread boundary as they are, so a worker rebuilds the material from `TrustMaterialInputs`,
// plain data that structuredClone / postMessage carry unchanged. Rebuilding costs one JWK import
// per pinned key (≈10 µs measured here), one parse per TSA certificate and one SPKI import per
// log or submitter key.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { loadTsaTrust, type TsaTrust } from '../timestamp/index.ts';
import { loadTlogKeys, loadTlogSubmitterKeys } from '../tlog/index.ts';
import type { TlogMaterial } from '../tlog/index.ts';
import type { TrustMaterialInputs, TrustPolicy } from '../../formats/trust-policy.ts';

export type { TrustMaterialInputs };
import { utcMillis } from '../../formats/utc-instant.ts';
import { PreregError } from '../../reasons.ts';

/** The batch allowance when the policy gives none (SPEC §6.1: a production batch token trails its proof by 604 s). */
export const DEFAULT_BATCH_MAX_SKEW_SECONDS = 900;

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
  /** Epoch milliseconds (fractions kept) of valid_until, exclusive; absent when valid_until is null (no end). */
  readonly until_ms?: number;
}

/** The policy's numbers a verifier needs. */
export interface ProofPolicy {
  readonly requireTsaToken: boolean;
  readonly maxSkewSeconds: number;
  readonly batchMaxSkewSeconds: number;
  readonly requireReceipts: boolean;
}

/** The texts of the files the policy names beyond its TSA roots and log keys (buildTrustMaterial). */
interface MoreTrustTexts {
  tsaCertPems?: string[];
  tlogSubmitterKeyPems?: string[];
}

export interface TrustMaterial {
  readonly keys: readonly PinnedKey[];
  readonly tsa: TsaTrust;
  /** The pinned log keys, and the issuer's log-signing keys an entry's submitter must be one of (tlog/rekor-entry.ts). */
  readonly tlog: TlogMaterial;
  readonly policy: ProofPolicy;
  /** What this material was built from: post it to a worker, rebuild with buildTrustMaterialFrom. */
  readonly inputs: TrustMaterialInputs;
}

const ED25519_PREFIX = 'ed25519:';
const BASE64URL_43 = /^[A-Za-z0-9_-]{43}$/;

/**
 * Decode the pinned keys, TSA certificates, log keys and submitter keys. Throws PreregError
 * TRUST_POLICY_INVALID for a key that is not an Ed25519 public key, a window that is not
 * ISO-8601 UTC or is empty (from ≥ until; `valid_until: null` is no end), or a key_id given
 * twice; for a log or submitter key as tlog/keys.ts says; TSA_TRUST_INVALID for a TSA root or
 * supplied certificate that does not parse (timestamp/rfc3161.ts). `tlogKeyPems[i]` is the text of
 * `policy.tlog_keys[i].public_key_file`; `more` holds the texts of tsa_certs and of
 * tlog_submitter_keys[i].public_key_file, in the policy's order.
 */
export function buildTrustMaterial(
  policy: TrustPolicy,
  tsaRootPems: string[],
  tlogKeyPems: string[] = [],
  more: MoreTrustTexts = {},
): TrustMaterial {
  const tsaCertPems = more.tsaCertPems ?? [];
  const submitterPems = more.tlogSubmitterKeyPems ?? [];
  const tsaCerts = policy.tsa_certs ?? [];
  if (tsaRootPems.length !== policy.tsa_roots.length)
    throw new TypeError(`buildTrustMaterial: ${policy.tsa_roots.length} tsa_roots but ${tsaRootPems.length} PEM texts`);
  if (tsaCertPems.length !== tsaCerts.length)
    throw new TypeError(`buildTrustMaterial: ${tsaCerts.length} tsa_certs but ${tsaCertPems.length} PEM texts`);
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
      key = importEd25519Raw(raw);
    } catch (e) {
      invalid(`${where}: public_key is not an Ed25519 key (${e instanceof Error ? e.message : String(e)})`);
    }
    const from_ms = utcMillis(entry.valid_from);
    const until_ms = entry.valid_until === null ? null : utcMillis(entry.valid_until);
    if (from_ms === undefined) invalid(`${where}: valid_from ${JSON.stringify(entry.valid_from)} is not an ISO-8601 UTC instant`);
    if (until_ms === undefined)
      invalid(`${where}: valid_until ${JSON.stringify(entry.valid_until)} is not an ISO-8601 UTC instant (or null: no end)`);
    if (until_ms !== null && !(from_ms < until_ms)) invalid(`${where}: the window [valid_from, valid_until) is empty`);
    return Object.freeze({
      key_id: entry.key_id,
      public_key: entry.public_key,
      x,
      key,
      from_ms,
      ...(until_ms === null ? {} : { until_ms }),
    });
  });
  const batchMaxSkewSeconds = policy.batch_max_skew_seconds ?? DEFAULT_BATCH_MAX_SKEW_SECONDS;
  for (const [name, value] of [
    ['max_skew_seconds', policy.max_skew_seconds],
    ['batch_max_skew_seconds', batchMaxSkewSeconds],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < 0) invalid(`${name} must be a non-negative integer`);
  }
  // The log's submitter must be one of the issuer's log-signing keys, pinned apart from its proof
  // keys: ArkForge signs Rekor entries with ECDSA P-256 keys, its proofs with Ed25519 ones.
  const tlog: TlogMaterial = Object.freeze({
    logKeys: Object.freeze(loadTlogKeys(policy.tlog_keys ?? [], tlogKeyPems)),
    submitterKeys: Object.freeze(loadTlogSubmitterKeys(policy.tlog_submitter_keys ?? [], submitterPems)),
  });
  const inputs: TrustMaterialInputs = {
    policy,
    tsaRootPems,
    tlogKeyPems,
    ...(tsaCertPems.length > 0 ? { tsaCertPems } : {}),
    ...(submitterPems.length > 0 ? { tlogSubmitterKeyPems: submitterPems } : {}),
  };
  return Object.freeze({
    keys: Object.freeze(keys),
    tsa: loadTsaTrust(tsaRootPems, tsaCertPems, { roots: policy.tsa_roots, certs: tsaCerts }),
    tlog,
    policy: Object.freeze({
      requireTsaToken: policy.require_tsa_token,
      maxSkewSeconds: policy.max_skew_seconds,
      batchMaxSkewSeconds,
      requireReceipts: policy.require_receipts,
    }),
    inputs: structuredClone(inputs),
  });
}

/** Rebuild from plain data (a worker thread's entry point). */
export function buildTrustMaterialFrom(inputs: TrustMaterialInputs): TrustMaterial {
  return buildTrustMaterial(inputs.policy, inputs.tsaRootPems, inputs.tlogKeyPems, {
    tsaCertPems: inputs.tsaCertPems ?? [],
    tlogSubmitterKeyPems: inputs.tlogSubmitterKeyPems ?? [],
  });
}

/** The plain, structured-cloneable inputs of a TrustMaterial. */
export function trustMaterialInputs(material: TrustMaterial): TrustMaterialInputs {
  return structuredClone(material.inputs);
}

/** The raw 32 bytes of `ed25519:<base64url>` (43 characters, no padding), or undefined. */
/**
 * The one import of a raw 32-byte Ed25519 public key: as a JWK, ≈ 15× faster than the DER SPKI
 * form. Throws when the bytes are no key; callers say whose key it was.
 */
export function importEd25519Raw(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, format: 'jwk' });
}

export function decodeEd25519PublicKey(text: string): Buffer | undefined {
  if (!text.startsWith(ED25519_PREFIX)) return undefined;
  const body = text.slice(ED25519_PREFIX.length);
  if (!BASE64URL_43.test(body)) return undefined;
  const raw = Buffer.from(body, 'base64url');
  return raw.length === 32 ? raw : undefined;
}

function invalid(message: string): never {
  throw new PreregError('TRUST_POLICY_INVALID', `trust policy: ${message}`);
}
