// `prereg verify` on the example study (three synthetic systems) and on single files.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleStudy, runCli } from '../support/cli.ts';
import { queryStore } from '../support/store-query.ts';

// What the generator (scripts/generate-example-submissions.ts) planted, written out here by hand.
const TAMPERED_PROOFS: Record<string, { status: string; codes: string[] }> = {
  'mp-002': { status: 'TAMPERED', codes: ['PROOF_RESPONSE_HASH_MISMATCH'] },
  'mp-003': { status: 'TAMPERED', codes: ['PROOF_RESPONSE_HASH_MISMATCH'] },
  'mp-004': { status: 'TAMPERED', codes: ['PROOF_RESPONSE_HASH_MISMATCH'] },
  'mp-005': { status: 'UNTRUSTED', codes: ['PROOF_SIGNATURE_MISSING'] },
  'mp-006': { status: 'UNTRUSTED', codes: ['PROOF_SIGNATURE_MISSING'] },
  'mp-007': { status: 'UNTRUSTED', codes: ['PROOF_KEY_UNTRUSTED'] },
  'mp-008': { status: 'UNTRUSTED', codes: ['PROOF_TSA_UNTRUSTED'] },
};
const CUT_CHAINS = ['mp-001', 'mp-002', 'mp-003', 'mp-004', 'mp-005', 'mp-006', 'mp-007', 'mp-008', 'mp-009', 'mp-010'];

let root: string;
let cleanup: () => void;
let first: Awaited<ReturnType<typeof runCli>>;
beforeAll(async () => {
  ({ root, cleanup } = copyExampleStudy());
  first = await runCli(['verify', '--root', root, '--json']);
});
afterAll(() => cleanup());

