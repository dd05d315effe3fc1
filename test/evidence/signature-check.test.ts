// Signature checks on signature threads (evidence/signature-check.ts): the batch a thread is
// posted holds only the checks' own bytes, and every answer is the one this thread would give.
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  checkOnSignatureThreads,
  checkOnThisThread,
  packSignatureBatch,
  unpackSignatureBatch,
  type SignatureBatch,
} from '../../pipeline/evidence/signature-check.ts';

const ed = generateKeyPairSync('ed25519');
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });

/** Views into larger buffers, as a proof's data is a view into its file's text. */
function inside(bytes: Uint8Array): Uint8Array {
  const wide = new Uint8Array(bytes.length + 4096);
  wide.set(bytes, 1000);
  return wide.subarray(1000, 1000 + bytes.length);
}

function checks() {
  const out = [];
  for (let i = 0; i < 150; i++) {
    const data = Buffer.from(`message ${i}`);
    const [algorithm, pair] = i % 3 === 0 ? (['sha256', ec] as const) : ([null, ed] as const);
    const signature = new Uint8Array(sign(algorithm, data, pair.privateKey));
    if (i % 5 === 0) signature[3]! ^= 1; // does not verify
    if (i % 7 === 0)
      out.push({ algorithm, data: inside(data), key: pair.publicKey, signature: inside(signature.subarray(0, 10)) }); // not even well-formed
    else out.push({ algorithm, data: inside(data), key: pair.publicKey, signature: inside(signature) });
  }
  return out;
}

describe('signature batches', () => {
  it('pack only the checks’ bytes and unpack to the same checks', () => {
    // One SPKI per key, as checkOnSignatureThreads keeps it: keys are told apart by identity.
    const spki = new Map([ed.publicKey, ec.publicKey].map((k) => [k, new Uint8Array(k.export({ format: 'der', type: 'spki' }))]));
    const all = checks().map((c) => ({ ...c, spki: spki.get(c.key)! }));
    const batch = packSignatureBatch(all);
    expect(batch.bytes.buffer.byteLength).toBe(all.reduce((n, c) => n + c.data.length + c.signature.length, 0));
    expect(batch.keys).toHaveLength(2);
    const back = unpackSignatureBatch(structuredClone(batch));
    expect(back).toHaveLength(all.length);
    back.forEach((c, i) => {
      expect(Buffer.from(c.data)).toEqual(Buffer.from(all[i]!.data));
      expect(Buffer.from(c.signature)).toEqual(Buffer.from(all[i]!.signature));
      expect(Buffer.from(batch.keys[c.key]!)).toEqual(Buffer.from(all[i]!.spki));
      expect(c.algorithm).toBe(all[i]!.algorithm);
    });
  });

  it('answer every check as this thread does, through a runner that sees only packed batches', async () => {
    const { createPublicKey } = await import('node:crypto');
    const posted: SignatureBatch[] = [];
    const runner = {
      run: async (batches: SignatureBatch[]) =>
        batches.map((b) => {
          const copy = structuredClone(b);
          posted.push(copy);
          const keys = copy.keys.map((k) => createPublicKey({ key: Buffer.from(k), format: 'der', type: 'spki' }));
          return unpackSignatureBatch(copy).map((c) => checkOnThisThread(c.algorithm, c.data, keys[c.key]!, c.signature) as boolean);
        }),
    };
    const check = checkOnSignatureThreads(runner);
    const all = checks();
    const answers = await Promise.all(all.map((c) => check(c.algorithm, c.data, c.key, c.signature)));
    expect(answers).toEqual(all.map((c) => checkOnThisThread(c.algorithm, c.data, c.key, c.signature)));
    expect(answers.filter(Boolean).length).toBeGreaterThan(50);
    expect(answers.filter((a) => !a).length).toBeGreaterThan(30);
    // Full batches of 64, then the rest once the turn is over.
    expect(posted.map((b) => b.key.length)).toEqual([64, 64, 22]);
  });
});
