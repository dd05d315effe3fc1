// Where a signature is checked (node:crypto `verify`, any algorithm it knows): on the calling
// thread, or on libuv's thread pool. A worker thread is a core already, so it checks in line; one
// JavaScript thread verifying many files (`prereg verify DIR`) hands the curve arithmetic to the
// pool and parses the next file meanwhile, so both cores work with one isolate to warm
// (docs/performance.md). Either way the answer is the same boolean: a signature that is not even
// well-formed for the key is `false`, never an exception.
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
