// canonicalFrame: the canonical text around an array its caller writes element by element
// (results.json's assertion_classes, streamed by emit) is byte for byte canonicalJson of the whole.
import { describe, expect, it } from 'vitest';
import { canonicalFrame, canonicalJson, JsonNumber, STREAMED_ARRAY } from '../../pipeline/formats/canonical-json.ts';

const rows = [
  { system_id: 's\u0000nul', n: 3n, d: new JsonNumber('1.0'), class: 'GROUNDED', ref: null },
  { system_id: 'é\u{1F600}', n: -1n, d: new JsonNumber('1e+16'), class: 'PHANTOM', ref: 'R-1' },
  { system_id: 'z', n: 0n, d: new JsonNumber('0.1'), class: 'NOT_JUDGED', ref: '"quoted"' },
];

function streamed(doc: (rows: unknown) => unknown, elements: unknown[]): string {
  const [before, after] = canonicalFrame(doc(STREAMED_ARRAY));
  return before + elements.map((r) => canonicalJson(r)).join(',') + after;
}

describe('canonicalFrame', () => {
  it('gives, with the elements written between, the canonical JSON of the whole (keys before and after it, NULs in strings, no element)', () => {
    const doc = (a: unknown) => ({ zeta: [1n, 2n], assertion_classes: a, alpha: { b: 'x\u0000' }, format: 'f' });
    expect(streamed(doc, rows)).toBe(canonicalJson(doc(rows)));
    expect(streamed(doc, [])).toBe(canonicalJson(doc([])));
    expect(streamed((a) => a, rows)).toBe(canonicalJson(rows));
  });

  it('refuses a value that holds the streamed array other than once', () => {
    expect(() => canonicalFrame({ a: [] })).toThrow('holds STREAMED_ARRAY 0 times, not once');
    expect(() => canonicalFrame({ a: STREAMED_ARRAY, b: STREAMED_ARRAY })).toThrow('holds STREAMED_ARRAY 2 times, not once');
  });
});
