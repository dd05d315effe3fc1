// The audit names where two text files first differ, showing both versions around the first
// differing byte: on a long line the excerpts must not stop before it (both would look identical).
import { describe, expect, it } from 'vitest';
import { textDifference } from '../../pipeline/audit/compare.ts';

describe('textDifference', () => {
  it('centres both excerpts on the first differing byte of a long line', () => {
    const prefix = 'x'.repeat(500);
    const recorded = Buffer.from(`first line\n${prefix}AAA${'y'.repeat(500)}\nlast\n`);
    const rerun = Buffer.from(`first line\n${prefix}BBB${'y'.repeat(500)}\nlast\n`);
    const d = textDifference('results.json', recorded, rerun);
    expect(d.row).toBe(2);
    const [, left, right] = /recorded "(.*)", rerun "(.*)"$/.exec(d.message)!;
    expect(left).toContain('AAA');
    expect(right).toContain('BBB');
    expect(left).not.toBe(right);
    expect(left!.startsWith('…') && left!.endsWith('…')).toBe(true);
    expect(left!.length).toBeLessThanOrEqual(162);
  });

  it('shows a short line whole, and cuts no multi-byte character in two', () => {
    const d = textDifference('report.md', Buffer.from('é1\nab€c\n'), Buffer.from('é1\nab€d\n'));
    expect(d.message).toBe('line 2 differs (byte 9): recorded "ab€c", rerun "ab€d"');
    const e = textDifference('report.md', Buffer.from('€'.repeat(100)), Buffer.from(`${'€'.repeat(99)}¤`));
    expect(e.message).not.toContain('\ufffd');
  });
});
