// A trust directory, loaded: the files read and decoded (evidence/trust/). A study's stages take it
// from the tree their loaded study read (trustInputsFromTree: what is decoded is what was hashed);
// loadTrust reads any other directory (`verify FILE --trust DIR`), trustFromMemory texts in hand.
import type { TsaTrust } from '../evidence/timestamp/index.ts';
import { buildTrustMaterialFrom, type TrustMaterial } from '../evidence/trust/index.ts';
import type { TrustMaterialInputs, TrustPolicy } from '../formats/trust-policy.ts';
import { checkTrustPolicy, readTrustInputs, trustPath } from '../io/trust-files.ts';
import { decodeText, parseJsonBytes } from '../io/json-files.ts';
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
  const material = buildTrustMaterialFrom(
    readTrustInputs('', checked, (name) => {
      if (!Object.hasOwn(files, name))
        throw new PreregError('FILE_NOT_FOUND', `the policy names ${JSON.stringify(name)}, and no file of that name was given`, {
          file: name,
        });
      return files[name]!;
    }),
  );
  return { dir: null, policy: material.inputs.policy, tsa: material.tsa, material };
}

/** policy.json as the read of the trust directory holds it (`tree`: readTree of `dir`, keeping every file). */
export function trustPolicyFromTree(dir: string, tree: ReadTree): TrustPolicy {
  const path = join(dir, 'policy.json');
  return checkTrustPolicy(parseJsonBytes(treeFile(dir, tree, 'policy.json'), path), path);
}

/** The texts of the files the policy names, from the bytes the trust directory's digest was taken from. */
export function trustInputsFromTree(dir: string, tree: ReadTree, policy: TrustPolicy): TrustMaterialInputs {
  return readTrustInputs(dir, policy, (rel) => treeText(dir, tree, rel));
}

/** loadTrust over those texts: what is decoded is what was hashed. */
export function trustFromInputs(dir: string, inputs: TrustMaterialInputs): LoadedTrust {
  const material = buildTrustMaterialFrom(inputs);
  return { dir, policy: material.inputs.policy, tsa: material.tsa, material };
}

/** A policy-named file's leaf in the trust directory's tree (a path outside the directory is refused as trustPath refuses it). */
export function trustLeaf(dir: string, name: string): string {
  return relative(resolve(dir), trustPath(dir, name)).split(sep).join('/');
}

/** The text of a file the policy names, from the tree (JSON_NOT_UTF8 when it is not UTF-8). */
export function treeText(dir: string, tree: ReadTree, name: string): string {
  return decodeText(treeFile(dir, tree, name), join(dir, name));
}

/**
 * A file the policy names, from the tree: FILE_NOT_FOUND when the directory has no such file,
 * INPUT_NOT_REGULAR_FILE when the name is one of its directories.
 */
export function treeFile(dir: string, tree: ReadTree, name: string): Buffer {
  const key = trustLeaf(dir, name);
  const data = tree.kept.get(key);
  if (data !== undefined) return data;
  const path = join(dir, name);
  if (tree.digest.files.some((f) => f.path.startsWith(`${key}/`))) {
    throw new PreregError(
      'INPUT_NOT_REGULAR_FILE',
      `${shown(path)} is a directory, not a regular file: inputs are read only from regular files`,
      { path },
    );
  }
  throw new PreregError('FILE_NOT_FOUND', `${shown(path)} cannot be read (ENOENT)`, { path });
}
