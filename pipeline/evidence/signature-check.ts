// Where a signature is checked (node:crypto `verify`, any algorithm it knows): on the calling
// thread, on libuv's thread pool, or on signature threads fed in batches. A worker thread of the
// study stage is a core already, so it checks in line; one JavaScript thread verifying many files
// (`prereg verify DIR`) hands the curve arithmetic to other threads and parses the next file
// meanwhile, so every core works with one isolate to warm (docs/performance.md). The answer is the
// same boolean every way: a signature that is not even well-formed for the key is `false`, never
// an exception. Pure: the threads are started by whoever makes a SignatureThreads.
import { verify, type KeyObject } from 'node:crypto';

/** `algorithm` as node:crypto's verify takes it: null for Ed25519, else the digest name. */
export type SignatureCheck = (
  algorithm: string | null,
  data: Uint8Array,
  key: KeyObject,
  signature: Uint8Array,
) => boolean | Promise<boolean>;

export const checkOnThisThread: SignatureCheck = (algorithm, data, key, signature) => {
  try {
    return verify(algorithm, data, key, signature);
  } catch {
    return false;
  }
};

export const checkOnThreadPool: SignatureCheck = (algorithm, data, key, signature) =>
  new Promise<boolean>((resolve) => {
    try {
      verify(algorithm, data, key, signature, (err, ok) => resolve(err === null && ok));
    } catch {
      resolve(false);
    }
  });

/**
 * A batch of signature checks as posted to a signature thread: packed into one buffer. Posting
 * each check's `Uint8Array`s as they come cloned their whole backing buffers (a proof's data is a
 * view into its file's text, a token's signature into the token): ≈ 16 KB per check, measured
 * (126 MB for 7,680 checks of 4,000 token files), and one object per array to clone and rebuild.
 */
export interface SignatureBatch {
  /** The distinct public keys of the batch, SPKI DER. */
  keys: Uint8Array[];
  /** Per check: its key's index in `keys`. */
  key: number[];
  /** Per check: as node:crypto's verify takes it. */
  algorithm: Array<string | null>;
  /** Every check's data then its signature, back to back, in check order. */
  bytes: Uint8Array;
  /** Per check, two offsets into `bytes`: where its data ends (its signature begins) and where its signature ends. */
  ends: number[];
}

/** What runs batches of signature checks elsewhere (parallel/signature-worker.ts behind a WorkerPool). */
export interface SignatureRunner {
  run(batches: SignatureBatch[]): Promise<boolean[][]>;
}

/** Checks per message to a signature thread: one message per check cost the main thread as much as a libuv job. */
const CHECKS_PER_BATCH = 64;

interface PendingCheck {
  spki: Uint8Array;
  algorithm: string | null;
  data: Uint8Array;
  signature: Uint8Array;
  resolve: (ok: boolean) => void;
  reject: (err: Error) => void;
}

/** The checks, packed (SignatureBatch). */
export function packSignatureBatch(checks: ReadonlyArray<Omit<PendingCheck, 'resolve' | 'reject'>>): SignatureBatch {
  const keys: Uint8Array[] = [];
  const key: number[] = [];
  const algorithm: Array<string | null> = [];
  const ends: number[] = [];
  let total = 0;
  for (const c of checks) total += c.data.byteLength + c.signature.byteLength;
  // Not Buffer.allocUnsafe: a pooled buffer would post its whole slab.
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of checks) {
    let k = keys.indexOf(c.spki);
    if (k === -1) k = keys.push(c.spki) - 1;
    key.push(k);
    algorithm.push(c.algorithm);
    bytes.set(c.data, at);
    at += c.data.byteLength;
    ends.push(at);
    bytes.set(c.signature, at);
    at += c.signature.byteLength;
    ends.push(at);
  }
  return { keys, key, algorithm, bytes, ends };
}

/** Each check of a packed batch, as given to packSignatureBatch (views into `bytes`; keys by index). */
export function unpackSignatureBatch(
  batch: SignatureBatch,
): Array<{ key: number; algorithm: string | null; data: Uint8Array; signature: Uint8Array }> {
  const out = [];
  let at = 0;
  for (let i = 0; i < batch.key.length; i++) {
    const dataEnd = batch.ends[2 * i]!;
    const end = batch.ends[2 * i + 1]!;
    out.push({
      key: batch.key[i]!,
      algorithm: batch.algorithm[i]!,
      data: batch.bytes.subarray(at, dataEnd),
      signature: batch.bytes.subarray(dataEnd, end),
    });
    at = end;
  }
  return out;
}

/**
 * Signature checks gathered into batches for `runner`: a batch goes when it is full, or once the
 * checks asked for in this turn of the event loop are all in (setImmediate).
 */
export function checkOnSignatureThreads(runner: SignatureRunner): SignatureCheck {
  // Exported once per key, into a buffer of its own (an exported key may be a view into a larger one).
  const spkiOf = new WeakMap<KeyObject, Uint8Array>();
  let pending: PendingCheck[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const sent = pending;
    pending = [];
    // A thread that fails is a failure of the run (a bug, or memory), never a signature that does not verify.
    runner.run([packSignatureBatch(sent)]).then(
      ([oks]) =>
        sent.forEach((c, i) => {
          c.resolve(oks?.[i] === true);
        }),
      (err: Error) =>
        sent.forEach((c) => {
          c.reject(err);
        }),
    );
  };
  return (algorithm, data, key, signature) => {
    let spki = spkiOf.get(key);
    if (!spki) spkiOf.set(key, (spki = new Uint8Array(key.export({ format: 'der', type: 'spki' }))));
    return new Promise<boolean>((resolve, reject) => {
      pending.push({ spki, algorithm, data, signature, resolve, reject });
      if (pending.length === CHECKS_PER_BATCH) flush();
      else if (pending.length === 1) setImmediate(flush);
    });
  };
}
