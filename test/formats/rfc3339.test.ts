import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { compareInstants, parseRfc3339 } from '../../pipeline/formats/rfc3339.ts';

describe('parseRfc3339: real calendar dates, any fraction, any offset', () => {
  it.each([
    ['2024-02-29T00:00:00Z', true], // leap year
    ['2023-02-29T00:00:00Z', false], // not a leap year
    ['1900-02-29T00:00:00Z', false], // century rule
    ['2000-02-29T00:00:00Z', true], // 400-year rule
    ['2026-09-23T23:45:20.7Z', true], // one fraction digit
    ['2026-09-23T23:45:20.123456789Z', true],
    ['2026-10-01T18:30:00+02:00', true],
    ['2026-10-01T18:30:00-00:00', true],
    ['0001-01-01T00:00:00Z', true],
    ['0000-01-01T00:00:00Z', false],
    ['2026-04-31T00:00:00Z', false],
    ['2026-13-01T00:00:00Z', false],
    ['2026-01-01T24:00:00Z', false],
    ['2026-01-01T23:60:00Z', false],
    ['2026-12-31T23:59:60Z', false], // no leap second
    ['2026-01-01T00:00:00+24:00', false],
    ['2026-01-01T00:00:00+01:60', false],
    ['2026-01-01T00:00:00.Z', false],
    ['2026-01-01T00:00:00', false], // no offset
    ['2026-01-01 00:00:00Z', false],
    ['2026-01-01t00:00:00z', false],
    ['2026-01-01T00:00Z', false],
    ['2026-1-01T00:00:00Z', false],
    ['2026-01-01T00:00:00+0100', false],
    ['\u0662026-01-01T00:00:00Z', false], // a non-ASCII digit
  ])('%s → %s', (text, valid) => {
    expect(parseRfc3339(text) !== null).toBe(valid);
  });

  it('gives the instant in UTC, the offset subtracted, the fraction kept as digits', () => {
    // 2026-10-01T18:30:00Z = 1790879400 (date -u -d 2026-10-01T18:30:00Z +%s).
    expect(parseRfc3339('2026-10-01T18:30:00Z')).toEqual({ seconds: 1790879400, fraction: '' });
    expect(parseRfc3339('2026-10-01T20:30:00.500+02:00')).toEqual({ seconds: 1790879400, fraction: '5' });
    expect(parseRfc3339('1969-12-31T23:59:59Z')).toEqual({ seconds: -1, fraction: '' });
  });

  it("compares instants exactly, beyond a double's precision", () => {
    const at = (s: string) => parseRfc3339(s)!;
    expect(compareInstants(at('2026-11-16T00:00:00Z'), at('2026-11-16T01:00:00+01:00'))).toBe(0);
    expect(compareInstants(at('2026-11-16T00:00:00.000Z'), at('2026-11-16T00:00:00Z'))).toBe(0);
    expect(compareInstants(at('2026-11-15T23:59:59.999999999Z'), at('2026-11-16T00:00:00Z'))).toBe(-1);
    expect(compareInstants(at('2026-11-16T00:00:00.0000000001Z'), at('2026-11-16T00:00:00Z'))).toBe(1);
    expect(compareInstants(at('2026-11-16T00:59:59+01:00'), at('2026-11-16T00:00:00Z'))).toBe(-1);
  });

  it('agrees with Python 3.11 datetime.fromisoformat on validity and instant, over a grid of dates', () => {
    // The oracle must be there (.ci/run installs python3): a skipped oracle would be a test that cannot fail.
    expect(spawnSync('python3', ['-c', 'import sys; assert sys.version_info >= (3, 11)']).status, 'python3 >= 3.11 on the PATH').toBe(0);
    // Python is the oracle: every day-of-month 28..31 of every month of a few years, offsets.
    const texts: string[] = [];
    for (const y of ['1900', '2000', '2023', '2024', '2100', '0004']) {
      for (let mo = 1; mo <= 12; mo++) {
        for (const d of [28, 29, 30, 31]) texts.push(`${y}-${String(mo).padStart(2, '0')}-${d}T12:34:56.5+05:30`);
      }
    }
    const script = [
      'import sys, json, datetime',
      'out = []',
      'for t in json.loads(sys.stdin.read()):',
      '    try:',
      '        dt = datetime.datetime.fromisoformat(t)',
      '        e = dt - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)',
      '        out.append(e.days * 86400 + e.seconds)',
      '    except ValueError:',
      '        out.append(None)',
      'print(json.dumps(out))',
    ].join('\n');
    const py = spawnSync('python3', ['-c', script], { input: JSON.stringify(texts), encoding: 'utf8' });
    expect(py.status, py.stderr).toBe(0);
    const expected = JSON.parse(py.stdout) as Array<number | null>;
    expect(texts.map((t) => parseRfc3339(t)?.seconds ?? null)).toEqual(expected);
    // 3 non-leap 29 Februaries, 6 × (30 and 31 February), 6 × four 31st of 30-day months.
    expect(expected.filter((x) => x === null).length).toBe(39);
  });
});
