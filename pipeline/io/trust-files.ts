// Reads preregistration/trust/: the policy and every file it names, decoded once. Every stage
// that reads the trust directory (freeze, anchor, check-anchors, verify, emit, audit through
// them) goes through loadTrust or readTrustInputs, so a file the policy names that is missing or
// does not decode blocks all of them alike (docs/trust.md).
import { join, resolve, sep } from 'node:path';
import type { TsaTrust } from '../evidence/timestamp/index.ts';
import { buildTrustMaterialFrom, type TrustMaterial, type TrustMaterialInputs } from '../evidence/trust/index.ts';
import { schemaProblems } from '../formats/schemas.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { readJsonFile, readText } from './json-files.ts';

/** A window's end: an ISO-8601 UTC instant, exclusive, or null for no end. */
export type WindowEnd = string | null;

export interface TrustPolicy {
  format: 'prereg.trust/1';
  arkforge_keys: Array<{ key_id: string; public_key: string; valid_from: string; valid_until: WindowEnd }>;
  tsa_roots: string[];
  /** TSA signing and intermediate certificates for tokens that carry none; never anchors. */
  tsa_certs?: string[];
  tlog_keys?: Array<{ log_id: string; public_key_file: string; valid_from?: string; valid_until?: WindowEnd }>;
  /** The issuer's transparency-log signing keys (ECDSA P-256 or Ed25519). */
  tlog_submitter_keys?: Array<{ key_id: string; public_key_file: string; valid_from: string; valid_until: WindowEnd }>;
  operator_public_key?: string;
  require_tsa_token: boolean;
  max_skew_seconds: number;
  /** Absent: DEFAULT_BATCH_MAX_SKEW_SECONDS (900). */
  batch_max_skew_seconds?: number;
  require_receipts: boolean;
}

/** The policy's members in the order the schema lists them: how a rewritten policy orders new ones. */
export const TRUST_POLICY_FIELDS = [
  'format',
  'arkforge_keys',
  'tsa_roots',
  'tsa_certs',
  'tlog_keys',
  'tlog_submitter_keys',
  'operator_public_key',
  'require_tsa_token',
  'max_skew_seconds',
  'batch_max_skew_seconds',
  'require_receipts',
] as const satisfies ReadonlyArray<keyof TrustPolicy>;

export interface LoadedTrust {
  dir: string;
  policy: TrustPolicy;
  tsa: TsaTrust;
  /** Everything the policy pins, decoded (and so validated). */
  material: TrustMaterial;
}

/** A path named by the policy must stay inside the trust directory (it is what the freeze covers). */
export function trustPath(dir: string, relative: string): string {
  const abs = resolve(dir, relative);
  if (!abs.startsWith(resolve(dir) + sep)) {
    throw new PreregError('TRUST_POLICY_INVALID', `${relative} is outside the trust directory`, EXIT.blocked);
  }
  return abs;
}

export function loadTrustPolicy(dir: string): TrustPolicy {
  const path = join(dir, 'policy.json');
  return checkTrustPolicy(readJsonFile(path), path);
}

/** `value` as a policy, or TRUST_POLICY_INVALID naming `path` and the schema's problems. */
export function checkTrustPolicy(value: unknown, path: string): TrustPolicy {
  const problems = schemaProblems('trust-policy', value);
  if (problems.length > 0) {
    throw new PreregError('TRUST_POLICY_INVALID', `${path}: ${problems.join('; ')}`, EXIT.blocked, { path, problems });
  }
  return value as TrustPolicy;
}

/** Every file the policy names, relative to the trust directory, in the order the material reads them. */
export function namedTrustFiles(policy: TrustPolicy): string[] {
  return [
    ...policy.tsa_roots,
    ...(policy.tsa_certs ?? []),
    ...(policy.tlog_keys ?? []).map((k) => k.public_key_file),
    ...(policy.tlog_submitter_keys ?? []).map((k) => k.public_key_file),
  ];
}

/**
 * The policy and the texts of the files it names (tsa_roots, tsa_certs, tlog_keys and
 * tlog_submitter_keys files), as plain data. `read` gives the text of a path relative to the
 * trust directory (default: the file inside `dir`; trust import passes files it is about to write).
 */
export function readTrustInputs(dir: string, policy: TrustPolicy = loadTrustPolicy(dir), read: (relative: string) => string = (rel) => readText(trustPath(dir, rel))): TrustMaterialInputs {
  return {
    policy,
    tsaRootPems: policy.tsa_roots.map(read),
    tlogKeyPems: (policy.tlog_keys ?? []).map((k) => read(k.public_key_file)),
    tsaCertPems: (policy.tsa_certs ?? []).map(read),
    tlogSubmitterKeyPems: (policy.tlog_submitter_keys ?? []).map((k) => read(k.public_key_file)),
  };
}

/** The policy and everything it pins, read and decoded once: throws for any file that is missing or invalid. */
export function loadTrust(dir: string): LoadedTrust {
  const material = buildTrustMaterialFrom(readTrustInputs(dir));
  return { dir, policy: material.inputs.policy, tsa: material.tsa, material };
}

/** The policy as the project writes it: two-space JSON, members in the order given, one final newline. */
export function renderTrustPolicy(policy: TrustPolicy): string {
  return `${JSON.stringify(policy, null, 2)}\n`;
}
