import { describe, expect, it } from 'vitest';
import { corpusDrift, corpusFileDrift, refuseDrift, trustDrift } from '../../pipeline/study/drift.ts';
import type { TreeDigest, TreeLeaf } from '../../pipeline/study/file-tree.ts';
import { PreregError } from '../../pipeline/reasons.ts';

const leaf = (path: string, sha: string): TreeLeaf => ({ path, bytes: 1, sha256: sha.repeat(64) });
const tree = (files: TreeLeaf[], root = 'r'): TreeDigest => ({ root, leaf_count: files.length, files });
const frozen = tree([leaf('a.json', 'a'), leaf('b.json', 'b')]);

describe('one decision per drift, naming the file', () => {
  it.each([
    ['no change', tree(frozen.files), []],
    ['a changed', tree([leaf('a.json', 'c'), leaf('b.json', 'b')], 'x'), [['TRUST_DRIFT', 'preregistration/trust/a.json', 'trust.files']]],
    [
      'b removed, c added',
      tree([leaf('a.json', 'a'), leaf('c.json', 'c')], 'x'),
      [
        ['TRUST_DRIFT', 'preregistration/trust/b.json', 'trust.files'],
        ['TRUST_DRIFT', 'preregistration/trust/c.json', 'trust.files'],
      ],
    ],
    ['same files, other root: freeze.json edited', tree(frozen.files, 'x'), [['TRUST_DRIFT', 'preregistration/freeze.json', 'trust.root']]],
  ])('trustDrift: %s', (_, current, expected) => {
    expect(trustDrift(frozen, current).map((f) => [f.code, f.file, f.field])).toEqual(expected);
  });

  it('corpusDrift names corpus files; corpusFileDrift looks at one file only', () => {
    expect(corpusDrift(frozen, tree([leaf('a.json', 'c'), leaf('b.json', 'b')], 'x')).map((f) => f.file)).toEqual(['corpus/a.json']);
    expect(corpusFileDrift(frozen, leaf('a.json', 'a'))).toEqual([]);
    expect(corpusFileDrift(frozen, leaf('a.json', 'd')).map((f) => [f.code, f.file])).toEqual([['CORPUS_DRIFT', 'corpus/a.json']]);
    expect(corpusFileDrift(frozen, leaf('new.json', 'd')).map((f) => [f.code, f.file])).toEqual([['CORPUS_DRIFT', 'corpus/new.json']]);
  });

  it('refuseDrift throws the first finding (exit 3) with every finding, and nothing when there is none', () => {
    expect(() => refuseDrift([], 'then')).not.toThrow();
    const findings = trustDrift(frozen, tree([leaf('a.json', 'c')], 'x'));
    try {
      refuseDrift(findings, 'run `prereg check-anchors`');
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(PreregError);
      const e = err as PreregError;
      expect([e.code, e.exitCode, e.message]).toEqual([
        'TRUST_DRIFT',
        3,
        'preregistration/trust/a.json: content changed; run `prereg check-anchors`',
      ]);
      expect(e.details.findings).toEqual(findings);
    }
  });
});
