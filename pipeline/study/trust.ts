// The study's trust directory, loaded: the files read (pipeline/io/trust-files.ts) and decoded
// (evidence/trust/) once, for every stage that verifies against it.
import type { TsaTrust } from '../evidence/timestamp/index.ts';
import { buildTrustMaterialFrom, type TrustMaterial } from '../evidence/trust/index.ts';
import type { TrustPolicy } from '../formats/trust-policy.ts';
import { readTrustInputs } from '../io/trust-files.ts';

export interface LoadedTrust {
  dir: string;
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
