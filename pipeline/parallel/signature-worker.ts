// Worker-thread side of evidence/signature-check.ts `SignatureThreads`: checks batches of
// signatures with node:crypto and answers each with a boolean. Keys come as SPKI DER, imported
// once per distinct key and thread. Nothing else runs here, so the thread has almost no code to
// start or warm.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { checkOnThisThread } from '../evidence/signature-check.ts';

export interface SignatureRequest {
  /** The public key, SPKI DER. */
  spki: Uint8Array;
  algorithm: string | null;
  data: Uint8Array;
  signature: Uint8Array;
}

export async function createHandler(): Promise<(batch: SignatureRequest[]) => Promise<boolean[]>> {
  const keys = new Map<string, KeyObject>();
  const keyOf = (spki: Uint8Array): KeyObject => {
    const id = Buffer.from(spki.buffer, spki.byteOffset, spki.byteLength).toString('latin1');
    let key = keys.get(id);
    if (!key) keys.set(id, (key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' })));
    return key;
  };
  return async (batch) => batch.map((r) => checkOnThisThread(r.algorithm, r.data, keyOf(r.spki), r.signature) as boolean);
}
