// Reads preregistration/trust/: the policy and the material it names, decoded once.
import { join, resolve, sep } from 'node:path';
import { loadTsaTrust, type TsaTrust } from '../evidence/rfc3161.ts';
import { schemaProblems } from '../formats/schemas.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { readJsonFile, readText } from './json-files.ts';

export interface TrustPolicy {
  format: 'prereg.trust/1';
  arkforge_keys: Array<{ key_id: string; public_key: string; valid_from: string; valid_until: string }>;
  tsa_roots: string[];
  tlog_keys?: Array<{ log_id: string; public_key_file: string; valid_from?: string; valid_until?: string }>;
  operator_public_key?: string;
  require_tsa_token: boolean;
  max_skew_seconds: number;
  batch_max_skew_seconds: number;
  require_receipts: boolean;
}

export interface LoadedTrust {
  dir: string;
  policy: TrustPolicy;
  tsa: TsaTrust;
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
  const value = readJsonFile(path);
  const problems = schemaProblems('trust-policy', value);
  if (problems.length > 0) {
    throw new PreregError('TRUST_POLICY_INVALID', `${path}: ${problems.join('; ')}`, EXIT.blocked, { path, problems });
  }
  return value as TrustPolicy;
}

export function loadTrust(dir: string): LoadedTrust {
  const policy = loadTrustPolicy(dir);
  const pems = policy.tsa_roots.map((p) => readText(trustPath(dir, p)));
  return { dir, policy, tsa: loadTsaTrust(pems) };
}
