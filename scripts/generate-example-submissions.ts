// Generates the example study's submissions and commitments from four synthetic systems, signed
// with the TEST-ONLY keys and stamped by the local pkijs TSA (genTime inside the study window):
//
//   sys-honest     every proof verifies, every receipt timeline is anchored by its commitment;
//   sys-tampered   some evidence was altered after signing, some is unsigned or signed by a key or
//                  TSA that is not pinned, one item's evidence is the issuer's public view (its
//                  preimage redacted: it proves no body); one phantom citation, one invented amount, one answered
//                  negative, one answered negative flagged `refused` (the study's refusal pattern
//                  reads the text: REFUSAL_FLAG_DISAGREES), and two lines that ingest must reject
//                  (a duplicate, an unknown item);
//   sys-truncated  honest proofs, but a third of its receipt timelines were cut at the tail and
//                  re-closed (internally valid, caught only by the commitment), and two truncated
//                  answers; two attempts per item where the others make three (constancy is then
//                  not comparable: the report flags it); on mp-008's first attempt its retrieval
//                  serves L2152-1 for the expected R2152-1 and the answer cites it: a near miss
//                  (study.json vocabulary.near_miss), in the declared column only (mp-008's
//                  timelines are cut);
//   sys-honest-rerun  a replicate campaign of sys-honest (study.json replicate_of): the same system
//                  run again, alike, which misses on other attempts (mp-011, mp-012) than
//                  sys-honest (mp-010): the noise floor of identical campaigns, 3 discordant items;
//   copycat        sys-honest's lines for five items, copied with only system_id changed: every
//                  proof VERIFIED and every timeline ANCHORED, but bought by sys-honest's buyer key,
//                  so the registered study gives it nothing proven (EVIDENCE_NOT_BOUND, SPEC §6.2).
//
// Each system buys with its own TEST-ONLY API key; exampleSystems() is the registration of their
// buyer fingerprints that scripts/rebuild-example.ts writes into study.json before the freeze.
// The retrieval service answers every call with its own call_id, as a service must for each call
// to be its own evidence (a response hash used by two records is EVIDENCE_REUSED).
//
// On mp-007, sys-honest and sys-tampered relay `L5132-4` (another code, quoted by the served
// L2113-10): RELAYED, never PHANTOM — except in sys-tampered's proven column, whose evidence for
// mp-007 is signed by an expired key (the passage is declared served, not proven).
//
// Receipts are AER-1 timelines as draft-zambo-aer1-09 writes them (bare arrays, docs/aer1.md):
// the retrieve entry's canonical bytes are the response body as canonical JSON, so its output
// commitment is the proof's response hash (the evidence link of SPEC §6.2).
//
// sys-honest's tokens carry no certificate, as FreeTSA's production tokens (the example's trust
// policy supplies the TSA certificate in tsa_certs). Proofs are laid out as the reference service serves them (issueProof's 'service' view: seller
// and identity at the top level) for sys-honest and sys-tampered, and in proof-spec §1's layout
// for sys-truncated, so the example carries both shapes a participant may hold.
//
// Called by scripts/rebuild-example.ts; every hash and signature is computed, never hand-written.
import { readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { canonicalJson } from '../pipeline/formats/canonical-json.ts';
import { buildTimeline, cutTail, type Timeline } from '../test/support/aer1-builder.ts';
import { buyerFingerprint, issueProof } from '../pipeline/dev/arkforge-issuer.ts';
import type { RegisteredSystem } from '../pipeline/study/study.ts';
import { loadTestSigner, type TsaSigner } from '../test/support/tsa/pkijs-tsa.ts';
import type { ChainCommitment } from '../pipeline/evidence/aer1/index.ts';

export interface Item {
  item_id: string;
  question: string;
}
export interface KeyItem {
  item_id: string;
  kind: 'positive' | 'negative';
  expected_refs: string[];
  expected_amounts: Array<{ ref: string; value: string; unit: string }>;
}
type Passage = { ref: string; text: string };

const SYSTEMS = ['sys-honest', 'sys-tampered', 'sys-truncated', 'sys-honest-rerun'] as const;
type SystemId = (typeof SYSTEMS)[number];
/** Attempts per item: sys-truncated stops at two. */
const ATTEMPTS: Record<SystemId, number> = { 'sys-honest': 3, 'sys-tampered': 3, 'sys-truncated': 2, 'sys-honest-rerun': 3 };
/** The replicate campaigns (study.json systems[].replicate_of): the system each runs again. */
const REPLICATE_OF: Partial<Record<SystemId, SystemId>> = { 'sys-honest-rerun': 'sys-honest' };
/** What an answer on mp-007 adds from the served L2113-10, which quotes another code. */
const RELAYED_SENTENCE = " Un lot peut être réservé aux structures mentionnées à l'article L5132-4 du code du travail.";
const COPYCAT = 'copycat';
/** The items whose sys-honest lines the copycat copies, every attempt. */
const COPIED_ITEMS = ['mp-001', 'mp-002', 'mp-003', 'mp-004', 'mp-005'];

/** The seller every example proof binds: the study's one retrieval service, pinned by its trust policy. */
export const EXAMPLE_SELLER = 'retrieval.example';

const buyerApiKey = (system: string) => `TEST-ONLY-api-key-${system}`;

/** study.json `systems`: each example system with the fingerprint of its own buyer key. */
export function exampleSystems(): RegisteredSystem[] {
  return [COPYCAT, ...SYSTEMS].sort().map((system_id) => {
    const original = REPLICATE_OF[system_id as SystemId];
    return {
      system_id,
      buyer_fingerprints: [buyerFingerprint(buyerApiKey(system_id))],
      ...(original === undefined ? {} : { replicate_of: original }),
    };
  });
}

/** Article texts by identifier, read from the corpus headings and the paragraph under each. */
export function articlePassages(corpusDir: string, files: string[]): Map<string, string> {
  const passages = new Map<string, string>();
  for (const file of files) {
    const lines = readFileSync(join(corpusDir, file), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const m = /^#{2,4} (?:Article )?((?:[LRD][0-9]{4}-[0-9]+)|(?:CCAG Travaux [0-9]+))\s*$/.exec(lines[i]!);
      if (!m) continue;
      const body: string[] = [];
      for (let j = i + 2; j < lines.length && lines[j]!.trim() !== '' && !lines[j]!.startsWith('#'); j++) body.push(lines[j]!.trim());
      passages.set(m[1]!, body.join(' '));
    }
  }
  return passages;
}

const euros = (value: string) =>
  `${Number(value)
    .toLocaleString('fr-FR')
    .replace(/\u202f/g, ' ')} euros`;
const cite = (ref: string) => (ref.startsWith('CCAG') ? ref : `l'article ${ref}`);

export function honestAnswer(key: KeyItem, passages: Map<string, string>): string {
  if (key.kind === 'negative') return 'Le corpus ne contient pas de disposition permettant de répondre à cette question.';
  const parts = key.expected_refs.map((ref) => {
    const amount = key.expected_amounts.find((a) => a.ref === ref);
    const gist = passages.get(ref)!.split(/[,.;]/)[0]!.toLowerCase();
    return amount ? `Selon ${cite(ref)}, le seuil est de ${euros(amount.value)} hors taxes (${gist}).` : `Selon ${cite(ref)} : ${gist}.`;
  });
  return parts.join(' ');
}

interface Plan {
  text: string;
  refused: boolean;
  truncated: boolean;
  /** What happens to the evidence of this record. */
  evidence: 'good' | 'tampered-response' | 'unsigned' | 'expired-key' | 'unpinned-tsa' | 'public-view';
  chain: 'anchored' | 'tail-cut';
  /** The refs retrieval serves, when not the item's expected ones (a near miss). */
  served?: string[];
}

function planFor(system: SystemId, key: KeyItem, attempt: number, passages: Map<string, string>): Plan {
  const plan: Plan = {
    text: honestAnswer(key, passages),
    refused: key.kind === 'negative',
    truncated: false,
    evidence: 'good',
    chain: 'anchored',
  };
  const id = key.item_id;
  if (system === 'sys-honest') {
    // Constancy: the honest system misses the expected reference once in three attempts on one item.
    if (id === 'mp-010' && attempt === 3) plan.text = "L'acheteur doit demander des explications sur le prix proposé.";
    if (id === 'mp-007') plan.text += RELAYED_SENTENCE;
    return plan;
  }
  if (system === 'sys-honest-rerun') {
    // The same system run again: it misses on other attempts than the first campaign.
    if ((id === 'mp-011' && attempt === 1) || (id === 'mp-012' && attempt === 2))
      plan.text = "La réponse dépend des circonstances de l'achat.";
    if (id === 'mp-007') plan.text += RELAYED_SENTENCE;
    return plan;
  }
  if (system === 'sys-tampered') {
    if (id === 'mp-001') plan.text = plan.text.replace("l'article R2122-8", "l'article L2122-8");
    if (['mp-002', 'mp-003', 'mp-004'].includes(id)) plan.evidence = 'tampered-response';
    if (['mp-005', 'mp-006'].includes(id)) plan.evidence = 'unsigned';
    if (id === 'mp-007') {
      plan.evidence = 'expired-key';
      plan.text += RELAYED_SENTENCE;
    }
    if (id === 'mp-008') plan.evidence = 'unpinned-tsa';
    // The participant submitted the proof's public page instead of its own copy.
    if (id === 'mp-009') plan.evidence = 'public-view';
    if (id === 'mp-011') plan.text = plan.text.replace('50 000 euros', '100 000 euros');
    if (id === 'mp-017') {
      plan.text = "Selon l'article R2123-1, le taux applicable est réduit pour les travaux.";
      plan.refused = false;
    }
    // An answer flagged as a refusal: declared takes the flag, proven the text (SPEC §12.6).
    if (id === 'mp-018' && attempt === 1) plan.text = "Selon l'article R2123-1, la procédure adaptée s'applique sans condition de montant.";
    return plan;
  }
  const n = Number(id.slice(3));
  if (n >= 1 && n <= 10) plan.chain = 'tail-cut';
  if (id === 'mp-008' && attempt === 1) {
    // Retrieval serves the legislative article for the regulatory one (same number, another prefix).
    plan.served = ['L2152-1'];
    plan.text = honestAnswer({ ...key, expected_refs: plan.served, expected_amounts: [] }, passages);
  }
  if ((id === 'mp-012' || id === 'mp-013') && attempt === 2) {
    // Cut mid-citation: the stub "R2192-" must not count as a citation.
    plan.truncated = true;
    plan.text = plan.text.slice(0, plan.text.indexOf(key.expected_refs[0]!) + 'R2192-'.length);
  }
  return plan;
}

export interface GeneratedInputs {
  records: number;
  rejectsExpected: number;
}

export async function generateExampleSubmissions(root: string): Promise<GeneratedInputs> {
  const corpus = join(root, 'corpus');
  const items = readFileSync(join(corpus, 'items.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Item);
  const key = new Map(
    readFileSync(join(root, 'inputs/answer-key.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => {
        const k = JSON.parse(l) as KeyItem;
        return [k.item_id, k];
      }),
  );
  const passages = articlePassages(corpus, [
    'code-commande-publique/partie-legislative.md',
    'code-commande-publique/partie-reglementaire.md',
    'ccag-travaux.md',
  ]);
  const keys = join(root, 'test/fixtures/keys');
  const pinnedKey = readFileSync(join(keys, 'TEST-ONLY-arkforge-2026.key.pem'), 'utf8');
  const expiredKey = readFileSync(join(keys, 'TEST-ONLY-arkforge-2025-expired.key.pem'), 'utf8');
  const tsa: TsaSigner = await loadTestSigner('tsa');
  const rogueTsa: TsaSigner = await loadTestSigner('unpinned-tsa');

  const submissions = join(root, 'inputs/submissions');
  rmSync(submissions, { recursive: true, force: true });
  mkdirSync(submissions, { recursive: true });
  const commitments: ChainCommitment[] = [];
  let records = 0;

  for (const [s, system] of SYSTEMS.entries()) {
    const lines: string[] = [];
    let clock = Date.parse(`2026-11-0${5 + s}T08:00:00Z`);
    for (const item of items) {
      const k = key.get(item.item_id)!;
      for (let attempt = 1; attempt <= ATTEMPTS[system]; attempt++) {
        clock += 37_000;
        const plan = planFor(system, k, attempt, passages);
        const served: Passage[] = (plan.served ?? (k.kind === 'positive' ? k.expected_refs : ['R2123-1'])).map((ref) => ({
          ref,
          text: passages.get(ref)!,
        }));
        const request = { query: item.question, top_k: 3 };
        const response = { call_id: `call-${system}-${item.item_id}-${attempt}`, passages: served };
        const timestamp = new Date(clock).toISOString().replace('.000Z', 'Z');
        const issued = await issueProof({
          request,
          response,
          timestamp,
          seller: EXAMPLE_SELLER,
          buyerApiKey: buyerApiKey(system),
          transactionId: `crd_${system}_${item.item_id}_${attempt}`,
          specVersion: system === 'sys-tampered' && attempt === 2 ? '1.1' : '2.1',
          signingKeyPem: plan.evidence === 'expired-key' ? expiredKey : pinnedKey,
          tsa: {
            signer: plan.evidence === 'unpinned-tsa' ? rogueTsa : tsa,
            genTime: new Date(clock + 2_000).toISOString().replace('.000Z', 'Z'),
            carryCertificate: system !== 'sys-honest',
          },
          upstreamTimestamp: new Date(clock + 1_000).toUTCString(),
          view: plan.evidence === 'public-view' ? 'public' : system === 'sys-truncated' ? 'spec' : 'service',
        });
        const proof = issued.proof;
        let shownResponse: unknown = response;
        if (plan.evidence === 'tampered-response') {
          // Altered after signing: the passage now says what the answer needs.
          shownResponse = { ...response, passages: served.map((p) => ({ ...p, text: `${p.text} (version modifiée)` })) };
        }
        if (plan.evidence === 'unsigned') {
          delete proof.arkforge_signature;
          delete proof.arkforge_pubkey;
        }
        const jobId = `job-${system}-${item.item_id}-${attempt}`;
        const built = buildTimeline({
          job_id: jobId,
          receipts: [
            {
              tool: 'plan',
              provenance_class: 'LOGGED BY AGENT',
              canonical_bytes: canonicalJson({ step: 'plan', question: item.question }),
            },
            { tool: 'retrieve', provenance_class: 'LOGGED BY AGENT', canonical_bytes: canonicalJson(response) },
            { tool: 'answer', provenance_class: 'LOGGED BY AGENT', canonical_bytes: canonicalJson({ step: 'answer', text: plan.text }) },
          ],
        });
        commitments.push(built.commitment);
        const timeline: Timeline = plan.chain === 'tail-cut' ? cutTail(built.timeline, 2) : built.timeline;
        lines.push(
          canonicalJson({
            format: 'prereg.submission/1',
            system_id: system,
            item_id: item.item_id,
            attempt,
            answer: { text: plan.text, refused: plan.refused, truncated: plan.truncated },
            evidence: [{ proof, request, response: shownResponse }],
            receipts: timeline,
          }),
        );
        records++;
      }
    }
    if (system === 'sys-tampered') {
      lines.splice(5, 0, lines[0]!); // a duplicate (system, item, attempt): rejected, the first kept
      lines.push(lines[lines.length - 1]!.replace('"item_id":"mp-020"', '"item_id":"mp-099"')); // not a frozen item
    }
    writeFileSync(join(submissions, `${system}.jsonl`), `${lines.join('\n')}\n`);
    if (system === 'sys-honest') {
      // A dishonest participant's whole effort: another system's lines, system_id changed.
      const copied = lines
        .filter((l) => COPIED_ITEMS.some((id) => l.includes(`"item_id":"${id}"`)))
        .map((l) => l.replace('"system_id":"sys-honest"', `"system_id":"${COPYCAT}"`));
      writeFileSync(join(submissions, `${COPYCAT}.jsonl`), `${copied.join('\n')}\n`);
      records += copied.length;
    }
  }
  writeFileSync(join(root, 'inputs/commitments.jsonl'), `${commitments.map((c) => canonicalJson(c)).join('\n')}\n`);
  return { records, rejectsExpected: 2 };
}
