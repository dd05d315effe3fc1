// The AER-1 reference vectors (test/fixtures/real/aer1/, see its PROVENANCE.md) through
// `prereg verify`, as a participant checks evidence before submitting: every one of the ten comes
// out as the draft's reference runner says, and the kit's commitment timeline is anchored by its
// commitment and by nothing else.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, type CliRun } from '../support/cli.ts';

const REAL = path.join(PROJECT_ROOT, 'test/fixtures/real/aer1');
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the vectors' free-form JSON
type Json = Record<string, any>;
const vectors = (JSON.parse(readFileSync(path.join(REAL, 'reference-vectors.json'), 'utf8')) as Json).vectors as Json[];
const timeline7a1f = JSON.parse(readFileSync(path.join(REAL, 'timeline-job-7a1f.json'), 'utf8')) as Json[];
/** The kit's commitment of job-7a1f (PROVENANCE.md), with the witness prereg records beside it. */
const COMMITMENT_7A1F = {
  job_id: 'job-7a1f',
  final_entry_digest: '79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0',
  entry_count: 5,
  published_at: '2026-10-01T18:30:00Z',
  witness: 'the conformance kit',
  retrieved_via: 'test/fixtures/real/aer1/PROVENANCE.md',
  retrieved_at: '2026-12-01T00:00:00Z',
};

let dir: string;
let trustDir: string;
let byName: Map<string, CliRun['jsonLines'][number]>;

async function verify(files: string[], commitments: string[]): Promise<CliRun> {
  const commitmentsFile = path.join(dir, `commitments-${Math.random().toString(16).slice(2)}.jsonl`);
  writeFileSync(commitmentsFile, commitments.map((c) => `${c}\n`).join(''));
  return runCli(['verify', ...files, '--root', dir, '--trust', trustDir, '--commitments', commitmentsFile, '--json']);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'prereg-aer1-'));
  // Receipts and timelines need no pinned key: an empty policy.
  trustDir = path.join(dir, 'trust');
  mkdirSync(trustDir);
  writeFileSync(
    path.join(trustDir, 'policy.json'),
    JSON.stringify({
      format: 'prereg.trust/1',
      arkforge_keys: [],
      tsa_roots: [],
      require_tsa_token: false,
      max_skew_seconds: 300,
      batch_max_skew_seconds: 900,
      require_receipts: true,
    }),
  );
  const files: string[] = [];
  for (const v of vectors) {
    const file = path.join(dir, `${v.name as string}.json`);
    writeFileSync(file, JSON.stringify(v.kind === 'receipt' ? v.receipt : v.timeline, null, 1));
    files.push(file);
  }
  const cli = await verify(files, []);
  byName = new Map(cli.jsonLines.map((l) => [path.basename(l.file as string, '.json'), l]));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the ten reference vectors through prereg verify', () => {
  it('are all there', () => {
    expect(vectors).toHaveLength(10);
    expect(byName.size).toBe(10);
  });

  it.each(vectors.filter((v) => v.kind === 'receipt').map((v) => [v.name as string, v.expected_verdict as string]))(
    'receipt %s is %s',
    (name, verdict) => {
      const r = byName.get(name)!;
      expect(r.kind).toBe('receipt');
      expect(r.status).toBe(verdict === 'valid' ? 'CONFORMANT' : 'NONCONFORMANT');
      if (verdict === 'invalid') expect(r.reason_codes).toEqual(['RECEIPT_MALFORMED']);
      else expect(r.reason_codes).toEqual([]);
    },
  );

  it.each(vectors.filter((v) => v.kind !== 'receipt').map((v) => [v.name as string, v.kind as string, v.expected_verdict as string]))(
    '%s (%s) is %s',
    (name, kind, verdict) => {
      const r = byName.get(name)!;
      expect(r.kind).toBe('chain');
      const chainCodes = (r.reason_codes as string[]).filter((c) => c.startsWith('CHAIN_'));
      // A commitment vector's timeline is itself valid: its verdict is the commitment's (below).
      if (verdict === 'valid' || kind === 'commitment') {
        expect(chainCodes).toEqual([]);
        expect([r.status, r.reason_codes]).toEqual(['UNANCHORED', ['COMMITMENT_MISSING']]);
      } else {
        expect(r.status).toBe('BROKEN');
        expect(chainCodes).toEqual([
          { 'x-genesis-single': 'CHAIN_GENESIS_INVALID', 'x-encoding-draft-literal': 'CHAIN_LINK_BROKEN' }[name],
        ]);
      }
    },
  );

  it('the commitment vector (entry_count written 5.0) is malformed: its timeline stays UNANCHORED, and the line is named', async () => {
    const v = vectors.find((x) => x.kind === 'commitment')!;
    const file = path.join(dir, `${v.name as string}.json`);
    const cli = await verify(
      [file],
      [JSON.stringify({ ...COMMITMENT_7A1F, ...v.commitment }).replace('"entry_count":5', '"entry_count":5.0')],
    );
    expect(cli.jsonLines[0]).toMatchObject({ kind: 'chain', status: 'UNANCHORED', reason_codes: ['COMMITMENT_MALFORMED'] });
    expect(cli.stdout + cli.stderr).toMatch(/commitments-[0-9a-f]+\.jsonl:1/);
  });
});

