// Bench data on worker threads: synthetic evidence items minted by the test issuer (TEST-ONLY key,
// local pkijs TSA for the tokens), as the canonical JSON texts ingest would store.
import { readFileSync } from 'node:fs';
import { canonicalJson } from '../pipeline/formats/canonical-json.ts';
import { issueProof } from '../test/support/arkforge-issuer.ts';
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

const PASSAGE = 'Dans les autres procédures, l\'acheteur peut autoriser tous les soumissionnaires concernés à régulariser les offres irrégulières dans un délai approprié, à condition qu\'elles ne soient pas anormalement basses. ';

export async function createHandler(init: GenerateInit) {
  const signer = await loadTestSigner('tsa');
  return async (batch: Array<{ index: number; withToken: boolean }>): Promise<GeneratedEvidence[]> => {
    const out: GeneratedEvidence[] = [];
    for (const { index, withToken } of batch) {
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
        ...(withToken ? { tsa: { signer, genTime: new Date(at + 2000).toISOString().replace('.000Z', 'Z') } } : {}),
      });
      out.push({ index, proof: canonicalJson(issued.proof), request: canonicalJson(request), response: canonicalJson(response) });
    }
    return out;
  };
}

export function readKey(path: string): GenerateInit {
  return { keyPem: readFileSync(path, 'utf8') };
}
