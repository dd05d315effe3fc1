// The published JSON Schemas agree with the verifier: schemas/timeline.schema.json accepts a
// timeline exactly when verifyTimeline finds no structural code, schemas/commitment.schema.json a
// commitments line exactly when readCommitmentLine reads it — save what each schema's
// description says it cannot express, asserted here as known limits.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCommitmentLine, verifyTimeline } from '../../../pipeline/evidence/aer1/index.ts';
import { canonicalJson, parseJson } from '../../../pipeline/formats/canonical-json.ts';
import { schemaProblems } from '../../../pipeline/formats/schemas.ts';
import { buildTimeline, envelope, patchEntry, sampleReceipts } from '../../support/aer1-builder.ts';
import { PROJECT_ROOT } from '../../support/cli.ts';
import { CLOSES_AT, commitmentIndex } from './helpers.ts';

const REAL = join(PROJECT_ROOT, 'test/fixtures/real/aer1');
const vectors = (
  JSON.parse(readFileSync(join(REAL, 'reference-vectors.json'), 'utf8')) as {
    vectors: Array<{ name: string; timeline?: unknown; commitment?: unknown }>;
  }
).vectors;
const STRUCTURAL = ['CHAIN_MALFORMED', 'CHAIN_EMPTY', 'CHAIN_REVISION_UNSUPPORTED'];

/** Both readings of one JSON text: the schema on JSON.parse's value, the verifier on the canonical parse. */
function timelineAgreement(text: string): { schema: boolean; verifier: boolean } {
  const r = verifyTimeline(parseJson(text), commitmentIndex(), CLOSES_AT);
  return {
    schema: schemaProblems('timeline', JSON.parse(text)).length === 0,
    verifier: !r.reason_codes.some((c) => STRUCTURAL.includes(c)),
  };
}

describe('schemas/timeline.schema.json agrees with verifyTimeline', () => {
  const t = buildTimeline({ job_id: 'job-1', receipts: sampleReceipts(3) }).timeline;
  const written06 = buildTimeline({ job_id: 'job-1', receipts: sampleReceipts(3), construction: '06' }).timeline.map(
    ({ seq: _s, job_id: _j, tool: _t, provenance_class: _p, ...rest }) => rest,
  );
  const cases: Array<[string, string]> = [
    ...vectors.filter((v) => v.timeline !== undefined).map((v): [string, string] => [`vector ${v.name}`, JSON.stringify(v.timeline)]),
    ['timeline-job-7a1f.json', readFileSync(join(REAL, 'timeline-job-7a1f.json'), 'utf8')],
    ['the envelope, 06', JSON.stringify(envelope('06', t))],
    ['the envelope, 09, with an embedded commitment', JSON.stringify({ ...envelope('09', t), commitment: {} })],
    ['seq written 2.0', JSON.stringify(t).replace('"seq":2,', '"seq":2.0,')],
    ['an extra output_hash member', JSON.stringify(patchEntry(t, 1, { output_hash: 'x' }))],
    ['the envelope, 10', JSON.stringify(envelope('10', t))],
    ['the envelope, revision 9', JSON.stringify({ ...envelope('09', t), revision: 9 })],
    ['the envelope without entries', '{"format":"aer-1","revision":"09"}'],
    ['an object of another format', JSON.stringify({ ...envelope('09', t), format: 'aer-2' })],
    ['empty', '[]'],
    ['empty envelope', '{"format":"aer-1","revision":"09","entries":[]}'],
    ['a string', '"aer-1"'],
    ...(
      [
        ['id', ''],
        ['id', 7],
        ['seq', 2.5],
        ['seq', '2'],
        ['seq', true],
        ['seq', null],
        ['job_id', ''],
        ['tool', ''],
        ['provenance_class', 'LOGGED_BY_AGENT'],
        ['provenance_class', 'EXECUTED BY '],
        ['provenance_class', 'EXECUTED BY x'],
        ['canonical_bytes', 'eyJ4IjoxfQ'],
        ['canonical_bytes', '-_-_'],
        ['canonical_bytes', 'eyJ4\nIjoxfQ=='],
        ['prev_digest', 'A'.repeat(64)],
        ['prev_digest', 'a'.repeat(63)],
        ['close', 'true'],
        ['close', null],
        ['tool', undefined],
      ] as const
    ).map(([k, v]): [string, string] => [`entry ${k} = ${JSON.stringify(v)}`, JSON.stringify(patchEntry(t, 1, { [k]: v }))]),
    ['an entry that is not an object', JSON.stringify([t[0], 'x', t[2]])],
    // -06 as written: the four metadata members absent
    ['bare, -06-written', JSON.stringify(written06)],
    ['bare, -06-written, one entry with a tool', JSON.stringify(patchEntry(written06 as never, 1, { tool: 'x' }))],
    [
      'bare, -06-written, an id missing',
      JSON.stringify(
        written06.map((e, i) => {
          if (i !== 1) return e;
          const { id: _id, ...rest } = e;
          return rest;
        }),
      ),
    ],
    ['envelope 06, -06-written', JSON.stringify({ format: 'aer-1', revision: '06', entries: written06 })],
    [
      'envelope 06, seq on one entry only',
      JSON.stringify({ format: 'aer-1', revision: '06', entries: written06.map((e, i) => (i === 0 ? { ...e, seq: 1 } : e)) }),
    ],
    [
      'envelope 06, seq on every entry',
      JSON.stringify({ format: 'aer-1', revision: '06', entries: written06.map((e, i) => ({ ...e, seq: i + 1 })) }),
    ],
    [
      'envelope 06, job_id on two of three',
      JSON.stringify({ format: 'aer-1', revision: '06', entries: written06.map((e, i) => (i > 0 ? { ...e, job_id: 'j' } : e)) }),
    ],
    [
      'envelope 06, an empty tool',
      JSON.stringify({ format: 'aer-1', revision: '06', entries: patchEntry(written06 as never, 2, { tool: '' }) }),
    ],
    ['envelope 09, -06-written', JSON.stringify({ format: 'aer-1', revision: '09', entries: written06 })],
    [
      'the real -06 vector',
      JSON.stringify(
        (
          JSON.parse(readFileSync(join(PROJECT_ROOT, 'test/fixtures/real/aer1-06/chain-vector-06.json'), 'utf8')) as {
            vectors: Array<{ timeline: unknown }>;
          }
        ).vectors[0]!.timeline,
      ),
    ],
  ];

  it.each(cases)('%s', (_name, text) => {
    const { schema, verifier } = timelineAgreement(text);
    expect(schema).toBe(verifier);
  });

  it('accepts what the verifier rejects for a rule, not a shape (x-genesis-single, x-encoding-draft-literal)', () => {
    for (const name of ['x-genesis-single', 'x-encoding-draft-literal']) {
      expect(timelineAgreement(JSON.stringify(vectors.find((v) => v.name === name)!.timeline))).toEqual({ schema: true, verifier: true });
    }
  });
});

