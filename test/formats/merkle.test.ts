import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  hashChildren,
  hashFromHex,
  hashLeaf,
  inclusionPath,
  leafHashOfHex,
  inclusionPathLength,
  rootFromLeafHashes,
  verifyInclusion,
} from '../../pipeline/formats/merkle.ts';

// Certificate Transparency's reference vectors (merkle_tree_test.cc): leaf data and the roots of
// the first 1..8 leaves.
const CT_LEAVES = ['', '00', '10', '2021', '3031', '40414243', '5051525354555657', '606162636465666768696a6b6c6d6e6f'];
const CT_ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

/** RFC 6962 MTH written straight from its recursive definition, independent of the code under test. */
function mth(leaves: Buffer[]): Buffer {
  if (leaves.length === 0) return createHash('sha256').digest();
  if (leaves.length === 1)
    return createHash('sha256')
      .update(Buffer.from([0]))
      .update(leaves[0]!)
      .digest();
  let k = 1;
  while (k * 2 < leaves.length) k *= 2;
  return createHash('sha256')
    .update(Buffer.from([1]))
    .update(mth(leaves.slice(0, k)))
    .update(mth(leaves.slice(k)))
    .digest();
}

const data = (n: number) => Array.from({ length: n }, (_, i) => Buffer.from(`leaf-${i}`));

describe('RFC 6962 Merkle tree', () => {
  it('reproduces the Certificate Transparency reference roots', () => {
    for (let n = 1; n <= CT_LEAVES.length; n++) {
      const hashes = CT_LEAVES.slice(0, n).map((hex) => hashLeaf(Buffer.from(hex, 'hex')));
      expect(rootFromLeafHashes(hashes).toString('hex')).toBe(CT_ROOTS[n - 1]);
    }
  });

  it('agrees with the recursive definition for sizes 0..40 (odd nodes promoted, not duplicated)', () => {
    for (let n = 0; n <= 40; n++) {
      const leaves = data(n);
      expect(rootFromLeafHashes(leaves.map((d) => hashLeaf(d))).equals(mth(leaves))).toBe(true);
    }
    // A duplicating tree (Bitcoin style) would give another root for 3 leaves.
    const three = data(3).map((d) => hashLeaf(d));
    const duplicated = hashChildren(hashChildren(three[0]!, three[1]!), hashChildren(three[2]!, three[2]!));
    expect(rootFromLeafHashes(three).equals(duplicated)).toBe(false);
  });

  it('proves and verifies every leaf of every tree up to 33 leaves', () => {
    for (let n = 1; n <= 33; n++) {
      const hashes = data(n).map((d) => hashLeaf(d));
      const root = rootFromLeafHashes(hashes);
      for (let i = 0; i < n; i++) {
        const path = inclusionPath(hashes, i);
        expect(path.length).toBe(inclusionPathLength(i, n));
        expect(verifyInclusion(hashes[i]!, i, n, path, root)).toEqual({ ok: true });
      }
    }
  });

  it('rejects a path one node too long or too short, an index out of range, a wrong leaf', () => {
    const hashes = data(13).map((d) => hashLeaf(d));
    const root = rootFromLeafHashes(hashes);
    const path = inclusionPath(hashes, 6);
    expect(verifyInclusion(hashes[6]!, 6, 13, [...path, root], root)).toEqual({ ok: false, failure: 'PATH_LENGTH' });
    expect(verifyInclusion(hashes[6]!, 6, 13, path.slice(1), root)).toEqual({ ok: false, failure: 'PATH_LENGTH' });
    expect(verifyInclusion(hashes[6]!, 13, 13, path, root)).toEqual({ ok: false, failure: 'INDEX_OUT_OF_RANGE' });
    expect(verifyInclusion(hashes[6]!, -1, 13, path, root)).toEqual({ ok: false, failure: 'INDEX_OUT_OF_RANGE' });
    expect(verifyInclusion(hashes[7]!, 6, 13, path, root)).toEqual({ ok: false, failure: 'ROOT_MISMATCH' });
    // Overstating the tree size: the same path claimed for a 16-leaf tree has the wrong length.
    expect(verifyInclusion(hashes[12]!, 12, 16, inclusionPath(hashes, 12), root).ok).toBe(false);
  });

  it('refuses a hash that is not 32 bytes before any arithmetic, and reads bad hex as no hash', () => {
    const hashes = data(13).map((d) => hashLeaf(d));
    const root = rootFromLeafHashes(hashes);
    const path = inclusionPath(hashes, 6);
    const short = path.map((h, i) => (i === 1 ? h.subarray(0, 31) : h));
    expect(verifyInclusion(hashes[6]!, 6, 13, short, root)).toEqual({ ok: false, failure: 'HASH_SIZE' });
    expect(verifyInclusion(hashes[6]!, 6, 13, path, root.subarray(0, 16))).toEqual({ ok: false, failure: 'HASH_SIZE' });
    expect(verifyInclusion(hashes[6]!.subarray(0, 31), 6, 13, path, root)).toEqual({ ok: false, failure: 'HASH_SIZE' });
    // Buffer.from('ab…zz', 'hex') stops at the first bad digit; hashFromHex refuses the whole string.
    const hex = path[0]!.toString('hex');
    expect(Buffer.from(hashFromHex(hex)).toString('hex')).toBe(hex);
    expect(Buffer.from(hashFromHex(hex.toUpperCase())).toString('hex')).toBe(hex);
    expect(hashFromHex(`${hex.slice(0, 62)}zz`)).toHaveLength(0);
    expect(hashFromHex(hex.slice(0, 62))).toHaveLength(0);
    expect(hashFromHex(`${hex}00`)).toHaveLength(0);
    const badHexPath = path.map((h, i) => (i === 2 ? hashFromHex(`${h.toString('hex').slice(0, 60)}zzzz`) : h));
    expect(verifyInclusion(hashes[6]!, 6, 13, badHexPath, root)).toEqual({ ok: false, failure: 'HASH_SIZE' });
    // A leaf whose data is a hash written in hex (a log of digests): bad hex or 31 bytes is no leaf, not the empty leaf.
    const digest = createHash('sha256').update('entry').digest('hex');
    expect(Buffer.from(leafHashOfHex(digest)).toString('hex')).toBe(
      createHash('sha256')
        .update(Buffer.concat([Buffer.from([0]), Buffer.from(digest, 'hex')]))
        .digest('hex'),
    );
    for (const bad of [digest.slice(0, 62), `${digest.slice(0, 63)}z`, `${digest}0`]) {
      expect(leafHashOfHex(bad), bad).toHaveLength(0);
      expect(verifyInclusion(leafHashOfHex(bad), 0, 1, [], hashLeaf()).ok, bad).toBe(false);
    }
  });
});
