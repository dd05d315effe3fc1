// RFC 6962 §2.1 Merkle Tree Hash, audit paths and their verification.
// One implementation serves the corpus root, the trust digest, the answer-key commitment, spec
// 3.x field commitments, batch anchors, transparency-log inclusion proofs and the intake log.
import { createHash } from 'node:crypto';

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** RFC 6962: MTH({d0}) = SHA-256(0x00 || d0). */
export function hashLeaf(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha256').update(LEAF_PREFIX);
  for (const part of parts) h.update(part);
  return h.digest();
}

/** RFC 6962: SHA-256(0x01 || left || right). */
export function hashChildren(left: Uint8Array, right: Uint8Array): Buffer {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/** SHA-256 of the empty string: RFC 6962's hash of an empty tree. */
const EMPTY_TREE = createHash('sha256').digest();

/**
 * Root over leaf hashes already computed with hashLeaf. Built level by level, an odd last node is
 * promoted unchanged (never duplicated), which is the same tree as RFC 6962's split at the largest
 * power of two below n.
 */
export function rootFromLeafHashes(leafHashes: readonly Uint8Array[]): Buffer {
  if (leafHashes.length === 0) return Buffer.from(EMPTY_TREE);
  let level: Uint8Array[] = [...leafHashes];
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i + 1 < level.length; i += 2) next.push(hashChildren(level[i]!, level[i + 1]!));
    if (level.length % 2 === 1) next.push(level[level.length - 1]!);
    level = next;
  }
  return Buffer.from(level[0]!);
}

/** Largest power of two strictly less than n (n >= 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** RFC 6962 §2.1.1 PATH(m, D[n]): the audit path of leaf `index`, bottom first. */
export function inclusionPath(leafHashes: readonly Uint8Array[], index: number): Buffer[] {
  if (!Number.isInteger(index) || index < 0 || index >= leafHashes.length) {
    throw new RangeError(`leaf index ${index} outside [0, ${leafHashes.length})`);
  }
  const path: Buffer[] = [];
  let lo = 0;
  let hi = leafHashes.length;
  let m = index;
  const stack: Buffer[] = [];
  // Walk down from the root, collecting the sibling subtree at each split; reverse at the end.
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo);
    if (m < k) {
      stack.push(rootFromLeafHashes(leafHashes.slice(lo + k, hi)));
      hi = lo + k;
    } else {
      stack.push(rootFromLeafHashes(leafHashes.slice(lo, lo + k)));
      lo = lo + k;
      m -= k;
    }
  }
  for (let i = stack.length - 1; i >= 0; i--) path.push(stack[i]!);
  return path;
}

/** Number of audit-path nodes RFC 6962 fixes for leaf `index` in a tree of `size` leaves. */
export function inclusionPathLength(index: number, size: number): number {
  let length = 0;
  let lo = 0;
  let hi = size;
  let m = index;
  while (hi - lo > 1) {
    const k = splitPoint(hi - lo);
    if (m < k) hi = lo + k;
    else {
      lo += k;
      m -= k;
    }
    length++;
  }
  return length;
}

export type InclusionFailure = 'HASH_SIZE' | 'INDEX_OUT_OF_RANGE' | 'PATH_LENGTH' | 'ROOT_MISMATCH';

/** Every hash of an RFC 6962 SHA-256 tree is 32 bytes. */
const HASH_BYTES = 32;
const HASH_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * The 32 bytes of a hash written as 64 hex digits; anything else (bad hex, another length) gives an
 * empty array, which verifyInclusion refuses as HASH_SIZE. `Buffer.from(h, 'hex')` would instead
 * stop silently at the first bad digit, turning a malformed hash into a shorter one.
 */
export function hashFromHex(hex: string): Uint8Array {
  return HASH_HEX.test(hex) ? Buffer.from(hex, 'hex') : new Uint8Array(0);
}

/**
 * The leaf hash of a leaf whose data is a hash written as 64 hex digits (a log of digests, a batch
 * of chain hashes); anything else gives an empty array, which verifyInclusion refuses as HASH_SIZE.
 * hashLeaf(hashFromHex(h)) would hash no bytes instead: the same leaf for every malformed string.
 */
export function leafHashOfHex(hex: string): Uint8Array {
  const data = hashFromHex(hex);
  return data.length === HASH_BYTES ? hashLeaf(data) : data;
}

/**
 * RFC 9162 §2.1.3.2 verification of an inclusion proof. The path must have exactly the length the
 * index and size fix: a longer or shorter path is how an overstated tree size is caught. Every hash
 * must be 32 bytes before any arithmetic (as transparency-dev/merkle checks): a shorter one is an
 * error, never a truncation.
 */
export function verifyInclusion(
  leafHash: Uint8Array,
  index: number,
  size: number,
  path: readonly Uint8Array[],
  expectedRoot: Uint8Array,
): { ok: true } | { ok: false; failure: InclusionFailure } {
  if (leafHash.length !== HASH_BYTES || expectedRoot.length !== HASH_BYTES || path.some((p) => p.length !== HASH_BYTES)) {
    return { ok: false, failure: 'HASH_SIZE' };
  }
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) {
    return { ok: false, failure: 'INDEX_OUT_OF_RANGE' };
  }
  if (path.length !== inclusionPathLength(index, size)) return { ok: false, failure: 'PATH_LENGTH' };
  let fn = index;
  let sn = size - 1;
  let r: Uint8Array = leafHash;
  for (const p of path) {
    if (sn === 0) return { ok: false, failure: 'PATH_LENGTH' };
    if (fn % 2 === 1 || fn === sn) {
      r = hashChildren(p, r);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = hashChildren(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  if (sn !== 0) return { ok: false, failure: 'PATH_LENGTH' };
  return Buffer.compare(Buffer.from(r), Buffer.from(expectedRoot)) === 0 ? { ok: true } : { ok: false, failure: 'ROOT_MISMATCH' };
}