describe('schemas/commitment.schema.json agrees with readCommitmentLine', () => {
  const kit = {
    job_id: 'job-7a1f',
    final_entry_digest: '79b1e2e26842e7a49f7d0c0606e795c08d84d3877bb95988492601b7451074b0',
    entry_count: 5,
    published_at: '2026-10-01T18:30:00Z',
  };
  const good = { ...kit, witness: 'w', retrieved_via: 'https://witness.example/c', retrieved_at: '2026-10-02T00:00:00Z' };
  const text = canonicalJson(good);
  const both = (line: string) => ({
    schema: schemaProblems('commitment', JSON.parse(line)).length === 0,
    verifier: readCommitmentLine(parseJson(line), { file: 'c.jsonl', line: 1, byte_offset: 0, line_sha256: '0'.repeat(64) }).ok,
  });

  it.each<[string, string]>([
    ['a well-formed line', text],
    ['published_at with an offset and 9 fraction digits', text.replace('2026-10-01T18:30:00Z', '2026-10-01T20:30:00.123456789+02:00')],
    ["the kit's four members alone", canonicalJson(kit)],
    ['entry_count "5"', text.replace('"entry_count":5', '"entry_count":"5"')],
    ['entry_count 0', text.replace('"entry_count":5', '"entry_count":0')],
    ['entry_count true', text.replace('"entry_count":5', '"entry_count":true')],
    ['entry_count 2.5', text.replace('"entry_count":5', '"entry_count":2.5')],
    ['final_entry_digest in upper case', text.replace(kit.final_entry_digest, kit.final_entry_digest.toUpperCase())],
    ['published_at without an offset', text.replace('2026-10-01T18:30:00Z', '2026-10-01T18:30:00')],
    ['published_at hour 24', text.replace('2026-10-01T18:30:00Z', '2026-10-01T24:30:00Z')],
    ['published_at month 13', text.replace('2026-10-01T18:30:00Z', '2026-13-01T18:30:00Z')],
    ['an unknown member', text.replace('{', '{"note":"x",')],
    ['witness empty', text.replace('"witness":"w"', '"witness":""')],
    ['witness null (not recorded)', text.replace('"witness":"w"', '"witness":null')],
    ['retrieved_at not a date-time', text.replace('"retrieved_at":"2026-10-02T00:00:00Z"', '"retrieved_at":"yesterday"')],
    ['not an object', '[]'],
    ["a signature (SPEC §12.3: whether it verifies is the keys' matter)", text.replace('{', '{"signature":"c2ln",')],
    ['a signature that is a number', text.replace('{', '{"signature":7,')],
    ['an empty signature', text.replace('{', '{"signature":"",')],
  ])('%s', (_name, line) => {
    const { schema, verifier } = both(line);
    expect(schema).toBe(verifier);
  });

  it.each<[string, string]>([
    ["the reference vector's entry_count 5.0", text.replace('"entry_count":5', '"entry_count":5.0')],
    ['entry_count 5e0', text.replace('"entry_count":5', '"entry_count":5e0')],
    ['published_at 2023-02-29', text.replace('2026-10-01', '2023-02-29')],
    ['published_at 1900-02-29', text.replace('2026-10-01', '1900-02-29')],
    ['retrieved_at 2026-04-31', text.replace('2026-10-02', '2026-04-31')],
  ])("known limit, stated in the schema's description: %s passes the schema, not the verifier", (_name, line) => {
    expect(both(line)).toEqual({ schema: true, verifier: false });
  });
});
