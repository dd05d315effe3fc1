// Worker-thread side of evidence/signature-check.ts `checkOnSignatureThreads`: checks packed
// batches of signatures (SignatureBatch) with node:crypto and answers each with a boolean. Keys
// come as SPKI DER, listed once per batch, imported once per distinct key and thread. Nothing else
// runs here, so the thread has almost no code to start or warm.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { checkOnThisThread, unpackSignatureBatch, type SignatureBatch } from '../evidence/signature-check.ts';

export type { SignatureBatch } from '../evidence/signature-check.ts';

export async function createHandler(): Promise<(batches: SignatureBatch[]) => Promise<boolean[][]>> {
  const keys = new Map<string, KeyObject>();
  const keyOf = (spki: Uint8Array): KeyObject => {
    const id = Buffer.from(spki.buffer, spki.byteOffset, spki.byteLength).toString('latin1');
    let key = keys.get(id);
    if (!key) keys.set(id, (key = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' })));
    return key;
  };
  return async (batches) =>
    batches.map((batch) => {
      const imported = batch.keys.map(keyOf);
      return unpackSignatureBatch(batch).map((c) => checkOnThisThread(c.algorithm, c.data, imported[c.key]!, c.signature) as boolean);
    });
}
