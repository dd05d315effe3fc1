// `prereg verify` on the example study (three synthetic systems) and on single files.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson, parseJson, toPlain } from '../../pipeline/formats/canonical-json.ts';
import { BOUND_IDENTITY, anchorBatch, issueProofV3, logWitnessedHash, ownerDisclosure } from '../support/arkforge-issuer-v3.ts';
import { PROJECT_ROOT, TEST_OPERATOR_ARGS, copyExampleStudy, runCli } from '../support/cli.ts';
import { TestLog } from '../support/tlog/test-log.ts';
import { pinTestLog } from '../support/tlog/trust-dir.ts';
import { loadTestSigner } from '../support/tsa/pkijs-tsa.ts';
import { queryStore } from '../support/store-query.ts';

// What the generator (scripts/generate-example-submissions.ts) planted, written out here by hand.
const TAMPERED_PROOFS: Record<string, { status: string; reason_codes: string[] }> = {
  'mp-002': { status: 'TAMPERED', reason_codes: ['PROOF_RESPONSE_HASH_MISMATCH'] },
  'mp-003': { status: 'TAMPERED', reason_codes: ['PROOF_RESPONSE_HASH_MISMATCH'] },
  'mp-004': { status: 'TAMPERED', reason_codes: ['PROOF_RESPONSE_HASH_MISMATCH'] },
  'mp-005': { status: 'UNTRUSTED', reason_codes: ['PROOF_SIGNATURE_MISSING'] },
  'mp-006': { status: 'UNTRUSTED', reason_codes: ['PROOF_SIGNATURE_MISSING'] },
  'mp-007': { status: 'UNTRUSTED', reason_codes: ['PROOF_KEY_UNTRUSTED'] },
  'mp-008': { status: 'UNTRUSTED', reason_codes: ['PROOF_TSA_UNTRUSTED'] },
  'mp-009': { status: 'UNTRUSTED', reason_codes: ['PROOF_PREIMAGE_REDACTED'] },
};
/** 20 items × (3 + 3 + 2 + 3) attempts (sys-truncated makes two per item; sys-honest-rerun, sys-honest's replicate, three), and the copycat's 15 copied lines. */
const RECORDS = 235;
/** One commitment per job: the copycat's copied lines carry sys-honest's timelines, whose commitments are already there. */
const COMMITMENTS = 220;
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
    expect(first.json).toMatchObject({ ok: true, skipped: false, evidence: RECORDS, chains: RECORDS });
  });

  it('gives the expected proof status for every record', async () => {
    const rows = await queryStore(root, 'SELECT system_id, item_id, attempt, status, reason_codes FROM proof_checks ORDER BY ALL');
    expect(rows).toHaveLength(RECORDS);
    for (const r of rows) {
      const planted = r.system_id === 'sys-tampered' ? TAMPERED_PROOFS[r.item_id as string] : undefined;
      const where = `${r.system_id} ${r.item_id} #${r.attempt}`;
      expect({ status: r.status, reason_codes: r.reason_codes }, where).toEqual(planted ?? { status: 'VERIFIED', reason_codes: [] });
    }
  });

  it('gives the expected chain status for every record: only the commitment catches a tail cut', async () => {
    const rows = await queryStore(
      root,
      'SELECT system_id, item_id, status, reason_codes, check_links, entry_count FROM chain_checks ORDER BY ALL',
    );
    expect(rows).toHaveLength(RECORDS);
    for (const r of rows) {
      const cut = r.system_id === 'sys-truncated' && CUT_CHAINS.includes(r.item_id as string);
      expect({ status: r.status, reason_codes: r.reason_codes, n: r.entry_count }, `${r.system_id} ${r.item_id}`).toEqual(
        cut
          ? { status: 'UNANCHORED', reason_codes: ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'], n: 2 }
          : { status: 'ANCHORED', reason_codes: [], n: 3 },
      );
      expect(r.check_links).toBe('pass'); // internally consistent either way
    }
  });

  it('links each response to the timeline entry whose output commitment it is, and proves only what verified', async () => {
    const links = await queryStore(root, 'SELECT count(*) AS n, count(DISTINCT record_id) AS records, min(seq) AS seq FROM evidence_links');
    expect(links[0]).toEqual({ n: String(RECORDS), records: String(RECORDS), seq: 2 });
    const served = await queryStore(
      root,
      `SELECT system_id, item_id, bool_and(declared) AS declared, bool_or(proven) AS any_proven, bool_and(proven) AS all_proven
       FROM served_passages GROUP BY ALL ORDER BY ALL`,
    );
    for (const s of served) {
      const bad =
        (s.system_id === 'sys-tampered' && (s.item_id as string) in TAMPERED_PROOFS) ||
        (s.system_id === 'sys-truncated' && CUT_CHAINS.includes(s.item_id as string));
      expect(s.declared).toBe(true);
      expect({ any: s.any_proven, all: s.all_proven }, `${s.system_id} ${s.item_id}`).toEqual(
        bad ? { any: false, all: false } : { any: true, all: true },
      );
    }
    // Whose evidence is whose: the copycat's proofs were bought by sys-honest's key, and the public
    // view sys-tampered submitted for mp-009 publishes no fingerprint; everything else is its record's.
    const owned = await queryStore(
      root,
      'SELECT system_id, item_id, bool_or(owned) AS any_owned FROM served_passages GROUP BY ALL ORDER BY ALL',
    );
    expect(owned).toHaveLength(85); // 20 items of each of four systems, and the copycat's 5
    for (const o of owned) {
      const foreign = o.system_id === 'copycat' || (o.system_id === 'sys-tampered' && o.item_id === 'mp-009');
      expect(o.any_owned, `${o.system_id} ${o.item_id}`).toBe(!foreign);
    }
  });

  it('skips when nothing changed, reruns with --force', async () => {
    const again = await runCli(['verify', '--root', root, '--json']);
    expect(again.json).toMatchObject({ skipped: true, evidence: RECORDS });
    const forced = await runCli(['verify', '--root', root, '--force', '--json']);
    expect(forced.json).toMatchObject({ skipped: false, evidence: RECORDS });
  });
});

