// Checkpoints (signed notes of a tree head): parsing only; signatures are checked in
// test/evidence/tlog.test.ts with the in-test log.
import { describe, expect, it } from 'vitest';
import { parseCheckpoint, type Checkpoint } from '../../pipeline/formats/checkpoint.ts';

// The example of transparency-dev/formats log/README.md (an Ed25519 signed note).
const EXAMPLE = [
  'example.com/behind-the-sofa',
  '20852163',
  'CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=',
  '',
  '\u2014 example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=',
  '',
].join('\n');

describe('parseCheckpoint', () => {
  it('reads origin, size, root, extension lines and signature lines', () => {
    const cp = parseCheckpoint(EXAMPLE) as Checkpoint;
    expect(typeof cp).toBe('object');
    expect([cp.origin, cp.size, cp.root.length, cp.rest]).toEqual(['example.com/behind-the-sofa', 20852163, 32, []]);
    expect(cp.note).toBe('example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n');
    expect(cp.signatures.map((s) => [s.name, s.hint.toString('hex'), s.signature.length])).toEqual([
      ['example.com/behind-the-sofa', '033de0ae', 64],
    ]);
    const extended = parseCheckpoint(EXAMPLE.replace('2I=\n', '2I=\nTimestamp: 1\n') + '\u2014 witness AAAAAAA=\n') as Checkpoint;
    expect([extended.rest, extended.signatures.length]).toEqual([['Timestamp: 1'], 2]);
  });

  it.each([
    ['no blank line', EXAMPLE.replace('\n\n', '\n')],
    ['two note lines', EXAMPLE.replace('20852163\n', '')],
    ['a size with a leading zero', EXAMPLE.replace('20852163', '020852163')],
    ['a size that is not a number', EXAMPLE.replace('20852163', 'many')],
    ['a root of 31 bytes', EXAMPLE.replace('CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=', Buffer.alloc(31).toString('base64'))],
    ['a signature line with a hyphen for the em dash', EXAMPLE.replace('\u2014', '-')],
    ['a signature shorter than hint + 1 byte', EXAMPLE.replace(/Az3g\S+/, 'AAAAAA==')],
    ['no newline after the last signature', EXAMPLE.slice(0, -1)],
    ['no signature line', EXAMPLE.slice(0, EXAMPLE.indexOf('\n\n') + 2)],
  ])('refuses %s', (_what, text) => {
    expect(typeof parseCheckpoint(text)).toBe('string');
  });
});
