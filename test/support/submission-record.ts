// One submission line and its receipt-chain commitment, minted as the small-study builder's are
// (TEST-ONLY key, local pkijs TSA, each system buying with its own TEST-ONLY API key, each call's
// response carrying its own call_id, an anchored AER-1 timeline whose retrieve entry is the first
// evidence's response), for the bench's study generator, which mints many on worker threads (the
// builder itself imports vitest-bound helpers; the buyer key is shared from here).
import { canonicalJson } from '../../pipeline/formats/canonical-json.ts';
import { buildTimeline } from './aer1-builder.ts';
import { issueProof } from './arkforge-issuer.ts';
import type { TsaSigner } from './tsa/pkijs-tsa.ts';

export type Passage = { ref: string; text: string };

/** A record as the tests write it: who answered what, and the (first) evidence's served passages. */
export interface RecordBase {
  system: string;
  item: string;
  attempt: number;
  text: string;
  refused?: boolean;
  truncated?: boolean;
  passages: Passage[];
}

export interface RecordSpec extends RecordBase {
  /** The first evidence item carries an RFC 3161 token (default true). */
  token?: boolean;
  /** Further evidence items (e.g. a second retrieval), each with or without a token. */
  moreEvidence?: Array<{ passages: Passage[]; token: boolean }>;
}

export interface MintContext {
  /** PKCS#8 PEM of the pinned TEST-ONLY Ed25519 key. */
  keyPem: string;
  signer: TsaSigner;
}

/** Each system's TEST-ONLY API key: its buyer fingerprint is what study.json registers. */
export const smallBuyerKey = (system: string) => `TEST-ONLY-small-${system}`;

const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

/** The record served at `clock` (ms): its submission line and its commitment, as canonical JSON. */
export async function mintRecord(r: RecordSpec, clock: number, ctx: MintContext): Promise<{ line: string; commitment: string }> {
  const evidence = [{ passages: r.passages, token: r.token ?? true }, ...(r.moreEvidence ?? [])];
  const items = [];
  let first: unknown = null;
  for (const [k, e] of evidence.entries()) {
    const request = k === 0 ? { query: r.item } : { query: r.item, part: k };
    const response = { call_id: `call-${r.system}/${r.item}/${r.attempt}/${k}`, passages: e.passages };
    const issued = await issueProof({
      request,
      response,
      timestamp: iso(clock),
      seller: 'retrieval.example',
      buyerApiKey: smallBuyerKey(r.system),
      transactionId: `crd_${r.system}_${r.item}_${r.attempt}${k === 0 ? '' : `_${k}`}`,
      specVersion: '2.1',
      signingKeyPem: ctx.keyPem,
      ...(e.token ? { tsa: { signer: ctx.signer, genTime: iso(clock + 1000) } } : {}),
    });
    items.push({ proof: issued.proof, request, response });
    first ??= response;
  }
  // The retrieve entry's bytes are the response as canonical JSON: its output commitment is
  // the proof's response hash, which links the two (SPEC §6.2).
  const { timeline, commitment } = buildTimeline({
    job_id: `job-${r.system}-${r.item}-${r.attempt}`,
    receipts: [
      { tool: 'retrieve', provenance_class: 'LOGGED BY AGENT', canonical_bytes: canonicalJson(first) },
      { tool: 'answer', provenance_class: 'LOGGED BY AGENT', canonical_bytes: r.text },
    ],
  });
  const line = canonicalJson({
    format: 'prereg.submission/1',
    system_id: r.system,
    item_id: r.item,
    attempt: r.attempt,
    answer: { text: r.text, refused: r.refused ?? false, truncated: r.truncated ?? false },
    evidence: items,
    receipts: timeline,
  });
  return { line, commitment: canonicalJson(commitment) };
}