describe('verify on the example study', () => {
  it('verifies every ingested evidence item and chain', () => {
    expect(first.code).toBe(0);
    expect(first.json).toMatchObject({ ok: true, skipped: false, evidence: 180, chains: 180 });
  });

  it('gives the expected proof status for every record', async () => {
    const rows = await queryStore(root, 'SELECT system_id, item_id, attempt, status, reason_codes FROM proof_checks ORDER BY ALL');
    expect(rows).toHaveLength(180);
    for (const r of rows) {
      const planted = r.system_id === 'sys-tampered' ? TAMPERED_PROOFS[r.item_id as string] : undefined;
      const where = `${r.system_id} ${r.item_id} #${r.attempt}`;
      expect({ status: r.status, codes: r.reason_codes }, where).toEqual(planted ?? { status: 'VERIFIED', codes: [] });
    }
  });

  it('gives the expected chain status for every record: only the commitment catches a tail cut', async () => {
    const rows = await queryStore(root, 'SELECT system_id, item_id, status, reason_codes, check_links, entry_count FROM chain_checks ORDER BY ALL');
    expect(rows).toHaveLength(180);
    for (const r of rows) {
      const cut = r.system_id === 'sys-truncated' && CUT_CHAINS.includes(r.item_id as string);
      expect({ status: r.status, codes: r.reason_codes, n: r.entry_count }, `${r.system_id} ${r.item_id}`).toEqual(
        cut
          ? { status: 'UNANCHORED', codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'], n: 2 }
          : { status: 'ANCHORED', codes: [], n: 3 },
      );
      expect(r.check_links).toBe('pass'); // internally consistent either way
    }
  });

  it('links each response to the chain entry whose output_hash it is, and proves only what verified', async () => {
    const links = await queryStore(root, 'SELECT count(*) AS n, count(DISTINCT record_id) AS records, min(seq) AS seq FROM evidence_links');
    expect(links[0]).toEqual({ n: '180', records: '180', seq: 2 });
    const served = await queryStore(
      root,
      `SELECT system_id, item_id, bool_and(declared) AS declared, bool_or(proven) AS any_proven, bool_and(proven) AS all_proven
       FROM served_passages GROUP BY ALL ORDER BY ALL`,
    );
    for (const s of served) {
      const bad =
        (s.system_id === 'sys-tampered' && s.item_id as string in TAMPERED_PROOFS) ||
        (s.system_id === 'sys-truncated' && CUT_CHAINS.includes(s.item_id as string));
      expect(s.declared).toBe(true);
      expect({ any: s.any_proven, all: s.all_proven }, `${s.system_id} ${s.item_id}`).toEqual(bad ? { any: false, all: false } : { any: true, all: true });
    }
  });

  it('skips when nothing changed, reruns with --force', async () => {
    const again = await runCli(['verify', '--root', root, '--json']);
    expect(again.json).toMatchObject({ skipped: true, evidence: 180 });
    const forced = await runCli(['verify', '--root', root, '--force', '--json']);
    expect(forced.json).toMatchObject({ skipped: false, evidence: 180 });
  });
});

describe('verify refuses a drifted trust directory', () => {
  it('exits 3 with TRUST_DRIFT', async () => {
    const s = copyExampleStudy();
    try {
      const policy = join(s.root, 'preregistration/trust/policy.json');
      writeFileSync(policy, readFileSync(policy, 'utf8').replace('"max_skew_seconds": 300', '"max_skew_seconds": 3000'));
      const r = await runCli(['verify', '--root', s.root, '--json']);
      expect(r.code).toBe(3);
      expect(r.json.code).toBe('TRUST_DRIFT');
    } finally {
      s.cleanup();
    }
  });
});

describe('verify FILE… (outside the pipeline)', () => {
  it('recognises chains, evidence items and bare proofs, one JSON line per file in order, same result as the pipeline', async () => {
    const dir = join(root, 'files');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    const lines = readFileSync(join(root, 'inputs/submissions/sys-tampered.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const honest = lines.find((l) => l.item_id === 'mp-001' && l.attempt === 1);
    const tampered = lines.find((l) => l.item_id === 'mp-002' && l.attempt === 1);
    writeFileSync(join(dir, 'evidence-good.json'), JSON.stringify(honest.evidence[0]));
    writeFileSync(join(dir, 'evidence-tampered.json'), JSON.stringify(tampered.evidence[0]));
    writeFileSync(join(dir, 'sub/proof.json'), JSON.stringify(honest.evidence[0].proof));
    writeFileSync(join(dir, 'sub/chain.json'), JSON.stringify(honest.receipts));
    writeFileSync(join(dir, 'broken.json'), '{"proof": {"a": 1, "a": 2}}');
    const r = await runCli(['verify', join(dir, 'evidence-tampered.json'), dir, '--root', root, '--json']);
    expect(r.code).toBe(1);
    expect(r.jsonLines.map((l) => [l.file.slice(dir.length + 1), l.kind, l.status, l.reason_codes])).toEqual([
      ['evidence-tampered.json', 'evidence', 'TAMPERED', ['PROOF_RESPONSE_HASH_MISMATCH']],
      ['broken.json', 'unknown', 'MALFORMED', ['JSON_DUPLICATE_KEY']],
      ['evidence-good.json', 'evidence', 'VERIFIED', []],
      ['evidence-tampered.json', 'evidence', 'TAMPERED', ['PROOF_RESPONSE_HASH_MISMATCH']],
      ['sub/chain.json', 'chain', 'ANCHORED', []],
      ['sub/proof.json', 'proof', 'VERIFIED', []],
    ]);
    const good = await runCli(['verify', join(dir, 'evidence-good.json'), join(dir, 'sub/chain.json'), '--root', root]);
    expect(good.code).toBe(0);
    expect(good.stdout).toContain('evidence VERIFIED');
  });

  it('uses the worker pool for many files, with the same results as the pipeline', async () => {
    const dir = join(root, 'many');
    mkdirSync(dir, { recursive: true });
    const read = (f: string) => readFileSync(join(root, 'inputs/submissions', f), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const lines = [...read('sys-honest.jsonl'), ...read('sys-tampered.jsonl')].slice(0, 80);
    lines.forEach((l, i) => writeFileSync(join(dir, `e${String(i).padStart(3, '0')}.json`), JSON.stringify(l.evidence[0])));
    const r = await runCli(['verify', dir, '--root', root, '--json']);
    expect(r.jsonLines).toHaveLength(80);
    const rows = await queryStore(root, 'SELECT system_id, item_id, attempt, status, reason_codes FROM proof_checks');
    const byKey = new Map(rows.map((x) => [`${x.system_id}/${x.item_id}/${x.attempt}`, [x.status, x.reason_codes]]));
    lines.forEach((l, i) => {
      expect([r.jsonLines[i].status, r.jsonLines[i].reason_codes], `${l.system_id} ${l.item_id}`).toEqual(byKey.get(`${l.system_id}/${l.item_id}/${l.attempt}`));
    });
    expect(r.jsonLines.filter((l) => l.status !== 'VERIFIED').length).toBeGreaterThan(0);
  });

  it('works outside a study: --trust given, no study.json, an unbounded window', async () => {
    const lines = readFileSync(join(root, 'inputs/submissions/sys-honest.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const outside = join(root, 'outside');
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'evidence.json'), JSON.stringify(lines[0].evidence[0]));
    writeFileSync(join(outside, 'chain.json'), JSON.stringify(lines[0].receipts));
    const r = await runCli(['verify', outside, '--root', outside, '--trust', join(root, 'preregistration/trust'), '--json']);
    // No commitments file outside the study: the chain is consistent but not anchored.
    expect(r.jsonLines.map((l) => [l.kind, l.status, l.reason_codes])).toEqual([
      ['chain', 'UNANCHORED', ['COMMITMENT_MISSING']],
      ['evidence', 'VERIFIED', []],
    ]);
    const anchored = await runCli(['verify', join(outside, 'chain.json'), '--root', outside, '--trust', join(root, 'preregistration/trust'), '--commitments', join(root, 'inputs/commitments.jsonl'), '--json']);
    expect(anchored.jsonLines[0].status).toBe('ANCHORED');
    expect(anchored.code).toBe(0);
  });
});
