// Reads a trust directory: the policy and the texts of every file it names, as plain data, each
// through a reader (by default the file itself; a study's stages pass the bytes their loaded study
// hashed, study/trust.ts). Decoding them is evidence/trust/. Every stage goes through
// readTrustInputs, so a file the policy names that is missing or does not decode blocks all of
// them alike (docs/trust.md).
import { join, resolve, sep } from 'node:path';
import { schemaProblems } from '../formats/schemas.ts';
import type { TrustMaterialInputs, TrustPolicy } from '../formats/trust-policy.ts';
import { PreregError } from '../reasons.ts';
import { readJsonFile, readText } from './json-files.ts';
import { isWithin } from './real-path.ts';

/**
 * A path named by the policy must stay inside the trust directory (it is what the freeze covers),
 * judged on real paths: a symlink in the trust directory to a file elsewhere is outside it.
 */
export function trustPath(dir: string, relative: string): string {
  const abs = resolve(dir, relative);
  if (!abs.startsWith(resolve(dir) + sep) || !isWithin(abs, dir)) {
    throw new PreregError('TRUST_POLICY_INVALID', `${relative} is outside the trust directory`);
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
    throw new PreregError('TRUST_POLICY_INVALID', `${path}: ${problems.join('; ')}`, { path, problems });
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
export function readTrustInputs(
  dir: string,
  policy: TrustPolicy = loadTrustPolicy(dir),
  read: (relative: string) => string = (rel) => readText(trustPath(dir, rel)),
): TrustMaterialInputs {
  return {
    policy,
    tsaRootPems: policy.tsa_roots.map(read),
    tlogKeyPems: (policy.tlog_keys ?? []).map((k) => read(k.public_key_file)),
    tsaCertPems: (policy.tsa_certs ?? []).map(read),
    tlogSubmitterKeyPems: (policy.tlog_submitter_keys ?? []).map((k) => read(k.public_key_file)),
  };
}

/** The policy as the project writes it: two-space JSON, members in the order given, one final newline. */
export function renderTrustPolicy(policy: TrustPolicy): string {
  return `${JSON.stringify(policy, null, 2)}\n`;
}