describe('verify with malformed lines in inputs/commitments.jsonl', () => {
  it('reports each with its file and line, lets the other lines count, and leaves unanchored the job whose only commitment is malformed', async () => {
    const s = copyExampleStudy();
    try {
      const file = join(s.root, 'inputs/commitments.jsonl');
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      // Line 1 (job-sys-honest-mp-001-1) written with entry_count 3.0; a second copy of line 2 as
      // 3.0 beside the valid one; a line that is not JSON.
      const float = (l: string) => l.replace('"entry_count":3,', '"entry_count":3.0,');
      expect(float(lines[0]!)).not.toBe(lines[0]);
      writeFileSync(file, `${[float(lines[0]!), ...lines.slice(1), float(lines[1]!), 'not json'].join('\n')}\n`);
      const r = await runCli(['verify', '--root', s.root, '--json']);
      expect(r.code).toBe(0);
      expect(r.json.commitments.lines).toBe(COMMITMENTS + 2);
      expect(r.json.commitments.malformed).toEqual([
        expect.stringMatching(/^inputs\/commitments\.jsonl:1: COMMITMENT_MALFORMED "entry_count" must be a positive JSON integer/),
        expect.stringMatching(/^inputs\/commitments\.jsonl:221: COMMITMENT_MALFORMED "entry_count"/),
        expect.stringMatching(/^inputs\/commitments\.jsonl:222: COMMITMENT_MALFORMED JSON_SYNTAX/),
      ]);
      const rows = await queryStore(
        s.root,
        `SELECT item_id, attempt, status, reason_codes, check_commitment_wellformed AS wellformed FROM chain_checks
        WHERE system_id = 'sys-honest' AND item_id = 'mp-001' ORDER BY attempt`,
      );
      expect(rows).toEqual([
        { item_id: 'mp-001', attempt: 1, status: 'UNANCHORED', reason_codes: ['COMMITMENT_MALFORMED'], wellformed: 'fail' },
        { item_id: 'mp-001', attempt: 2, status: 'ANCHORED', reason_codes: [], wellformed: 'pass' },
        { item_id: 'mp-001', attempt: 3, status: 'ANCHORED', reason_codes: [], wellformed: 'pass' },
      ]);
      const proven = await queryStore(
        s.root,
        `SELECT attempt, bool_and(proven) AS proven FROM served_passages WHERE system_id = 'sys-honest' AND item_id = 'mp-001' GROUP BY ALL ORDER BY ALL`,
      );
      expect(proven).toEqual([
        { attempt: 1, proven: false },
        { attempt: 2, proven: true },
        { attempt: 3, proven: true },
      ]);
      // Every malformed line is kept, as a submission reject is, in what rejects.csv lists.
      const written = readFileSync(file);
      const starts = [0];
      for (let i = 0; i < written.length; i++) if (written[i] === 0x0a) starts.push(i + 1);
      const expected = [1, COMMITMENTS + 1, COMMITMENTS + 2].map((n) => {
        const bytes = written.subarray(starts[n - 1]!, starts[n]! - 1);
        return {
          file: 'inputs/commitments.jsonl',
          line_no: n,
          byte_offset: starts[n - 1]!,
          line_sha256: createHash('sha256').update(bytes).digest('hex'),
          reason_code: 'COMMITMENT_MALFORMED',
        };
      });
      const rejected = await queryStore(
        s.root,
        `SELECT file, CAST(line_no AS INTEGER) AS line_no, CAST(byte_offset AS INTEGER) AS byte_offset, line_sha256, reason_code
        FROM input_rejects WHERE reason_code = 'COMMITMENT_MALFORMED' ORDER BY line_no`,
      );
      expect(rejected).toEqual(expected);
    } finally {
      s.cleanup();
    }
  });
});

