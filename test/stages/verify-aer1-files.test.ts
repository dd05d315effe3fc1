// `prereg verify FILE…` on AER-1 files: the vendored real timeline with a commitments file that
// holds malformed lines (reported with file:line, the other lines still count), the reference's
// receipt vectors (kind receipt, CONFORMANT / NONCONFORMANT) and its timeline vectors.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';

const REAL = join(PROJECT_ROOT, 'test/fixtures/real/aer1');
const TRUST = join(PROJECT_ROOT, 'preregistration/trust');
const vectors = (
  JSON.parse(readFileSync(join(REAL, 'reference-vectors.json'), 'utf8')) as {
    vectors: Array<{ kind: string; name: string; receipt?: unknown; timeline?: unknown }>;
  }
).vectors;
const KIT =
  '{"entry_count":5,"final_entry_digest":"79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0","job_id":"job-7a1f","published_at":"2026-10-01T18:30:00Z","retrieved_at":"2026-10-02T00:00:00Z","retrieved_via":"test/fixtures/real/aer1/PROVENANCE.md","witness":"aer1 conformance kit"}';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'prereg-aer1-files-'));
  writeFileSync(join(dir, 'timeline.json'), readFileSync(join(REAL, 'timeline-job-7a1f.json')));
  for (const v of vectors) {
    if (v.kind === 'receipt') writeFileSync(join(dir, `receipt-${v.name}.json`), JSON.stringify(v.receipt));
    if (v.kind === 'chain') writeFileSync(join(dir, `chain-${v.name}.json`), JSON.stringify(v.timeline));
  }
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const verify = (files: string[], ...extra: string[]) =>
  runCli(['verify', ...files.map((f) => join(dir, f)), '--root', dir, '--trust', TRUST, ...extra]);

describe('prereg verify on a timeline file, with --commitments', () => {
  it("is ANCHORED by the kit's commitment though two other lines are malformed, each named by file:line (exit 1: an input did not verify)", async () => {
    const commitments = join(dir, 'commitments.jsonl');
    writeFileSync(commitments, `${KIT.replace('"entry_count":5', '"entry_count":5.0')}\nnot json\n${KIT}\n`);
    const text = await verify(['timeline.json'], '--commitments', commitments);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(
      `${commitments}:1: COMMITMENT_MALFORMED "entry_count" must be a positive JSON integer (5, not 5.0), got 5.0`,
    );
    expect(text.stdout).toContain(`${commitments}:2: COMMITMENT_MALFORMED JSON_SYNTAX`);
    expect(text.stdout).toContain(`${join(dir, 'timeline.json')}: chain ANCHORED`);
    const json = await verify(['timeline.json'], '--commitments', commitments, '--json');
    expect(json.code).toBe(1);
    // One line for the file, then one per malformed commitments line.
    expect(json.jsonLines.map((l) => [l.kind, l.status, l.line ?? null])).toEqual([
      ['chain', 'ANCHORED', null],
      ['commitment', 'MALFORMED', 1],
      ['commitment', 'MALFORMED', 2],
    ]);
    expect(json.jsonLines[1]).toMatchObject({ file: commitments, reason_codes: ['COMMITMENT_MALFORMED'] });
    expect(json.jsonLines[0]).toMatchObject({ kind: 'chain', status: 'ANCHORED', reason_codes: [] });
    expect(json.jsonLines[0].checks).toMatchObject({ commitment_found: 'pass', commitment_wellformed: 'pass', commitment_count: 'pass' });
    const problems = json.jsonLines[0].problems as string[];
    expect(problems.some((p) => p.startsWith(`${commitments}:1: `))).toBe(true); // the job's own malformed line
    expect(problems.some((p) => p.startsWith(`${commitments}:2: `))).toBe(true); // a line naming no job
  });

  it("is UNANCHORED with COMMITMENT_MALFORMED when the job's only commitment is malformed (exit 1)", async () => {
    const commitments = join(dir, 'only-malformed.jsonl');
    writeFileSync(commitments, `${KIT.replace('"entry_count":5', '"entry_count":5.0')}\n`);
    const r = await verify(['timeline.json'], '--commitments', commitments, '--json');
    expect(r.code).toBe(1);
    expect(r.jsonLines[0]).toMatchObject({ kind: 'chain', status: 'UNANCHORED', reason_codes: ['COMMITMENT_MALFORMED'] });
  });

  it('a second commitment naming another final digest binds no owner outside a study: still ANCHORED, COMMITMENT_FOREIGN informational (exit 0)', async () => {
    const commitments = join(dir, 'foreign.jsonl');
    writeFileSync(commitments, `${KIT.replace('"final_entry_digest":"79b1', '"final_entry_digest":"eeee')}\n${KIT}\n`);
    const r = await verify(['timeline.json'], '--commitments', commitments, '--json');
    expect(r.code).toBe(0);
    expect(r.jsonLines[0]).toMatchObject({
      kind: 'chain',
      status: 'ANCHORED',
      reason_codes: ['COMMITMENT_FOREIGN'],
      informational_codes: ['COMMITMENT_FOREIGN'],
    });
  });

  it('without commitments it is UNANCHORED (COMMITMENT_MISSING)', async () => {
    const r = await verify(['timeline.json'], '--json');
    expect(r.jsonLines[0]).toMatchObject({ kind: 'chain', status: 'UNANCHORED', reason_codes: ['COMMITMENT_MISSING'] });
  });

  it("the reference's timeline vectors: valid with no CHAIN_* code, invalid BROKEN", async () => {
    const r = await verify(
      ['chain-x-encoding-draft-literal.json', 'chain-x-encoding-reference.json', 'chain-x-genesis-single.json'],
      '--json',
    );
    expect(r.jsonLines.map((l) => [l.kind, l.status, l.reason_codes])).toEqual([
      ['chain', 'BROKEN', ['CHAIN_LINK_BROKEN', 'COMMITMENT_MISSING']],
      ['chain', 'UNANCHORED', ['COMMITMENT_MISSING']],
      ['chain', 'BROKEN', ['CHAIN_GENESIS_INVALID', 'COMMITMENT_MISSING']],
    ]);
  });
});

describe('prereg verify on single receipts', () => {
  it('reads each as kind receipt: CONFORMANT or NONCONFORMANT as the reference says', async () => {
    const r = await verify([...vectors.filter((v) => v.kind === 'receipt').map((v) => `receipt-${v.name}.json`)], '--json');
    expect(r.code).toBe(1);
    expect(r.jsonLines.map((l) => [l.kind, l.status, l.reason_codes])).toEqual([
      ['receipt', 'NONCONFORMANT', ['RECEIPT_MALFORMED']], // x-base64-unpadded
      ['receipt', 'NONCONFORMANT', ['RECEIPT_MALFORMED']], // x-feb29-non-leap
      ['receipt', 'CONFORMANT', []], // x-feb29-leap
      ['receipt', 'NONCONFORMANT', ['RECEIPT_MALFORMED']], // x-feb29-1900
      ['receipt', 'CONFORMANT', []], // x-fraction-one-digit
      ['receipt', 'NONCONFORMANT', ['RECEIPT_MALFORMED']], // x-tool-empty-name
    ]);
    expect(r.jsonLines[0].checks).toMatchObject({ structure: 'pass', canonical_bytes: 'fail', output_commitment: 'skipped' });
  });

  it('a conformant receipt exits 0: it passed the only check a lone receipt has', async () => {
    const r = await verify(['receipt-x-feb29-leap.json']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('receipt CONFORMANT');
  });
});
