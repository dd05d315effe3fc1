// The AER-1 revision-06 vector (test/fixtures/real/aer1-06/, see its PROVENANCE.md) through
// `prereg verify`: a bare array whose entries carry only id, canonical_bytes, prev_digest and the
// last one's close is read as -06 and is METADATA_UNBOUND (valid, metadata bound by nothing); the
// four invalid shapes derived from it are BROKEN with the code of the rule each breaks; the same
// entries in the envelope declaring 06 come out the same.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';

type Entry = { id: string; canonical_bytes: string; prev_digest: string; close?: boolean; [k: string]: unknown };
const REAL = path.join(PROJECT_ROOT, 'test/fixtures/real/aer1-06');
const vector = (
  JSON.parse(readFileSync(path.join(REAL, 'chain-vector-06.json'), 'utf8')) as {
    vectors: Array<{ name: string; expected_verdict: string; timeline: Entry[] }>;
  }
).vectors[0]!;
const digestOf = (e: Entry) => createHash('sha256').update(Buffer.from(e.canonical_bytes, 'base64')).digest('hex');

let dir: string;
let trustDir: string;
beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'prereg-aer1-06-'));
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
  writeFileSync(path.join(dir, 'commitments.jsonl'), '');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function verifyDoc(name: string, doc: unknown) {
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(doc, null, 1));
  const cli = await runCli([
    'verify',
    file,
    '--root',
    dir,
    '--trust',
    trustDir,
    '--commitments',
    path.join(dir, 'commitments.jsonl'),
    '--json',
  ]);
  expect(cli.jsonLines).toHaveLength(1);
  return {
    code: cli.code,
    ...(cli.jsonLines[0] as { kind: string; status: string; reason_codes: string[]; checks: Record<string, string> }),
  };
}

describe('the -06 vector chain-valid-3', () => {
  it('is what its provenance says: -06 entries, each prev_digest the SHA-256 of the previous decoded bytes', () => {
    const t = vector.timeline;
    expect([vector.name, vector.expected_verdict, t.length]).toEqual(['chain-valid-3', 'valid', 3]);
    for (const e of t) for (const k of ['seq', 'job_id', 'tool', 'provenance_class']) expect(e).not.toHaveProperty(k);
    expect(t[0]!.prev_digest).toBe('0'.repeat(64));
    expect([t[1]!.prev_digest, t[2]!.prev_digest]).toEqual([digestOf(t[0]!), digestOf(t[1]!)]);
  });

  it('as a bare array: read as -06, METADATA_UNBOUND, no code (exit 1: not ANCHORED)', async () => {
    const r = await verifyDoc('bare', vector.timeline);
    expect([r.kind, r.status, r.reason_codes, r.code]).toEqual(['chain', 'METADATA_UNBOUND', [], 1]);
    expect([r.checks.genesis, r.checks.close, r.checks.links, r.checks.seq, r.checks.job]).toEqual([
      'pass',
      'pass',
      'pass',
      'skipped',
      'skipped',
    ]);
  });

  it('in the envelope declaring 06: the same', async () => {
    const r = await verifyDoc('envelope', { format: 'aer-1', revision: '06', entries: vector.timeline });
    expect([r.status, r.reason_codes]).toEqual(['METADATA_UNBOUND', []]);
  });

  it('in the envelope declaring 09: the -06 entries lack the current members → BROKEN CHAIN_MALFORMED', async () => {
    const r = await verifyDoc('envelope-09', { format: 'aer-1', revision: '09', entries: vector.timeline });
    expect(r.status).toBe('BROKEN');
    expect(r.reason_codes).toContain('CHAIN_MALFORMED');
  });

  const variants: Array<[string, (t: Entry[]) => Entry[], string]> = [
    [
      'a broken link (entry 3 names another digest)',
      (t) => t.map((e, i) => (i === 2 ? { ...e, prev_digest: digestOf(t[0]!) } : e)),
      'CHAIN_LINK_BROKEN',
    ],
    ['no close (the last entry’s close removed)', (t) => t.map(({ close: _close, ...e }) => e), 'CHAIN_CLOSE_MISPLACED'],
    ['close mid-chain (entry 2 closes too)', (t) => t.map((e, i) => (i === 1 ? { ...e, close: true } : e)), 'CHAIN_CLOSE_MISPLACED'],
    [
      'a bad genesis (entry 1’s prev_digest not 64 zeros)',
      (t) => t.map((e, i) => (i === 0 ? { ...e, prev_digest: '1'.repeat(64) } : e)),
      'CHAIN_GENESIS_INVALID',
    ],
  ];
  it.each(variants)('%s → BROKEN %s', async (name, edit, code) => {
    const r = await verifyDoc(name.replace(/\W+/g, '-'), edit(structuredClone(vector.timeline)));
    expect([r.status, r.reason_codes]).toEqual(['BROKEN', [code]]);
  });

  it('a bare array where one entry carries one of the four members is read as today: BROKEN CHAIN_MALFORMED', async () => {
    const r = await verifyDoc(
      'one-tool',
      vector.timeline.map((e, i) => (i === 1 ? { ...e, tool: 'search' } : e)),
    );
    expect([r.status, r.reason_codes]).toEqual(['BROKEN', ['CHAIN_MALFORMED']]);
  });
});