describe('a hostile seq never stops the study', () => {
  it('a timeline numbered beyond any integer column is BROKEN (CHAIN_SEQ_GAP); verify completes for every record', async () => {
    const s = copyExampleStudy();
    try {
      const file = join(s.root, 'inputs/submissions/sys-honest.jsonl');
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      const first = JSON.parse(lines[0]!);
      first.receipts[1].seq = 99999999999;
      first.receipts[2].seq = 1e20;
      writeFileSync(file, `${[JSON.stringify(first), ...lines.slice(1)].join('\n')}\n`);
      const r = await runCli(['verify', '--root', s.root, '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const rows = await queryStore(
        s.root,
        `SELECT status, reason_codes, (SELECT CAST(count(*) AS INTEGER) FROM chain_entries e WHERE e.record_id = c.record_id) AS entries
        FROM chain_checks c WHERE system_id = 'sys-honest' AND item_id = 'mp-001' AND attempt = 1`,
      );
      expect(rows).toEqual([
        { status: 'BROKEN', reason_codes: ['CHAIN_LINK_BROKEN', 'CHAIN_SEQ_GAP', 'COMMITMENT_FINAL_DIGEST_MISMATCH'], entries: 0 },
      ]);
      expect(r.json.chains).toBe(RECORDS);
    } finally {
      s.cleanup();
    }
  });
});

describe("sys-honest's tokens carry no certificate, as FreeTSA's", () => {
  it('they verify with the TSA certificate the policy supplies (tsa_certs), and only with it', async () => {
    const s = copyExampleStudy();
    try {
      const line = JSON.parse(readFileSync(join(s.root, 'inputs/submissions/sys-honest.jsonl'), 'utf8').split('\n')[0]!);
      const file = join(s.root, 'evidence.json');
      writeFileSync(file, JSON.stringify(line.evidence[0]));
      const withCerts = await runCli(['verify', file, '--root', s.root, '--json']);
      expect([withCerts.json.status, withCerts.json.checks.tsa]).toEqual(['VERIFIED', 'pass']);
      // The same trust directory without tsa_certs: the token's signer cannot be found.
      const policy = join(s.root, 'preregistration/trust/policy.json');
      const doc = JSON.parse(readFileSync(policy, 'utf8'));
      delete doc.tsa_certs;
      writeFileSync(policy, JSON.stringify(doc));
      const without = await runCli(['verify', file, '--root', s.root, '--json']);
      expect([without.json.status, without.json.reason_codes]).toEqual(['UNTRUSTED', ['PROOF_TSA_UNTRUSTED']]);
      expect(without.json.problems.join('\n')).toContain('TSA_SIGNER_NOT_FOUND');
    } finally {
      s.cleanup();
    }
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
      expect(r.json.details.findings[0]).toMatchObject({ code: 'TRUST_DRIFT', file: 'preregistration/trust/policy.json' });
    } finally {
      s.cleanup();
    }
  });
});

