// Where a signature is checked (node:crypto `verify`, any algorithm it knows): on the calling
// thread, on libuv's thread pool, or on signature threads fed in batches. A worker thread of the
// study stage is a core already, so it checks in line; one JavaScript thread verifying many files
// (`prereg verify DIR`) hands the curve arithmetic to other threads and parses the next file
// meanwhile, so every core works with one isolate to warm (docs/performance.md). The answer is the
// same boolean every way: a signature that is not even well-formed for the key is `false`, never
// an exception. Pure: the threads are started by whoever makes a SignatureThreads.
import { verify, type KeyObject } from 'node:crypto';

/** `algorithm` as node:crypto's verify takes it: null for Ed25519, else the digest name. */
export type SignatureCheck = (algorithm: string | null, data: Uint8Array, key: KeyObject, signature: Uint8Array) => boolean | Promise<boolean>;

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

/** What runs a batch of signature checks elsewhere (parallel/signature-worker.ts behind a WorkerPool). */
export interface SignatureRunner {
  run(batch: Array<{ spki: Uint8Array; algorithm: string | null; data: Uint8Array; signature: Uint8Array }>): Promise<boolean[]>;
}

/** Checks per message to a signature thread: one message per check cost the main thread as much as a libuv job. */
const CHECKS_PER_BATCH = 64;

/**
 * Signature checks gathered into batches for `runner`: a batch goes when it is full, or once the
 * checks asked for in this turn of the event loop are all in (setImmediate).
 */
export function checkOnSignatureThreads(runner: SignatureRunner): SignatureCheck {
  const spkiOf = new WeakMap<KeyObject, Uint8Array>();
  let batch: Parameters<SignatureRunner['run']>[0] = [];
  let answers: Array<{ resolve: (ok: boolean) => void; reject: (err: Error) => void }> = [];
  const flush = () => {
    if (batch.length === 0) return;
    const sent = answers;
    // A thread that fails is a failure of the run (a bug, or memory), never a signature that does not verify.
    runner.run(batch).then((oks) => sent.forEach((a, i) => a.resolve(oks[i] === true)), (err: Error) => sent.forEach((a) => a.reject(err)));
    batch = [];
    answers = [];
  };
  return (algorithm, data, key, signature) => {
    let spki = spkiOf.get(key);
    if (!spki) spkiOf.set(key, (spki = key.export({ format: 'der', type: 'spki' })));
    return new Promise<boolean>((resolve, reject) => {
      batch.push({ spki, algorithm, data, signature });
      answers.push({ resolve, reject });
      if (batch.length === CHECKS_PER_BATCH) flush();
      else if (batch.length === 1) setImmediate(flush);
    });
  };
}
