// Hand-built studies for the analysis tests: the example study's frozen corpus, key and section 5,
// with submissions written here record by record, so the expected class of every assertion is
// known. Evidence is minted like the example's (TEST-ONLY key, local pkijs TSA, anchored chains):
// each system buys with its own TEST-ONLY API key and each call's response carries its own
// call_id, so that every record's evidence is its own unless a test says otherwise. The study
// registers its systems (study.json `systems`, SPEC §6.2) unless `registered: false`; either way
// it is frozen and anchored again (local TSA), so the scoring preflight and an audit accept it.
import type { KeyObject } from 'node:crypto';
import { readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { agentKeyRegistration } from '../../pipeline/participant/agent-key.ts';
import { canonicalJson } from '../../pipeline/formats/canonical-json.ts';
import { freezeAndAnchor, withBindingNone, withRegisteredSystems } from '../../scripts/rebuild-example.ts';
import { EXAMPLE_SELLER } from '../../scripts/generate-example-submissions.ts';
import { buildTimeline } from './aer1-builder.ts';
import { buyerFingerprint, issueProof } from './arkforge-issuer.ts';
import { issueProofV3, ownerDisclosure } from './arkforge-issuer-v3.ts';
import { expect } from 'vitest';
import { copyExampleStudy, PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from './cli.ts';
import { smallBuyerKey, type RecordBase } from './submission-record.ts';
import { loadTestSigner } from './tsa/pkijs-tsa.ts';

export interface HandRecord extends RecordBase {
  /** Alter the served response after signing (the proof then is TAMPERED). */
  tamper?: boolean;
  /** Whose buyer key paid for the call; default the record's own system. */
  buyer?: string;
  /**
   * The proof's form: 'spec' (2.1, default), 'public' (2.1, the issuer's public view: redacted
   * preimage), '3.1' (bodies bound by opened hash commitments, the buyer fingerprint opened too),
   * '3.1-unopened' (the same without opening the buyer fingerprint).
   */
  proof?: 'spec' | 'public' | '3.1' | '3.1-unopened';
  /** Records with the same key share one receipt timeline: a retrieve entry per record's response. */
  timeline?: string;
  /** The request's query (default the item id: every attempt of an item then sends the same request, one request hash). */
  query?: string;
  /** A deterministic retrieval service: the response carries nothing of the call (no call_id), so equal queries get equal bytes. */
  deterministic?: boolean;
  /** The proof's proof_id (not covered by the signature: anyone may write any). */
  proofId?: string;
  /** The retrieval service that issued the call (default the example's pinned EXAMPLE_SELLER). */
  seller?: string;
  /** For a 3.1 proof: open the `seller` commitment in the owner's disclosure too (default false: as the real 3.1 proofs, which open only the identity block). */
  openSeller?: boolean;
  /** Submit the proof without its response body (the proof still verifies: nothing shows what was served). */
  withholdResponse?: boolean;
  /** The line's `config` (what produced it); absent by default. */
  config?: Record<string, string | number | boolean>;
  /**
   * The entries the record's timeline logs, in order: each a tool name and what its bytes are (the
   * served response, which links the proof, or the answer). Default: retrieve (the response), then
   * answer (the answer), as the other records of a shared timeline.
   */
  tools?: ReadonlyArray<{ tool: string; bytes: 'response' | 'answer' }>;
}

/** A line copied from another record, with only its key changed (what a copier submits). */
export interface CopiedLine {
  system: string;
  item: string;
  attempt: number;
  copyOf: { system: string; item: string; attempt: number };
}

export interface SmallStudyOptions {
  /** Register every system of the records with its own key's fingerprint (default true). */
  registered?: boolean;
  copies?: readonly CopiedLine[];
  /** Changes the copied example's corpus before the freeze (e.g. a section that mentions another article). */
  editCorpus?: (corpusDir: string) => void;
  /** The trust policy's `sellers` instead of the example's (SPEC §12.4). */
  sellers?: string[] | 'any';
  /** The trust policy's `require_receipts` instead of the example's (true). */
  requireReceipts?: boolean;
  /** Registers these Ed25519 private keys' public halves as the systems' agent_keys (with proofs of possession). */
  agentKeys?: Readonly<Record<string, KeyObject>>;
  /** Changes study.json's text before the freeze (after the registration is written). */
  editStudy?: (studyText: string) => string;
  /** Changes PREREGISTRATION.md's text before the freeze (e.g. a class of the study's own in section 5). */
  editPlan?: (planText: string) => string;
}

const KEY = readFileSync(join(PROJECT_ROOT, 'test/fixtures/keys/TEST-ONLY-arkforge-2026.key.pem'), 'utf8');
export { smallBuyerKey };
const keyOf = (r: { system: string; item: string; attempt: number }) => `${r.system}/${r.item}/${r.attempt}`;

export async function buildSmallStudy(
  records: readonly HandRecord[],
  options: SmallStudyOptions = {},
): Promise<{ root: string; cleanup: () => void }> {
  const study = copyExampleStudy();
  options.editCorpus?.(join(study.root, 'corpus'));
  if (options.sellers !== undefined || options.requireReceipts !== undefined) {
    const policyFile = join(study.root, 'preregistration/trust/policy.json');
    const policy = JSON.parse(readFileSync(policyFile, 'utf8')) as Record<string, unknown>;
    writeFileSync(
      policyFile,
      `${JSON.stringify({ ...policy, sellers: options.sellers ?? policy.sellers, require_receipts: options.requireReceipts ?? policy.require_receipts }, null, 2)}\n`,
    );
  }
  const signer = await loadTestSigner('tsa');
  const submissions = join(study.root, 'inputs/submissions');
  rmSync(submissions, { recursive: true, force: true });
  mkdirSync(submissions, { recursive: true });
  let clock = Date.parse('2026-11-05T10:00:00Z');
  const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');

  const minted: Array<{ r: HandRecord; item: Record<string, unknown>; response: unknown }> = [];
  for (const r of records) {
    clock += 60_000;
    const request = { query: r.query ?? r.item };
    const response = r.deterministic ? { passages: r.passages } : { call_id: `call-${keyOf(r)}`, passages: r.passages };
    const base = {
      request,
      response,
      timestamp: iso(clock),
      seller: r.seller ?? EXAMPLE_SELLER,
      buyerApiKey: smallBuyerKey(r.buyer ?? r.system),
      transactionId: `crd_${r.system}_${r.item}_${r.attempt}`,
      signingKeyPem: KEY,
      tsa: { signer, genTime: iso(clock + 1000) },
      ...(r.proofId === undefined ? {} : { proofId: r.proofId }),
    };
    const shown = r.tamper ? { ...response, passages: r.passages.map((p) => ({ ...p, text: `${p.text} (modifié)` })) } : response;
    const form = r.proof ?? 'spec';
    let item: Record<string, unknown>;
    if (form === '3.1' || form === '3.1-unopened') {
      const issued = await issueProofV3({ ...base, specVersion: '3.1' });
      const opened = [
        ...(form === '3.1' ? ['buyer_fingerprint'] : []),
        'request_hash',
        'response_hash',
        ...(r.openSeller ? ['seller'] : []),
      ];
      item = { proof: issued.proof, request, response: shown, disclosure: ownerDisclosure(issued, opened) };
    } else {
      const issued = await issueProof({ ...base, specVersion: '2.1', ...(form === 'public' ? { view: 'public' as const } : {}) });
      item = { proof: issued.proof, request, response: shown };
    }
    if (r.withholdResponse) delete item.response;
    minted.push({ r, item, response });
  }

  // The retrieve entry's bytes are the response as canonical JSON: its output commitment is
  // the proof's response hash, which links the two (SPEC §6.2).
  const timelines = new Map<string, { timeline: unknown; commitment: unknown }>();
  const groups = new Map<string, typeof minted>();
  for (const m of minted) {
    const group = m.r.timeline ?? keyOf(m.r);
    groups.set(group, [...(groups.get(group) ?? []), m]);
  }
  for (const [group, members] of groups) {
    const entry = (m: (typeof minted)[number], tool: string, bytes: 'response' | 'answer') => ({
      tool,
      provenance_class: 'LOGGED BY AGENT' as const,
      canonical_bytes: bytes === 'response' ? canonicalJson(m.response) : m.r.text,
    });
    timelines.set(
      group,
      buildTimeline({
        job_id: `job-${group}`,
        receipts: members.some((m) => m.r.tools !== undefined)
          ? members.flatMap((m) =>
              (
                m.r.tools ?? [
                  { tool: 'retrieve', bytes: 'response' },
                  { tool: 'answer', bytes: 'answer' },
                ]
              ).map((t) => entry(m, t.tool, t.bytes)),
            )
          : [...members.map((m) => entry(m, 'retrieve', 'response')), ...members.map((m) => entry(m, 'answer', 'answer'))],
      }),
    );
  }

  const lines = new Map<string, string[]>();
  const byKey = new Map<string, string>();
  const add = (system: string, line: string) => lines.set(system, [...(lines.get(system) ?? []), line]);
  for (const { r, item } of minted) {
    const line = canonicalJson({
      format: 'prereg.submission/1',
      system_id: r.system,
      item_id: r.item,
      attempt: r.attempt,
      answer: { text: r.text, refused: r.refused ?? false, truncated: r.truncated ?? false },
      evidence: [item],
      receipts: timelines.get(r.timeline ?? keyOf(r))!.timeline,
      ...(r.config === undefined ? {} : { config: r.config }),
    });
    byKey.set(keyOf(r), line);
    add(r.system, line);
  }
  for (const c of options.copies ?? []) {
    const original = byKey.get(keyOf(c.copyOf));
    if (!original) throw new Error(`small study: no record ${keyOf(c.copyOf)} to copy`);
    // Canonical JSON: the top-level keys are sorted (…attempt, evidence, …, item_id, receipts, system_id).
    const copied = original
      .replace(`"attempt":${c.copyOf.attempt},"evidence"`, `"attempt":${c.attempt},"evidence"`)
      .replace(`"item_id":${JSON.stringify(c.copyOf.item)},"receipts"`, `"item_id":${JSON.stringify(c.item)},"receipts"`)
      .replace(/"system_id":"[^"]*"}$/, `"system_id":${JSON.stringify(c.system)}}`);
    add(c.system, copied);
  }
  for (const [system, l] of lines) writeFileSync(join(submissions, `${system}.jsonl`), `${l.join('\n')}\n`);
  writeFileSync(
    join(study.root, 'inputs/commitments.jsonl'),
    `${[...timelines.values()].map((t) => canonicalJson(t.commitment)).join('\n')}\n`,
  );

  const systems = [...new Set([...records.map((r) => r.system), ...(options.copies ?? []).map((c) => c.system)])].sort();
  const studyFile = join(study.root, 'preregistration/study.json');
  const studyId = (JSON.parse(readFileSync(studyFile, 'utf8')) as { study_id: string }).study_id;
  const agent = (system_id: string) => {
    const key = options.agentKeys?.[system_id];
    return key === undefined ? {} : { agent_keys: [agentKeyRegistration(key, studyId, system_id)] };
  };
  const registration =
    options.registered === false
      ? []
      : systems.map((system_id) => ({ system_id, buyer_fingerprints: [buyerFingerprint(smallBuyerKey(system_id))], ...agent(system_id) }));
  let studyText = withRegisteredSystems(readFileSync(studyFile, 'utf8'), registration);
  // Unregistered: the declared weakened mode (freeze refuses a study that registers none otherwise).
  if (options.registered === false) studyText = withBindingNone(studyText);
  writeFileSync(studyFile, options.editStudy ? options.editStudy(studyText) : studyText);
  if (options.editPlan) {
    const planFile = join(study.root, 'preregistration/PREREGISTRATION.md');
    writeFileSync(planFile, options.editPlan(readFileSync(planFile, 'utf8')));
  }
  await freezeAndAnchor(study.root, async (args) => {
    const r = await runCli(args);
    if (r.code !== 0) throw new Error(`small study: prereg ${args[0]} failed: ${r.stdout}${r.stderr}`);
  });
  return study;
}

/** What `prereg run` made of a small study: its outputs directory, results.json, and report.md read without Markdown's `\` escapes. */
export interface SmallStudyRun<R> {
  dir: string;
  results: R;
  report: string;
}

/** Runs the whole pipeline on a small study (it must succeed) and reads its results and report. */
export async function runSmallStudy<R>(root: string): Promise<SmallStudyRun<R>> {
  const run = await runCli(['run', '--root', root, '--outputs', join(root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
  expect(run.code, run.stdout + run.stderr).toBe(0);
  const dir = run.json.dir as string;
  return {
    dir,
    results: JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as R,
    report: readFileSync(join(dir, 'report.md'), 'utf8').replace(/\\/g, ''),
  };
}
