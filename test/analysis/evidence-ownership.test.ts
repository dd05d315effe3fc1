// Evidence belongs to the record that submits it (SPEC §6.2, docs/ownership.md): a copied proof
// proves nothing for the copier, a proof or timeline claimed by two records proves nothing for
// either, a fingerprint the proof does not publish binds nothing — and the declared column never
// moves. Each case is a hand-built study (test/support/small-study.ts) run to the end of score.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articlePassages } from '../../scripts/generate-example-submissions.ts';
import { buyerFingerprint } from '../support/arkforge-issuer.ts';
import { PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { buildSmallStudy, smallBuyerKey, type HandRecord, type SmallStudyOptions } from '../support/small-study.ts';
import { queryStore } from '../support/store-query.ts';

const passages = articlePassages(join(PROJECT_ROOT, 'corpus'), [
  'code-commande-publique/partie-reglementaire.md',
  'code-commande-publique/partie-legislative.md',
  'ccag-travaux.md',
]);
const served = (...refs: string[]) => refs.map((ref) => ({ ref, text: passages.get(ref)! }));

// Three positives answered with their expected reference, each with its own evidence.
const MP001: HandRecord = {
  system: 'sys-a',
  item: 'mp-001',
  attempt: 1,
  text: "Selon l'article R2122-8, le seuil est de 40 000 euros hors taxes.",
  passages: served('R2122-8'),
};
const MP014: HandRecord = {
  system: 'sys-a',
  item: 'mp-014',
  attempt: 1,
  text: 'Voir le CCAG Travaux 4.',
  passages: served('CCAG Travaux 4'),
};
const MP005: HandRecord = {
  system: 'sys-a',
  item: 'mp-005',
  attempt: 1,
  text: "Selon l'article R2121-1, la valeur estimée du besoin est calculée.",
  passages: served('R2121-1'),
};
const COPY = { system: 'copycat', item: 'mp-001', attempt: 1, copyOf: { system: 'sys-a', item: 'mp-001', attempt: 1 } };

interface Study {
  root: string;
  cleanup: () => void;
}

async function scored(records: HandRecord[], options: SmallStudyOptions = {}): Promise<Study> {
  const study = await buildSmallStudy(records, options);
  const r = await runCli(['score', '--root', study.root, '--json']);
  if (r.code !== 0) throw new Error(`score failed: ${r.stdout}${r.stderr}`);
  return study;
}

/** positives_citing_expected per system: [declared, proven, n]. */
async function citing(root: string): Promise<Record<string, [string, string, string]>> {
  // Over the 48 expected positive records of each system (16 positives × 3 attempts, SPEC §13.1).
  const rows = await queryStore(
    root,
    "SELECT system_id, declared, proven, n_declared FROM result_scores WHERE metric = 'positives_citing_expected' ORDER BY system_id",
  );
  return Object.fromEntries(rows.map((r) => [r.system_id, [r.declared, r.proven, r.n_declared]])) as Record<
    string,
    [string, string, string]
  >;
}

/** evidence_ownership by "system/item/attempt kind": binding, reason codes, reused_by, owned. */
async function ownership(
  root: string,
): Promise<Record<string, { binding: unknown; reason_codes: unknown; reused_by: unknown; owned: unknown }>> {
  const rows = await queryStore(
    root,
    'SELECT system_id, item_id, attempt, evidence_kind, binding, reason_codes, reused_by, owned FROM evidence_ownership',
  );
  return Object.fromEntries(
    rows.map((r) => [
      `${r.system_id}/${r.item_id}/${r.attempt} ${r.evidence_kind}`,
      { binding: r.binding, reason_codes: r.reason_codes, reused_by: r.reused_by, owned: r.owned },
    ]),
  );
}

async function proofStatuses(root: string): Promise<string[]> {
  return (await queryStore(root, 'SELECT status FROM proof_checks ORDER BY record_id')).map((r) => String(r.status));
}

describe('a copied line in a study that registers no systems', () => {
  let s: Study;
  let outputs: string;
  beforeAll(async () => {
    s = await scored([MP001], { registered: false, copies: [COPY] });
    outputs = join(s.root, 'outputs');
    const run = await runCli(['run', '--root', s.root, '--outputs', outputs, ...TEST_OPERATOR_ARGS, '--json']);
    if (run.code !== 0) throw new Error(`run failed: ${run.stdout}${run.stderr}`);
  });
  afterAll(() => s.cleanup());

  it('is EVIDENCE_REUSED on the original and on the copy: proven 0 for both, declared unchanged, the proof still VERIFIED', async () => {
    expect(await citing(s.root)).toEqual({ copycat: ['1', '0', '48'], 'sys-a': ['1', '0', '48'] });
    expect(await proofStatuses(s.root)).toEqual(['VERIFIED', 'VERIFIED']);
    const o = await ownership(s.root);
    for (const record of ['copycat/mp-001/1', 'sys-a/mp-001/1']) {
      expect(o[`${record} proof`]).toEqual({ binding: null, reason_codes: ['EVIDENCE_REUSED'], reused_by: ['chain_hash'], owned: false });
      expect(o[`${record} timeline`]).toEqual({
        binding: null,
        reason_codes: ['EVIDENCE_REUSED'],
        reused_by: ['job_final_digest'],
        owned: false,
      });
    }
    const classes = await queryStore(
      s.root,
      "SELECT system_id, class_declared, class_proven FROM result_assertion_classes WHERE kind = 'citation' ORDER BY system_id",
    );
    expect(classes).toEqual([
      { system_id: 'copycat', class_declared: 'GROUNDED_EXPECTED', class_proven: 'OUT_OF_CONTEXT' },
      { system_id: 'sys-a', class_declared: 'GROUNDED_EXPECTED', class_proven: 'OUT_OF_CONTEXT' },
    ]);
  });

  it('is counted, with the warning, by verify', async () => {
    const json = await runCli(['verify', '--root', s.root, '--json']);
    expect(json.json.ownership).toEqual({ registered_systems: 0, not_bound: 0, reused: 4 });
    const text = await runCli(['verify', '--root', s.root]);
    expect(text.stdout).toContain('4 EVIDENCE_REUSED; warning: study.json registers no systems');
  });

  it('lists every reuse, with its records and systems, in results.json and the report, which says a copier cancels the original', () => {
    const [dir] = readdirSync(outputs);
    const results = JSON.parse(readFileSync(join(outputs, dir!, 'results.json'), 'utf8')) as {
      evidence: { registered_systems: unknown[]; reuse: Array<Record<string, unknown>> };
    };
    expect(results.evidence.registered_systems).toEqual([]);
    // Keyed only on what a signature or a commitment binds; the unsigned proof_id is listed, cancelling nothing.
    expect(results.evidence.reuse.map((r) => r.kind)).toEqual(['chain_hash', 'job_final_digest', 'proof_id']);
    for (const r of results.evidence.reuse) {
      expect(r).toMatchObject({
        records: ['copycat/mp-001/1', 'sys-a/mp-001/1'],
        systems: ['copycat', 'sys-a'],
        claimed_by: ['copycat/mp-001/1', 'sys-a/mp-001/1'],
        cancels: r.kind !== 'proof_id',
      });
    }
    expect(results.evidence.reuse.find((r) => r.kind === 'job_final_digest')!.value).toMatch(/^job-sys-a\/mp-001\/1 [0-9a-f]{64}$/);
    const report = readFileSync(join(outputs, dir!, 'report.md'), 'utf8');
    expect(report).toContain('study.json registers no systems');
    expect(report).toContain("cancels the original's proven credit");
    expect(report).toMatch(
      /\| chain\\_hash \| [0-9a-f]{64} \| copycat\/mp-001\/1, sys-a\/mp-001\/1 \| copycat, sys-a \| copycat\/mp-001\/1, sys-a\/mp-001\/1 \| yes \|/,
    );
    expect(report).toMatch(
      /\| proof\\_id \| prf\\_[^|]+ \| copycat\/mp-001\/1, sys-a\/mp-001\/1 \| copycat, sys-a \| copycat\/mp-001\/1, sys-a\/mp-001\/1 \| no \|/,
    );
  });
});

describe('the same copied line in a study that registers its systems', () => {
  let s: Study;
  beforeAll(async () => {
    s = await scored([MP001], { copies: [COPY] });
  });
  afterAll(() => s.cleanup());

  it('is EVIDENCE_NOT_BOUND for the copy; the original keeps its proven credit; declared unchanged', async () => {
    expect(await citing(s.root)).toEqual({ copycat: ['1', '0', '48'], 'sys-a': ['1', '1', '48'] });
    expect(await proofStatuses(s.root)).toEqual(['VERIFIED', 'VERIFIED']);
    const o = await ownership(s.root);
    expect(o['copycat/mp-001/1 proof']).toEqual({
      binding: 'NOT_BOUND',
      reason_codes: ['EVIDENCE_NOT_BOUND'],
      reused_by: [],
      owned: false,
    });
    expect(o['copycat/mp-001/1 timeline']).toEqual({
      binding: 'NOT_BOUND',
      reason_codes: ['EVIDENCE_NOT_BOUND'],
      reused_by: [],
      owned: false,
    });
    expect(o['sys-a/mp-001/1 proof']).toEqual({ binding: 'BOUND', reason_codes: [], reused_by: [], owned: true });
    expect(o['sys-a/mp-001/1 timeline']).toEqual({ binding: 'BOUND', reason_codes: [], reused_by: [], owned: true });
  });

  it('binds by the fingerprint the preimage carries, and still lists the copy as a reuse that cancels nothing', async () => {
    const fingerprints = await queryStore(
      s.root,
      'SELECT system_id, buyer_fingerprint, buyer_fingerprint_source FROM proof_checks ORDER BY system_id',
    );
    // The copy carries sys-a's buyer fingerprint: the one the copied chain hash covers.
    expect(fingerprints).toEqual([
      { system_id: 'copycat', buyer_fingerprint: buyerFingerprint(smallBuyerKey('sys-a')), buyer_fingerprint_source: 'preimage' },
      { system_id: 'sys-a', buyer_fingerprint: buyerFingerprint(smallBuyerKey('sys-a')), buyer_fingerprint_source: 'preimage' },
    ]);
    const reuse = await queryStore(s.root, 'SELECT kind, records, claimed_by, cancels FROM evidence_reuse ORDER BY kind');
    expect(reuse.map((r) => r.kind)).toEqual(['chain_hash', 'job_final_digest', 'proof_id']);
    for (const r of reuse)
      expect(r).toMatchObject({ records: ['copycat/mp-001/1', 'sys-a/mp-001/1'], claimed_by: ['sys-a/mp-001/1'], cancels: false });
  });

  it("gives nothing to a copy whose fingerprint was rewritten to the copier's: the chain no longer recomputes", async () => {
    const forged = await buildSmallStudy([MP001], { copies: [COPY] });
    try {
      const file = join(forged.root, 'inputs/submissions/copycat.jsonl');
      const text = readFileSync(file, 'utf8');
      const own = buyerFingerprint(smallBuyerKey('sys-a'));
      expect(text).toContain(own);
      writeFileSync(file, text.replaceAll(own, buyerFingerprint(smallBuyerKey('copycat'))));
      expect((await runCli(['score', '--root', forged.root, '--json'])).code).toBe(0);
      expect(await citing(forged.root)).toEqual({ copycat: ['1', '0', '48'], 'sys-a': ['1', '1', '48'] });
      const rows = await queryStore(forged.root, "SELECT status, buyer_fingerprint FROM proof_checks WHERE system_id = 'copycat'");
      expect(rows).toEqual([{ status: 'TAMPERED', buyer_fingerprint: null }]);
      expect((await ownership(forged.root))['copycat/mp-001/1 proof']!.reason_codes).toEqual(['EVIDENCE_NOT_BOUND']);
    } finally {
      forged.cleanup();
    }
  });
});

describe('a copied line that relays a reference from its served passage, in a registered study', () => {
  it('is RELAYED for the original in both columns, and for the copy only declared (PHANTOM proven: the passage is not its own)', async () => {
    const quoting = served('L2113-10')[0]!;
    expect(quoting.text).toContain('L5132-4'); // the corpus article quotes another code
    const relaying: HandRecord = {
      system: 'sys-a',
      item: 'mp-007',
      attempt: 1,
      text: "Selon l'article L2113-10, un lot peut être réservé (article L5132-4 du code du travail).",
      passages: [quoting],
    };
    const s = await scored([relaying], {
      copies: [{ system: 'copycat', item: 'mp-007', attempt: 1, copyOf: { system: 'sys-a', item: 'mp-007', attempt: 1 } }],
    });
    try {
      const classes = await queryStore(
        s.root,
        "SELECT system_id, ref, class_declared, class_proven FROM result_assertion_classes WHERE kind = 'citation' ORDER BY system_id, ref",
      );
      expect(classes).toEqual([
        { system_id: 'copycat', ref: 'L2113-10', class_declared: 'GROUNDED_EXPECTED', class_proven: 'OUT_OF_CONTEXT' },
        { system_id: 'copycat', ref: 'L5132-4', class_declared: 'RELAYED', class_proven: 'PHANTOM' },
        { system_id: 'sys-a', ref: 'L2113-10', class_declared: 'GROUNDED_EXPECTED', class_proven: 'GROUNDED_EXPECTED' },
        { system_id: 'sys-a', ref: 'L5132-4', class_declared: 'RELAYED', class_proven: 'RELAYED' },
      ]);
      const mentions = await queryStore(
        s.root,
        "SELECT r.system_id, m.proven, m.owned FROM passage_mentions m JOIN records r USING (record_id) WHERE m.ref = 'L5132-4' ORDER BY r.system_id",
      );
      expect(mentions).toEqual([
        { system_id: 'copycat', proven: true, owned: false },
        { system_id: 'sys-a', proven: true, owned: true },
      ]);
    } finally {
      s.cleanup();
    }
  });
});

describe('one system reusing its own evidence', () => {
  it('a proof submitted for two attempts of one item is EVIDENCE_REUSED on both: proven 0 for both, declared unchanged', async () => {
    const s = await scored([MP001, MP014], {
      copies: [{ system: 'sys-a', item: 'mp-001', attempt: 2, copyOf: { system: 'sys-a', item: 'mp-001', attempt: 1 } }],
    });
    try {
      // Positives: mp-001 ×2 and mp-014; only mp-014's evidence is its own.
      expect(await citing(s.root)).toEqual({ 'sys-a': ['3', '1', '48'] });
      const o = await ownership(s.root);
      for (const attempt of [1, 2]) {
        expect(o[`sys-a/mp-001/${attempt} proof`]).toEqual({
          binding: 'BOUND',
          reason_codes: ['EVIDENCE_REUSED'],
          reused_by: ['chain_hash'],
          owned: false,
        });
      }
      expect(o['sys-a/mp-014/1 proof']).toEqual({ binding: 'BOUND', reason_codes: [], reused_by: [], owned: true });
    } finally {
      s.cleanup();
    }
  });

  it('a receipt timeline submitted for two items is EVIDENCE_REUSED on both: proven 0 for both (receipts required), declared unchanged', async () => {
    const s = await scored([{ ...MP001, timeline: 'shared' }, { ...MP014, timeline: 'shared' }, MP005]);
    try {
      const chains = await queryStore(s.root, 'SELECT item_id, status, job_id FROM chain_checks ORDER BY item_id');
      expect(chains).toEqual([
        { item_id: 'mp-001', status: 'ANCHORED', job_id: 'job-shared' },
        { item_id: 'mp-005', status: 'ANCHORED', job_id: 'job-sys-a/mp-005/1' },
        { item_id: 'mp-014', status: 'ANCHORED', job_id: 'job-shared' },
      ]);
      expect(await proofStatuses(s.root)).toEqual(['VERIFIED', 'VERIFIED', 'VERIFIED']);
      expect(await citing(s.root)).toEqual({ 'sys-a': ['3', '1', '48'] });
      const o = await ownership(s.root);
      for (const item of ['mp-001', 'mp-014']) {
        expect(o[`sys-a/${item}/1 timeline`]).toEqual({
          binding: 'BOUND',
          reason_codes: ['EVIDENCE_REUSED'],
          reused_by: ['job_final_digest'],
          owned: false,
        });
        // The proof itself is the record's own; what it rests on (the required timeline) is not.
        expect(o[`sys-a/${item}/1 proof`]).toEqual({ binding: 'BOUND', reason_codes: [], reused_by: [], owned: true });
      }
      const passages = await queryStore(s.root, 'SELECT item_id, proven, owned FROM served_passages ORDER BY item_id');
      expect(passages).toEqual([
        { item_id: 'mp-001', proven: true, owned: false },
        { item_id: 'mp-005', proven: true, owned: true },
        { item_id: 'mp-014', proven: true, owned: false },
      ]);
    } finally {
      s.cleanup();
    }
  });
});

describe('a fingerprint the proof does not publish, in a registered study', () => {
  let s: Study;
  beforeAll(async () => {
    s = await scored([
      { ...MP001, proof: 'public' },
      { ...MP014, proof: '3.1-unopened' },
      // The owner opens the seller too: without it the proof binds no seller (EVIDENCE_SELLER_UNBOUND, SPEC §12.4).
      { ...MP005, proof: '3.1', openSeller: true },
    ]);
  });
  afterAll(() => s.cleanup());

  it('cannot bind: the public view (redacted preimage) and an unopened 3.1 commitment are EVIDENCE_NOT_BOUND; an opened one binds', async () => {
    const rows = await queryStore(
      s.root,
      'SELECT item_id, status, buyer_fingerprint, buyer_fingerprint_source FROM proof_checks ORDER BY item_id',
    );
    expect(rows).toEqual([
      { item_id: 'mp-001', status: 'UNTRUSTED', buyer_fingerprint: null, buyer_fingerprint_source: null },
      {
        item_id: 'mp-005',
        status: 'VERIFIED',
        buyer_fingerprint: buyerFingerprint(smallBuyerKey('sys-a')),
        buyer_fingerprint_source: 'opening',
      },
      { item_id: 'mp-014', status: 'VERIFIED', buyer_fingerprint: null, buyer_fingerprint_source: null },
    ]);
    const o = await ownership(s.root);
    expect(o['sys-a/mp-001/1 proof']).toMatchObject({ binding: 'NOT_BOUND', reason_codes: ['EVIDENCE_NOT_BOUND'], owned: false });
    // Its seller is not opened either.
    expect(o['sys-a/mp-014/1 proof']).toMatchObject({
      binding: 'NOT_BOUND',
      reason_codes: ['EVIDENCE_NOT_BOUND', 'EVIDENCE_SELLER_UNBOUND'],
      owned: false,
    });
    expect(o['sys-a/mp-005/1 proof']).toMatchObject({ binding: 'BOUND', reason_codes: [], owned: true });
  });

  it('proves only the bound record; declared unchanged', async () => {
    expect(await citing(s.root)).toEqual({ 'sys-a': ['3', '1', '48'] });
  });
});
