// The study's trust directory, loaded: the files read (pipeline/io/trust-files.ts) and decoded
// (evidence/trust/) once, for every stage that verifies against it.
import type { TsaTrust } from '../evidence/timestamp/index.ts';
import { buildTrustMaterialFrom, type TrustMaterial } from '../evidence/trust/index.ts';
import type { TrustPolicy } from '../formats/trust-policy.ts';
import { checkTrustPolicy, readTrustInputs, trustPath } from '../io/trust-files.ts';
import { decodeText, parseJsonAt } from '../io/json-files.ts';
import { toPlain } from '../formats/canonical-json.ts';
import { shown } from '../text/display.ts';
import type { ReadTree } from './file-tree.ts';
import { join, relative, resolve, sep } from 'node:path';
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

/** policy.json as the read of the trust directory holds it (`tree`: readTree of `dir`, keeping every file). */
export function trustPolicyFromTree(dir: string, tree: ReadTree): TrustPolicy {
  const path = join(dir, 'policy.json');
  return checkTrustPolicy(toPlain(parseJsonAt(decodeText(treeFile(dir, tree, 'policy.json'), path), path)), path);
}

/** loadTrust over the bytes the trust directory's digest was taken from: what is decoded is what was hashed. */
export function trustFromTree(dir: string, tree: ReadTree, policy: TrustPolicy): LoadedTrust {
  const material = buildTrustMaterialFrom(readTrustInputs(dir, policy, (rel) => decodeText(treeFile(dir, tree, rel), join(dir, rel))));
  return { dir, policy: material.inputs.policy, tsa: material.tsa, material };
}

/** A file the policy names, from the tree: refused as trustPath refuses a path outside the directory, FILE_NOT_FOUND when the tree has no such file. */
export function treeFile(dir: string, tree: ReadTree, name: string): Buffer {
  const key = relative(resolve(dir), trustPath(dir, name)).split(sep).join('/');
  const data = tree.kept.get(key);
  if (data === undefined) throw new PreregError('FILE_NOT_FOUND', `${shown(join(dir, name))} cannot be read (ENOENT)`, { path: join(dir, name) });
  return data;
}
