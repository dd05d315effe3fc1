// A directory as a list of Merkle leaves {path, bytes, sha256} (SPEC §4.1). Used for the corpus
// and for the trust directory, so that every byte of either is covered by one root.
import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { canonicalJsonBytes } from '../formats/canonical-json.ts';
import { sha256Hex } from '../formats/hash.ts';
import { hashLeaf, rootFromLeafHashes } from '../formats/merkle.ts';
import { PreregError } from '../reasons.ts';
import { readRegularFile } from '../io/regular-file.ts';

export interface TreeLeaf {
  path: string;
  bytes: number;
  sha256: string;
}

export interface TreeDigest {
  root: string;
  leaf_count: number;
  files: TreeLeaf[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function unsafe(path: string, why: string): PreregError {
  return new PreregError('CORPUS_PATH_UNSAFE', `${path}: ${why}`, { path });
}

/** Relative paths of every regular file under `dir`, refusing anything that is not one. */
function listRegularFiles(dir: string): string[] {
  const top = lstatSync(dir, { throwIfNoEntry: false });
  if (!top) throw new PreregError('FILE_NOT_FOUND', `${dir} does not exist`, { path: dir });
  if (!top.isDirectory()) throw unsafe(dir, 'is not a directory (symlinked roots are refused too)');
  const out: string[] = [];
  const walk = (abs: Buffer, rel: string) => {
    const entries = readdirSync(abs, { withFileTypes: true, encoding: 'buffer' }) as Dirent<Buffer>[];
    for (const entry of entries) {
      let name: string;
      try {
        name = utf8.decode(entry.name);
      } catch {
        throw unsafe(`${rel}${entry.name.toString('latin1')}`, 'file name is not valid UTF-8');
      }
      const relPath = rel + name;
      const absPath = Buffer.concat([abs, Buffer.from('/'), entry.name]);
      const st = lstatSync(absPath);
      if (st.isSymbolicLink()) throw unsafe(relPath, 'is a symbolic link');
      if (st.isDirectory()) walk(absPath, `${relPath}/`);
      else if (st.isFile()) out.push(relPath);
      else throw unsafe(relPath, 'is not a regular file (device, FIFO or socket)');
    }
  };
  walk(Buffer.from(dir), '');
  // Two names that differ only in Unicode normalisation are one name to a reader.
  const seen = new Map<string, string>();
  for (const p of out) {
    const nfc = p.normalize('NFC');
    const other = seen.get(nfc);
    if (other !== undefined) throw unsafe(p, `differs from ${other} only in Unicode normalisation`);
    seen.set(nfc, p);
  }
  // Sorted by UTF-8 bytes (SPEC §4.1), not by UTF-16 units.
  return out.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

export function leafHash(leaf: TreeLeaf): Buffer {
  return hashLeaf(canonicalJsonBytes({ path: leaf.path, bytes: leaf.bytes, sha256: leaf.sha256 }));
}

export function digestTree(dir: string): TreeDigest {
  return readTree(dir, () => false).digest;
}

/** A tree's digest and the bytes of the files `keep` names, from the one read that hashed them. */
export interface ReadTree {
  digest: TreeDigest;
  /** By relative path: the very bytes whose leaf is in `digest`. */
  kept: ReadonlyMap<string, Buffer>;
}

/**
 * Digests `dir`, keeping the bytes of each file `keep` accepts: what is then parsed (the corpus's
 * documents, the trust directory's files) is what was hashed, with no second read between.
 */
export function readTree(dir: string, keep: (path: string) => boolean): ReadTree {
  const kept = new Map<string, Buffer>();
  const files = listRegularFiles(dir).map((path): TreeLeaf => {
    let data: Buffer;
    try {
      // Listed as a regular file; opened refusing a link, so a swap after the listing is caught too.
      data = readRegularFile(join(dir, path), { noFollow: true });
    } catch (err) {
      if (err instanceof PreregError && err.code === 'INPUT_NOT_REGULAR_FILE')
        throw unsafe(path, 'is no longer a regular file (it changed while the tree was read)');
      throw err;
    }
    if (keep(path)) kept.set(path, data);
    return { path, bytes: data.length, sha256: sha256Hex(data) };
  });
  return { digest: { root: rootFromLeafHashes(files.map(leafHash)).toString('hex'), leaf_count: files.length, files }, kept };
}

/** Names what changed between a frozen file list and the current one. */
export function diffTrees(frozen: readonly TreeLeaf[], current: readonly TreeLeaf[]): string[] {
  const before = new Map(frozen.map((l) => [l.path, l]));
  const after = new Map(current.map((l) => [l.path, l]));
  const changes: string[] = [];
  for (const [path, leaf] of before) {
    const now = after.get(path);
    if (!now) changes.push(`${path}: removed`);
    else if (now.sha256 !== leaf.sha256 || now.bytes !== leaf.bytes) changes.push(`${path}: content changed`);
  }
  for (const path of after.keys()) if (!before.has(path)) changes.push(`${path}: added`);
  return changes.sort();
}