describe('verify FILE… (outside the pipeline)', () => {
  it('recognises chains, evidence items and bare proofs, one JSON line per file in order, same result as the pipeline', async () => {
    const dir = join(root, 'files');
    mkdirSync(join(dir, 'sub'), { recursive: true });
    const lines = readFileSync(join(root, 'inputs/submissions/sys-tampered.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
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

  it('verifies many files at once, in order, with the same results as the pipeline', async () => {
    const dir = join(root, 'many');
    mkdirSync(dir, { recursive: true });
    const read = (f: string) =>
      readFileSync(join(root, 'inputs/submissions', f), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
    const lines = [...read('sys-honest.jsonl'), ...read('sys-tampered.jsonl')].slice(0, 80);
    lines.forEach((l, i) => {
      writeFileSync(join(dir, `e${String(i).padStart(3, '0')}.json`), JSON.stringify(l.evidence[0]));
    });
    // Many in flight at once: a file that does not parse still gets its line and code, in order.
    writeFileSync(join(dir, 'zz-duplicate-key.json'), '{"proof": {}, "proof": {}}');
    const r = await runCli(['verify', dir, '--root', root, '--json']);
    expect(r.jsonLines).toHaveLength(81);
    expect(r.jsonLines.map((l) => (l.file as string).slice(dir.length + 1))).toEqual([
      ...lines.map((_, i) => `e${String(i).padStart(3, '0')}.json`),
      'zz-duplicate-key.json',
    ]);
    expect([r.jsonLines[80].status, r.jsonLines[80].reason_codes, r.code]).toEqual(['MALFORMED', ['JSON_DUPLICATE_KEY'], 1]);
    const rows = await queryStore(root, 'SELECT system_id, item_id, attempt, status, reason_codes FROM proof_checks');
    const byKey = new Map(rows.map((x) => [`${x.system_id}/${x.item_id}/${x.attempt}`, [x.status, x.reason_codes]]));
    lines.forEach((l, i) => {
      expect([r.jsonLines[i].status, r.jsonLines[i].reason_codes], `${l.system_id} ${l.item_id}`).toEqual(
        byKey.get(`${l.system_id}/${l.item_id}/${l.attempt}`),
      );
    });
    expect(r.jsonLines.filter((l) => l.status !== 'VERIFIED').length).toBeGreaterThan(0);
  });

  it('works outside a study: --trust given, no study.json, an unbounded window', async () => {
    const lines = readFileSync(join(root, 'inputs/submissions/sys-honest.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
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
    const anchored = await runCli([
      'verify',
      join(outside, 'chain.json'),
      '--root',
      outside,
      '--trust',
      join(root, 'preregistration/trust'),
      '--commitments',
      join(root, 'inputs/commitments.jsonl'),
      '--json',
    ]);
    expect(anchored.jsonLines[0].status).toBe('ANCHORED');
    expect(anchored.code).toBe(0);
  });
});

/**
 * Registers one more system in a scratch copy's study.json, and lifts its protocol, for the lines
 * a test adds (SYSTEM_UNREGISTERED and ATTEMPT_OUT_OF_PROTOCOL otherwise: SPEC §12.5); the caller
 * refreezes.
 */
function registerSystem(root: string, systemId: string): void {
  const path = join(root, 'preregistration/study.json');
  const study = JSON.parse(readFileSync(path, 'utf8')) as { systems: Array<Record<string, unknown>>; protocol?: unknown };
  study.systems.push({ system_id: systemId, buyer_fingerprints: [`fp-${systemId}`] });
  delete study.protocol;
  writeFileSync(path, `${JSON.stringify(study, null, 2)}\n`);
}

describe("verify in a study: spec 3.x evidence with the owner's disclosure (evidence.disclosure_json)", () => {
  it('binds the bodies through the disclosure, records every witness as its own column, and agrees with verify FILE', async () => {
    const s = copyExampleStudy();
    try {
      registerSystem(s.root, 'sys-v3');
      const frozen = await runCli(['freeze', '--root', s.root, '--replace', '--reason', 'test refreeze', '--json']);
      expect(frozen.code, frozen.stdout + frozen.stderr).toBe(0);
      const tsa = await loadTestSigner('tsa');
      const key = readFileSync(join(PROJECT_ROOT, 'test/fixtures/keys/TEST-ONLY-arkforge-2026.key.pem'), 'utf8');
      const honest = readFileSync(join(s.root, 'inputs/submissions/sys-honest.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const template = honest.find((l) => l.item_id === 'mp-001' && l.attempt === 1);
      const response = parseJson(canonicalJson(template.evidence[0].response));
      const issued = await Promise.all(
        [0, 1, 2].map((n) =>
          issueProofV3({
            request: { q: 'mp-001', n },
            response,
            timestamp: '2026-11-05T08:00:00Z',
            seller: 'retrieval.example',
            buyerApiKey: 'k',
            transactionId: `crd_v3_${n}`,
            specVersion: '3.1',
            signingKeyPem: key,
            identity: n === 0 ? BOUND_IDENTITY : undefined,
          }),
        ),
      );
      await anchorBatch(issued, { signer: tsa, genTime: '2026-11-05T08:07:00Z', batchId: 'batch_20261105_080700_001' });
      const evidence = (n: number, disclose: boolean) => ({
        proof: issued[n]!.proof,
        request: issued[n]!.request,
        response: issued[n]!.response,
        ...(disclose ? { disclosure: ownerDisclosure(issued[n]!) } : {}),
      });
      const lines = [1, 2, 3].map((attempt) => ({
        ...template,
        system_id: 'sys-v3',
        attempt,
        receipts: undefined,
        evidence: [evidence(attempt - 1, attempt !== 3)],
      }));
      writeFileSync(
        join(s.root, 'inputs/submissions/sys-v3.jsonl'),
        lines.map((l) => JSON.stringify(toPlain(parseJson(canonicalJson(l))))).join('\n') + '\n',
      );
      const r = await runCli(['verify', '--root', s.root, '--json']);
      expect(r.code).toBe(0);
      const rows = await queryStore(
        s.root,
        `SELECT attempt, status, reason_codes, informational_codes, algorithm, check_chain, check_commitments, check_disclosures, check_body_binding,
                check_identity, check_batch, check_tsa, identity_anchored, batch_status, batch_leaf_index, batch_tree_size,
                witnessed_hash = batch_root AS witnesses_root, independent_witnesses, opened_fields
         FROM proof_checks WHERE system_id = 'sys-v3' ORDER BY attempt`,
      );
      const common = {
        algorithm: 'commitments',
        check_chain: 'pass',
        check_commitments: 'pass',
        check_disclosures: 'pass',
        check_identity: 'pass',
        check_batch: 'pass',
        check_tsa: 'pass',
        batch_status: 'anchored',
        batch_tree_size: '3',
        witnesses_root: true,
        independent_witnesses: 1,
      };
      expect(rows).toEqual([
        {
          attempt: 1,
          status: 'VERIFIED',
          reason_codes: [],
          informational_codes: [],
          check_body_binding: 'pass',
          identity_anchored: true,
          batch_leaf_index: '0',
          opened_fields: [
            'agent_identity',
            'agent_identity_verified',
            'did_resolution_status',
            'identity_consistent',
            'request_hash',
            'response_hash',
          ],
          ...common,
        },
        {
          attempt: 2,
          status: 'VERIFIED',
          reason_codes: [],
          informational_codes: [],
          check_body_binding: 'pass',
          identity_anchored: true,
          batch_leaf_index: '1',
          opened_fields: [
            'agent_identity',
            'agent_identity_verified',
            'did_resolution_status',
            'identity_consistent',
            'request_hash',
            'response_hash',
          ],
          ...common,
        },
        {
          attempt: 3,
          status: 'UNTRUSTED',
          reason_codes: ['PROOF_BODY_UNBOUND'],
          informational_codes: [],
          check_body_binding: 'fail',
          identity_anchored: true,
          batch_leaf_index: '2',
          opened_fields: ['agent_identity', 'agent_identity_verified', 'did_resolution_status', 'identity_consistent'],
          ...common,
        },
      ]);
      // Served passages carry the proof's status: the unbound response can never count as proven.
      const served = await queryStore(
        s.root,
        "SELECT attempt, any_value(proof_status) AS proof_status FROM served_passages WHERE system_id = 'sys-v3' GROUP BY attempt ORDER BY attempt",
      );
      expect(served.map((x) => x.proof_status)).toEqual(['VERIFIED', 'VERIFIED', 'UNTRUSTED']);
      // verify FILE on the same evidence items gives the same rows.
      const dir = join(s.root, 'v3-files');
      mkdirSync(dir);
      lines.forEach((l, i) => {
        writeFileSync(join(dir, `e${i + 1}.json`), JSON.stringify(toPlain(parseJson(canonicalJson(l.evidence[0])))));
      });
      const files = await runCli(['verify', dir, '--root', s.root, '--json']);
      expect(files.jsonLines.map((l) => [l.status, l.reason_codes, l.checks.body_binding, l.checks.batch])).toEqual(
        rows.map((x) => [x.status, x.reason_codes, x.check_body_binding, x.check_batch]),
      );
    } finally {
      s.cleanup();
    }
  });
});

describe('verify in a study: transparency-log entries carried with the evidence (evidence.tlog_entry_json)', () => {
  it('stores the entry, records the tlog check and its columns, counts the log as a witness, agrees with verify FILE and the report', async () => {
    const s = copyExampleStudy();
    try {
      // The study pins the TEST-ONLY log key: a scratch copy of the example, refrozen (the committed example pins none).
      pinTestLog(join(s.root, 'preregistration/trust'));
      registerSystem(s.root, 'sys-tlog');
      const frozen = await runCli(['freeze', '--root', s.root, '--replace', '--reason', 'test refreeze', '--json']);
      expect(frozen.code, frozen.stdout + frozen.stderr).toBe(0);

      const tsa = await loadTestSigner('tsa');
      const key = readFileSync(join(PROJECT_ROOT, 'test/fixtures/keys/TEST-ONLY-arkforge-2026.key.pem'), 'utf8');
      const honest = readFileSync(join(s.root, 'inputs/submissions/sys-honest.jsonl'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const template = honest.find((l) => l.item_id === 'mp-001' && l.attempt === 1);
      const response = parseJson(canonicalJson(template.evidence[0].response));
      const mint = (n: number, token: boolean) =>
        issueProofV3({
          request: { q: 'mp-001', n },
          response,
          timestamp: '2026-11-05T08:00:00Z',
          seller: 'retrieval.example',
          buyerApiKey: 'k',
          transactionId: `crd_tlog_${n}`,
          specVersion: '3.1',
          signingKeyPem: key,
          ...(token ? { tsa: { signer: tsa, genTime: '2026-11-05T08:00:07Z' } } : {}),
        });
      const single = await mint(0, true);
      const batch = await Promise.all([1, 2, 3].map((n) => mint(n, false)));
      await anchorBatch(batch, { signer: tsa, genTime: '2026-11-05T08:07:00Z', batchId: 'batch_20261105_080700_002' });
      const unlogged = await mint(4, true);
      const log = TestLog.withTestKey();
      const integratedTime = Date.parse('2026-11-05T08:07:09Z') / 1000;
      const entry = (proof: Record<string, unknown>) => logWitnessedHash(log, proof, { signingKeyPem: key, integratedTime });
      const goodSingle = entry(single.proof);
      const goodBatch = entry(batch[1]!.proof); // over the batch root
      const changedTime = { ...entry(batch[2]!.proof), integratedTime: integratedTime + 60 }; // the SET no longer covers it
      const items = [
        { issued: single, tlog: goodSingle },
        { issued: batch[1]!, tlog: goodBatch },
        { issued: batch[2]!, tlog: changedTime },
        { issued: unlogged, tlog: undefined },
      ];
      const lines = items.map(({ issued, tlog }, i) => ({
        ...template,
        system_id: 'sys-tlog',
        attempt: i + 1,
        receipts: undefined,
        evidence: [
          {
            proof: issued.proof,
            request: issued.request,
            response: issued.response,
            disclosure: ownerDisclosure(issued),
            ...(tlog ? { transparency_log_entry: tlog } : {}),
          },
        ],
      }));
      writeFileSync(
        join(s.root, 'inputs/submissions/sys-tlog.jsonl'),
        lines.map((l) => JSON.stringify(toPlain(parseJson(canonicalJson(l))))).join('\n') + '\n',
      );

      const r = await runCli(['verify', '--root', s.root, '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      // Ingest keeps the entry as canonical JSON, NULL when the item carries none.
      const stored = await queryStore(
        s.root,
        "SELECT r.attempt, e.tlog_entry_json::VARCHAR AS tlog FROM evidence e JOIN records r USING (record_id) WHERE r.system_id = 'sys-tlog' ORDER BY r.attempt",
      );
      expect(stored.map((x) => x.tlog)).toEqual([...items.map((x) => (x.tlog ? canonicalJson(x.tlog) : null))]);

      const rows = await queryStore(
        s.root,
        `SELECT attempt, status, reason_codes, check_tsa, check_batch, check_tlog, tlog_log_id, tlog_log_index, tlog_integrated_time,
                tlog_kind, tlog_artifact, tlog_entry_signature, tlog_set, tlog_inclusion, tlog_checkpoint, tlog_log_key, independent_witnesses
         FROM proof_checks WHERE system_id = 'sys-tlog' ORDER BY attempt`,
      );
      const passed = {
        tlog_kind: 'pass',
        tlog_artifact: 'pass',
        tlog_entry_signature: 'pass',
        tlog_set: 'pass',
        tlog_inclusion: 'pass',
        tlog_checkpoint: 'pass',
        tlog_log_key: 'pass',
      };
      const skipped = Object.fromEntries(Object.keys(passed).map((k) => [k, 'skipped']));
      expect(rows).toEqual([
        {
          attempt: 1,
          status: 'VERIFIED',
          reason_codes: [],
          check_tsa: 'pass',
          check_batch: 'skipped',
          check_tlog: 'pass',
          tlog_log_id: log.logId,
          tlog_log_index: '0',
          tlog_integrated_time: '2026-11-05T08:07:09Z',
          ...passed,
          independent_witnesses: 2,
        },
        {
          attempt: 2,
          status: 'VERIFIED',
          reason_codes: [],
          check_tsa: 'pass',
          check_batch: 'pass',
          check_tlog: 'pass',
          tlog_log_id: log.logId,
          tlog_log_index: '1',
          tlog_integrated_time: '2026-11-05T08:07:09Z',
          ...passed,
          independent_witnesses: 2,
        },
        {
          attempt: 3,
          status: 'UNTRUSTED',
          reason_codes: ['PROOF_TLOG_SET'],
          check_tsa: 'pass',
          check_batch: 'pass',
          check_tlog: 'fail',
          tlog_log_id: log.logId,
          tlog_log_index: '2',
          tlog_integrated_time: '2026-11-05T08:08:09Z',
          ...passed,
          tlog_set: 'fail',
          independent_witnesses: 1,
        },
        {
          attempt: 4,
          status: 'VERIFIED',
          reason_codes: [],
          check_tsa: 'pass',
          check_batch: 'skipped',
          check_tlog: 'skipped',
          tlog_log_id: null,
          tlog_log_index: null,
          tlog_integrated_time: null,
          ...skipped,
          independent_witnesses: 1,
        },
      ]);

      // verify FILE on the same evidence items, with the study's (refrozen) trust directory, gives the same rows.
      const dir = join(s.root, 'tlog-files');
      mkdirSync(dir);
      lines.forEach((l, i) => {
        writeFileSync(join(dir, `e${i + 1}.json`), JSON.stringify(toPlain(parseJson(canonicalJson(l.evidence[0])))));
      });
      const files = await runCli(['verify', dir, '--root', s.root, '--json']);
      expect(files.jsonLines.map((l) => [l.status, l.reason_codes, l.checks.tlog])).toEqual(
        rows.map((x) => [x.status, x.reason_codes, x.check_tlog]),
      );

      // The report counts the log among the independent witnesses per system.
      const run = await runCli(['run', '--root', s.root, ...TEST_OPERATOR_ARGS, '--json']);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      const report = readFileSync(join(run.json.dir, 'report.md'), 'utf8');
      expect(report).toContain('| sys-tlog | 4 | 4 | 6 |');
    } finally {
      s.cleanup();
    }
  });
});
