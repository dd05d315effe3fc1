// Bench only, not a verifier: the least work any verifier of these proofs must do per item —
// JSON.parse, SHA-256 of the two bodies, the chain hash by the proof's own algorithm, one Ed25519
// verify — with no schema, no time or key-window checks, no reason codes and no rows. Run through
// the same DuckDB stream and worker pool as the verify stage, it measures the headroom the stage
// has on this machine (bench/verify.ts prints it as the "floor").
import { createPublicKey, hash, verify, type KeyObject } from 'node:crypto';
import { proofVersionModule, type ArkForgeProof } from '../pipeline/evidence/arkforge/index.ts';

export interface FloorInit {
  /** The pinned key as a JWK x (base64url of the 32 raw bytes). */
  x: string;
}
export interface FloorTask {
  proof: string;
  request: string;
  response: string;
}

export async function createHandler(init: FloorInit): Promise<(batch: FloorTask[]) => Promise<boolean[]>> {
  const key: KeyObject = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: init.x }, format: 'jwk' });
  return async (batch) =>
    batch.map((task) => {
      const proof = JSON.parse(task.proof) as ArkForgeProof & { arkforge_signature: string };
      const bodies =
        proof.hashes.request === `sha256:${hash('sha256', task.request, 'hex')}` &&
        proof.hashes.response === `sha256:${hash('sha256', task.response, 'hex')}`;
      const chain = proofVersionModule(proof.spec_version)!.chainHash(proof);
      const signature = Buffer.from(proof.arkforge_signature.slice('ed25519:'.length), 'base64url');
      return bodies && proof.hashes.chain === `sha256:${chain}` && verify(null, Buffer.from(chain), key, signature);
    });
}
