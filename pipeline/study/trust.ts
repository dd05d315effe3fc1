// The study's trust directory, loaded: the files read (pipeline/io/trust-files.ts) and decoded
// (evidence/trust/) once, for every stage that verifies against it.
import type { TsaTrust } from '../evidence/timestamp/index.ts';
import { buildTrustMaterialFrom, type TrustMaterial } from '../evidence/trust/index.ts';
import type { TrustPolicy } from '../formats/trust-policy.ts';
import { checkTrustPolicy, readTrustInputs } from '../io/trust-files.ts';
import { PreregError } from '../reasons.ts';

export interface LoadedTrust {
  /** The trust directory read; null for trust built from memory (trustFromMemory). */
  dir: string | null;
  policy: TrustPolicy;
  tsa: TsaTrust;
  /** Everything the policy pins, decoded (and so validated). */
  material: TrustMaterial;
}

/** The policy and everything it pins, read and decoded once: throws for any file that is missing or invalid. */
export function loadTrust(dir: string): LoadedTrust {
  const material = buildTrustMaterialFrom(readTrustInputs(dir));
  return { dir, policy: material.inputs.policy, tsa: material.tsa, material };
}

/**
 * The same trust from texts a program already holds: the policy (parsed JSON, checked against its
 * schema) and each file it names, by the name the policy gives it (e.g. `{"tsa-root.pem": "-----BEGIN…"}`).
 * A named file that `files` lacks, or one that does not decode, throws as loadTrust does.
 */
export function trustFromMemory(policy: unknown, files: Readonly<Record<string, string>>): LoadedTrust {
  const checked = checkTrustPolicy(policy, 'policy');
  const material = buildTrustMaterialFrom(readTrustInputs('', checked, (name) => {
    if (!Object.hasOwn(files, name)) throw new PreregError('FILE_NOT_FOUND', `the policy names ${JSON.stringify(name)}, and no file of that name was given`, { file: name });
    return files[name]!;
  }));
  return { dir: null, policy: material.inputs.policy, tsa: material.tsa, material };
}
