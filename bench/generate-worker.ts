// Bench data on worker threads: synthetic evidence items minted by the test issuer (TEST-ONLY key,
// local pkijs TSA for the tokens), as the canonical JSON texts ingest would store. A token is
// 'none', 'own' (one token over each proof's chain hash) or 'batch' (proofs closed in batches of
// BATCH_SIZE consecutive indices, one token over each batch root, as proof-spec 3.x issues them).
import { readFileSync } from 'node:fs';
import { canonicalJson } from '../pipeline/formats/canonical-json.ts';
import { issueProof, type IssuedProof } from '../pipeline/dev/arkforge-issuer.ts';
import { anchorBatch } from '../test/support/arkforge-issuer-v3.ts';
import { loadTestSigner } from '../test/support/tsa/pkijs-tsa.ts';

export interface GenerateInit {
  keyPem: string;
}
export interface GeneratedEvidence {
  index: number;
  proof: string;
  request: string;
  response: string;
}

export type TokenKind = 'none' | 'own' | 'batch';
export interface GenerateTask {
  index: number;
  token: TokenKind;
}
/** Proofs per batch-anchored token; a generator batch holds whole batches (a multiple of this). */
export const BATCH_SIZE = 64;

const PASSAGE =
  "Dans les autres procédures, l'acheteur peut autoriser tous les soumissionnaires concernés à régulariser les offres irrégulières dans un délai approprié, à condition qu'elles ne soient pas anormalement basses. ";

export async function createHandler(init: GenerateInit) {
  const signer = await loadTestSigner('tsa');
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
  return async (batch: GenerateTask[]): Promise<GeneratedEvidence[]> => {
    const out: GeneratedEvidence[] = [];
    const open: Array<{ index: number; at: number; issued: IssuedProof }> = [];
    const closeBatch = async () => {
      const last = open.at(-1)!;
      await anchorBatch(
        open.map((o) => o.issued),
        { signer, genTime: iso(last.at + 2000), batchId: `batch_bench_${Math.floor(last.index / BATCH_SIZE)}` },
      );
      for (const o of open)
        out.push({
          index: o.index,
          proof: canonicalJson(o.issued.proof as never),
          request: canonicalJson(o.issued.request as never),
          response: canonicalJson(o.issued.response as never),
        });
      open.length = 0;
    };
    for (const { index, token } of batch) {
      const at = Date.parse('2026-11-05T08:00:00Z') + index * 1000;
      const timestamp = new Date(at).toISOString().replace('.000Z', 'Z');
      const request = { query: `question ${index}`, top_k: 3 };
      const response = { passages: [{ ref: `R2152-${index % 97}`, text: PASSAGE }] };
      const issued = await issueProof({
        request,
        response,
        timestamp,
        seller: 'retrieval.example',
        buyerApiKey: 'TEST-ONLY-bench-key',
        transactionId: `crd_bench_${index}`,
        specVersion: index % 2 === 0 ? '2.1' : '1.1',
        signingKeyPem: init.keyPem,
        ...(token === 'own' ? { tsa: { signer, genTime: iso(at + 2000) } } : {}),
      });
      if (token === 'batch') {
        open.push({ index, at, issued });
        if (open.length === BATCH_SIZE || index % BATCH_SIZE === BATCH_SIZE - 1) await closeBatch();
      } else {
        out.push({ index, proof: canonicalJson(issued.proof), request: canonicalJson(request), response: canonicalJson(response) });
      }
    }
    if (open.length > 0) await closeBatch();
    return out;
  };
}

export function readKey(path: string): GenerateInit {
  return { keyPem: readFileSync(path, 'utf8') };
}
