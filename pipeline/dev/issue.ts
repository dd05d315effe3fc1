// `prereg dev issue`'s work: a TEST-ONLY ArkForge-shaped proof of one retrieval call, as the
// reference service would issue it (spec 2.1, the service's layout), over passages served verbatim
// from the frozen corpus, bought with the system's dev buyer key from the rehearsal's pinned
// seller, signed by the kit's dev issuer key, and stamped by the kit's dev TSA (genTime one second
// after the proof's timestamp). Plus the attempt's TEST-ONLY AER-1 timeline: a single closed
// `retrieve` entry whose canonical bytes are the response body as canonical JSON, so its output
// commitment is the proof's response hash (the evidence link of docs/aer1.md).
import { canonicalJson } from '../formats/canonical-json.ts';
import type { CorpusSections } from '../study/corpus-sections.ts';
import { PreregError } from '../reasons.ts';
import { issueProof } from './arkforge-issuer.ts';
import { timelineOf, type Timeline } from './aer1-timeline.ts';
import type { DevKit } from './kit.ts';
import type { TsaSigner } from './tsa/pkijs-tsa.ts';

export interface DevIssueRequest {
  system_id: string;
  item: { item_id: string; question: string };
  refs: readonly string[];
  /** The proof's timestamp: ISO-8601 UTC to the second. */
  at: string;
  /** The timeline's job id. */
  job_id: string;
}

export interface DevIssued {
  proof: Record<string, unknown>;
  request: { query: string; item_id: string };
  response: { call_id: string; passages: Array<{ ref: string; text: string }> };
  timeline: Timeline;
}

const seconds = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export async function devIssue(kit: DevKit, tsa: TsaSigner, sections: CorpusSections, r: DevIssueRequest): Promise<DevIssued> {
  const buyer = kit.buyers[r.system_id];
  if (buyer === undefined)
    throw new PreregError(
      'DEV_ISSUE_INVALID',
      `the kit has no buyer for system ${JSON.stringify(r.system_id)}; it has ${Object.keys(kit.buyers)
        .map((s) => JSON.stringify(s))
        .join(', ')}`,
    );
  if (r.refs.length === 0) throw new PreregError('USAGE', 'dev issue: give at least one --ref (a passage the retrieval call serves)');
  const passages = r.refs.map((ref) => {
    const text = sections.get(ref);
    if (text === undefined)
      throw new PreregError(
        'DEV_ISSUE_INVALID',
        `ref ${JSON.stringify(ref)} is declared by no heading of the frozen corpus: a dev proof serves frozen corpus text only`,
      );
    return { ref, text: text.trim() };
  });
  const at = Date.parse(r.at);
  if (!Number.isFinite(at) || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/.test(r.at))
    throw new PreregError('USAGE', `--at expects an instant such as 2027-03-01T10:00:00Z, got ${JSON.stringify(r.at)}`);
  const request = { query: r.item.question, item_id: r.item.item_id };
  const response = { call_id: `dev-call-${r.job_id}`, passages };
  const issued = await issueProof({
    request,
    response,
    timestamp: r.at,
    seller: kit.seller,
    buyerApiKey: buyer,
    proofId: `prf_TEST-ONLY-dev_${r.job_id}`,
    transactionId: `dev_${r.job_id}`,
    signingKeyPem: kit.issuerKeyPem,
    specVersion: '2.1',
    view: 'service',
    tsa: { signer: tsa, genTime: seconds(at + 1000), provider: 'TEST-ONLY prereg dev TSA', carryCertificate: true },
    upstreamTimestamp: new Date(at).toUTCString(),
  });
  const timeline = timelineOf(r.job_id, [
    { tool: 'retrieve', provenance_class: 'LOGGED BY AGENT', canonical_bytes: canonicalJson(response) },
  ]);
  return { proof: issued.proof, request, response, timeline };
}
