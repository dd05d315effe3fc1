// Hand-built studies for the analysis tests: the example study's frozen corpus, key and section 5,
// with submissions written here record by record, so the expected class of every assertion is
// known. Evidence is minted like the example's (TEST-ONLY key, local pkijs TSA, anchored chains).
import { readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../../pipeline/formats/canonical-json.ts';
import { buildTimeline } from './aer1-builder.ts';
import { issueProof } from './arkforge-issuer.ts';
import { copyExampleStudy, PROJECT_ROOT } from './cli.ts';
import { loadTestSigner } from './tsa/pkijs-tsa.ts';

export interface HandRecord {
  system: string;
  item: string;
  attempt: number;
  text: string;
  refused?: boolean;
  truncated?: boolean;
  passages: Array<{ ref: string; text: string }>;
  /** Alter the served response after signing (the proof then is TAMPERED). */
  tamper?: boolean;
}

const KEY = readFileSync(join(PROJECT_ROOT, 'test/fixtures/keys/TEST-ONLY-arkforge-2026.key.pem'), 'utf8');

export async function buildSmallStudy(records: readonly HandRecord[]): Promise<{ root: string; cleanup: () => void }> {
  const study = copyExampleStudy();
  const signer = await loadTestSigner('tsa');
  const submissions = join(study.root, 'inputs/submissions');
  rmSync(submissions, { recursive: true, force: true });
  mkdirSync(submissions, { recursive: true });
  const lines = new Map<string, string[]>();
  const commitments: string[] = [];
  let clock = Date.parse('2026-11-05T10:00:00Z');
  for (const r of records) {
    clock += 60_000;
    const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
    const request = { query: r.item };
    const response = { passages: r.passages };
    const issued = await issueProof({
      request, response, timestamp: iso(clock), seller: 'retrieval.example', buyerApiKey: 'TEST-ONLY-small',
      transactionId: `crd_${r.system}_${r.item}_${r.attempt}`, specVersion: '2.1', signingKeyPem: KEY,
      tsa: { signer, genTime: iso(clock + 1000) },
    });
    const shown = r.tamper ? { passages: r.passages.map((p) => ({ ...p, text: `${p.text} (modifié)` })) } : response;
    // The retrieve entry's bytes are the response as canonical JSON: its output commitment is
    // the proof's response hash, which links the two (SPEC §6.2).
    const { timeline, commitment } = buildTimeline({
      job_id: `job-${r.system}-${r.item}-${r.attempt}`,
      receipts: [
        { tool: 'retrieve', provenance_class: 'LOGGED BY AGENT', canonical_bytes: canonicalJson(response) },
        { tool: 'answer', provenance_class: 'LOGGED BY AGENT', canonical_bytes: r.text },
      ],
    });
    commitments.push(canonicalJson(commitment));
    const line = canonicalJson({
      format: 'prereg.submission/1', system_id: r.system, item_id: r.item, attempt: r.attempt,
      answer: { text: r.text, refused: r.refused ?? false, truncated: r.truncated ?? false },
      evidence: [{ proof: issued.proof, request, response: shown }],
      receipts: timeline,
    });
    lines.set(r.system, [...(lines.get(r.system) ?? []), line]);
  }
  for (const [system, l] of lines) writeFileSync(join(submissions, `${system}.jsonl`), `${l.join('\n')}\n`);
  writeFileSync(join(study.root, 'inputs/commitments.jsonl'), `${commitments.join('\n')}\n`);
  return study;
}
