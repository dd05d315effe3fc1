// verifyReceipt: the draft's core check on a single receipt (§3–5), one row per rule. The base is
// the reference vector x-feb29-leap (valid); its output hash is checked here with node:crypto.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { RECEIPT_CHECKS, verifyReceipt } from '../../../pipeline/evidence/aer1/index.ts';
import { parseJson } from '../../../pipeline/formats/canonical-json.ts';
import { REASONS } from '../../../pipeline/reasons.ts';

const BYTES = 'eyJpbnB1dHMiOnt9LCJvdXRwdXRzIjp7IngiOjEyM30sInRvb2wiOiJ0In0=';
const BASE = {
  id: 'b6c63ac5-f324-4fa7-ad58-c4bf83faa86a',
  receipt_schema_version: '0.3',
  created_at: '2024-02-29T00:00:00Z',
  tool: { name: 'live_price', version: '4.0.0', scope: 'public' },
  provenance_class: 'EXECUTED BY ZAMBO',
  canonical_bytes: BYTES,
  output_hash: 'sha256:65c8ba373c6115ce04b70e2aaa544f4374d0d5f8e73116a40d9856de5053dc50',
  verification_status: 'verified',
};
const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');
const hashOf = (b: Buffer | string) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const patch = (p: Record<string, unknown>) => {
  const out: Record<string, unknown> = { ...BASE, ...p };
  for (const [k, v] of Object.entries(p)) if (v === undefined) delete out[k];
  return out;
};