describe("the kit's commitment timeline job-7a1f", () => {
  it.each([
    [
      "exactly as the kit publishes it (the draft's four members)",
      (() => {
        const { job_id, final_entry_digest, entry_count, published_at } = COMMITMENT_7A1F;
        return { job_id, final_entry_digest, entry_count, published_at };
      })(),
    ],
    ['with the witness prereg records beside it', COMMITMENT_7A1F],
  ])('is ANCHORED by its commitment %s, through prereg verify', async (_how, commitment) => {
    const file = path.join(dir, 'timeline-job-7a1f.json');
    writeFileSync(file, JSON.stringify(timeline7a1f, null, 1));
    const cli = await verify([file], [JSON.stringify(commitment)]);
    expect(cli.code).toBe(0);
    expect(cli.jsonLines[0]).toMatchObject({ kind: 'chain', status: 'ANCHORED', reason_codes: [] });
  });

  it.each([
    [
      'the tail cut and the new last entry re-closed',
      (t: Json[]) => {
        const cut = t.slice(0, 4);
        cut[3] = { ...cut[3], close: true };
        return cut;
      },
      ['COMMITMENT_COUNT_MISMATCH', 'COMMITMENT_FINAL_DIGEST_MISMATCH'],
    ],
    [
      'the last entry substituted (other canonical bytes)',
      (t: Json[]) =>
        t.map((e, i) =>
          i === 4 ? { ...e, canonical_bytes: Buffer.from('{"job":"job-7a1f","entry":4,"tag":"x"}').toString('base64') } : e,
        ),
      ['COMMITMENT_FINAL_DIGEST_MISMATCH'],
    ],
    [
      'the last entry relabelled (another provenance class)',
      (t: Json[]) => t.map((e, i) => (i === 4 ? { ...e, provenance_class: 'OBSERVED VIA GATEWAY' } : e)),
      ['COMMITMENT_FINAL_DIGEST_MISMATCH'],
    ],
    ['an inner entry changed', (t: Json[]) => t.map((e, i) => (i === 1 ? { ...e, tool: 'price_lookup_v2' } : e)), ['CHAIN_LINK_BROKEN']],
  ] as const)('%s is refused: %j', async (_what, edit, reason_codes) => {
    const file = path.join(dir, 'edited-7a1f.json');
    writeFileSync(file, JSON.stringify(edit(structuredClone(timeline7a1f))));
    const cli = await verify([file], [JSON.stringify(COMMITMENT_7A1F)]);
    expect(cli.code).toBe(1);
    expect(cli.jsonLines[0].reason_codes).toEqual(reason_codes);
    expect(cli.jsonLines[0].status).toBe(reason_codes.some((c) => c.startsWith('CHAIN_')) ? 'BROKEN' : 'UNANCHORED');
  });
});