describe('verifyReceipt: one row per rule', () => {
  it("the base receipt's output_hash is the SHA-256 of its decoded bytes (node:crypto)", () => {
    expect(hashOf(Buffer.from(BYTES, 'base64'))).toBe(BASE.output_hash);
  });

  it.each<[string, unknown, 'CONFORMANT' | 'NONCONFORMANT', string[], string[]]>([
    ['the base receipt', BASE, 'CONFORMANT', [], []],
    ['created_at with one fraction digit', patch({ created_at: '2026-09-23T23:45:20.7Z' }), 'CONFORMANT', [], []],
    ['created_at with 9 fraction digits and an offset', patch({ created_at: '2026-09-23T23:45:20.123456789-05:00' }), 'CONFORMANT', [], []],
    ['provenance class OBSERVED VIA GATEWAY', patch({ provenance_class: 'OBSERVED VIA GATEWAY' }), 'CONFORMANT', [], []],
    ['an unknown member (ignored)', patch({ anchor: { log: 'x' } }), 'CONFORMANT', [], []],
    ['not an object', [BASE], 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['structure']],
    ...(['id', 'receipt_schema_version', 'created_at', 'tool', 'provenance_class', 'verification_status'] as const).map(
      (k): [string, unknown, 'NONCONFORMANT', string[], string[]] => [
        `${k} missing`,
        patch({ [k]: undefined }),
        'NONCONFORMANT',
        ['RECEIPT_MALFORMED'],
        [k],
      ],
    ),
    ['canonical_bytes missing', patch({ canonical_bytes: undefined }), 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['canonical_bytes']],
    ['output_hash missing', patch({ output_hash: undefined }), 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['output_hash']],
    ['id in upper case', patch({ id: BASE.id.toUpperCase() }), 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['id']],
    ['id not a UUID', patch({ id: 'r-job-7a1f-0' }), 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['id']],
    [
      'receipt_schema_version empty',
      patch({ receipt_schema_version: '' }),
      'NONCONFORMANT',
      ['RECEIPT_MALFORMED'],
      ['receipt_schema_version'],
    ],
    [
      'receipt_schema_version a number',
      patch({ receipt_schema_version: 0.3 }),
      'NONCONFORMANT',
      ['RECEIPT_MALFORMED'],
      ['receipt_schema_version'],
    ],
    ['created_at 2023-02-29', patch({ created_at: '2023-02-29T00:00:00Z' }), 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['created_at']],
    ['created_at 1900-02-29', patch({ created_at: '1900-02-29T00:00:00Z' }), 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['created_at']],
    ['created_at without an offset', patch({ created_at: '2026-09-27T09:00:00' }), 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['created_at']],
    ['tool.name empty', patch({ tool: { ...BASE.tool, name: '' } }), 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['tool']],
    ['tool.scope missing', patch({ tool: { name: 'n', version: 'v' } }), 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['tool']],
    ['tool.version a number', patch({ tool: { ...BASE.tool, version: 4 } }), 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['tool']],
    ['tool a string', patch({ tool: 'live_price' }), 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['tool']],
    [
      'provenance_class with underscores',
      patch({ provenance_class: 'EXECUTED_BY_ZAMBO' }),
      'NONCONFORMANT',
      ['RECEIPT_MALFORMED'],
      ['provenance_class'],
    ],
    [
      'canonical_bytes unpadded',
      patch({ canonical_bytes: BYTES.slice(0, -1) }),
      'NONCONFORMANT',
      ['RECEIPT_MALFORMED'],
      ['canonical_bytes'],
    ],
    [
      'canonical_bytes not UTF-8 (hash matching)',
      patch({ canonical_bytes: b64(Buffer.from([0xff, 0xfe])), output_hash: hashOf(Buffer.from([0xff, 0xfe])) }),
      'NONCONFORMANT',
      ['RECEIPT_MALFORMED'],
      ['canonical_bytes'],
    ],
    [
      'canonical_bytes a UTF-8 surrogate (hash matching)',
      patch({ canonical_bytes: b64(Buffer.from([0xed, 0xa0, 0x80])), output_hash: hashOf(Buffer.from([0xed, 0xa0, 0x80])) }),
      'NONCONFORMANT',
      ['RECEIPT_MALFORMED'],
      ['canonical_bytes'],
    ],
    ['output_hash bare hex', patch({ output_hash: BASE.output_hash.slice(7) }), 'NONCONFORMANT', ['RECEIPT_MALFORMED'], ['output_hash']],
    [
      'output_hash in upper case',
      patch({ output_hash: `sha256:${BASE.output_hash.slice(7).toUpperCase()}` }),
      'NONCONFORMANT',
      ['RECEIPT_MALFORMED'],
      ['output_hash'],
    ],
    [
      'verification_status "failed"',
      patch({ verification_status: 'failed' }),
      'NONCONFORMANT',
      ['RECEIPT_MALFORMED'],
      ['verification_status'],
    ],
    [
      'output_hash of other bytes',
      patch({ output_hash: hashOf('other') }),
      'NONCONFORMANT',
      ['RECEIPT_OUTPUT_HASH_MISMATCH'],
      ['output_commitment'],
    ],
    [
      'bytes replaced, hash kept',
      patch({ canonical_bytes: b64('{"outputs":{"x":124}}') }),
      'NONCONFORMANT',
      ['RECEIPT_OUTPUT_HASH_MISMATCH'],
      ['output_commitment'],
    ],
    [
      'two rules broken at once',
      patch({ id: 'x', output_hash: hashOf('other') }),
      'NONCONFORMANT',
      ['RECEIPT_MALFORMED', 'RECEIPT_OUTPUT_HASH_MISMATCH'],
      ['id', 'output_commitment'],
    ],
  ])('%s → %s %j', (_name, doc, status, reason_codes, failed) => {
    const r = verifyReceipt(doc);
    expect({ status: r.status, reason_codes: r.reason_codes }, r.problems.join('; ')).toEqual({ status, reason_codes });
    expect(RECEIPT_CHECKS.filter((c) => r.checks[c] === 'fail')).toEqual(failed);
    expect(r.problems).toHaveLength(failed.length);
  });

  it('records the id, the computed output commitment and the declared class; skips the hash comparison it cannot make', () => {
    expect(verifyReceipt(BASE)).toMatchObject({
      id: BASE.id,
      output_commitment: BASE.output_hash.slice(7),
      provenance_class: 'EXECUTED BY ZAMBO',
    });
    expect(Object.values(verifyReceipt(BASE).checks).every((o) => o === 'pass')).toBe(true);
    expect(verifyReceipt(patch({ canonical_bytes: 'x' })).checks.output_commitment).toBe('skipped');
    expect(verifyReceipt(patch({ output_hash: 'x' })).checks.output_commitment).toBe('skipped');
  });

  it('reads the parsed JsonValue as it reads plain JS', () => {
    expect(verifyReceipt(parseJson(JSON.stringify(BASE)))).toEqual(verifyReceipt(BASE));
  });

  it('its codes are in the reason catalogue', () => {
    expect(REASONS).toHaveProperty('RECEIPT_MALFORMED');
    expect(REASONS).toHaveProperty('RECEIPT_OUTPUT_HASH_MISMATCH');
  });
});
