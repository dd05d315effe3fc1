import { describe, expect, it } from 'vitest';
import { byCodePoint, extractVocabulary, readCorpusHeadings, vocabularyDigest } from '../../pipeline/study/vocabulary.ts';

const patterns = ['^#{2,4} Article (?<id>[LR][0-9]{4}-[0-9]+)\\s*$', '^#{2,4} (?<id>CCAG Travaux [0-9]+)\\s*$'];

describe('vocabulary from corpus headings', () => {
  it('reads identifiers from headings only, outside fenced blocks, once each', () => {
    const v = extractVocabulary(
      [
        {
          path: 'a.md',
          text: '### Article R2152-2\nArticle R9999-9 in prose\n```\n### Article L1111-1\n```\n#### CCAG Travaux 41\n### CCAG Travaux 4\n',
        },
        { path: 'b.md', text: '## Article R2152-2\n# Article L2113-10 (level 1 is not matched)\n' },
      ],
      patterns,
    );
    expect(v.ids).toEqual(['CCAG Travaux 4', 'CCAG Travaux 41', 'R2152-2']);
    expect(v.entries.find((e) => e.id === 'R2152-2')).toEqual({ id: 'R2152-2', file: 'a.md', line: 1 });
    expect(v.sha256).toBe(vocabularyDigest(['R2152-2', 'CCAG Travaux 41', 'CCAG Travaux 4']));
  });

  it('lists every identifier a second heading declares again, with both places (VOCABULARY_ID_DUPLICATE)', () => {
    const documents = [
      { path: 'a.md', text: '### Article R2152-2\n```\n### Article R2152-2\n```\n## Article R2122-8\n' },
      { path: 'b/c.md', text: 'prose\n#### Article R2152-2\n### Article L1111-1\n' },
    ];
    // A third pattern naming the same identifier on the same heading line: one declaration, not two.
    const { vocabulary, duplicates } = readCorpusHeadings(documents, [...patterns, '^## Article (?<id>R2122-8)$'], []);
    expect(vocabulary.ids).toEqual(['L1111-1', 'R2122-8', 'R2152-2']);
    expect(duplicates).toEqual([
      { id: 'R2152-2', first: { file: 'a.md', line: 1 }, again: { file: 'b/c.md', line: 2, heading: '#### Article R2152-2' } },
    ]);
  });

  it('orders by code point, not UTF-16 units', () => {
    // U+FFFF sorts before U+1F600 by code point, after it by UTF-16 unit (0xD83D < 0xFFFF).
    expect(['\u{1F600}', '\uFFFF'].sort(byCodePoint)).toEqual(['\uFFFF', '\u{1F600}']);
  });

  it('reads the vocabulary and the headings it leaves out in one pass (VOCABULARY_HEADING_UNMATCHED)', () => {
    const documents = [
      {
        path: 'a.md',
        text: [
          '### Article R2152-2',
          '### Art. R2152-3', // an identifier's shape, declared by no pattern: a citation of it would be a phantom
          '```',
          '### Art. R9999-9', // inside a fence: not a heading
          '```',
          '## Annexe du R2152-9', // an identifier's shape, but matched by a heading pattern (whose id group is empty): declared, not left out
          'Art. R2152-4 in prose', // not a heading
        ].join('\n'),
      },
    ];
    const withOptional = [...patterns, '^#{2,4} Annexe(?: (?<id>[A-Z]+\\b))?.*$'];
    const { vocabulary, unmatched } = readCorpusHeadings(documents, withOptional, ['[LR][0-9]{4}-[0-9]+']);
    expect(vocabulary.ids).toEqual(['R2152-2']);
    expect(vocabulary.entries).toEqual([{ id: 'R2152-2', file: 'a.md', line: 1 }]);
    expect(vocabulary.sha256).toBe(vocabularyDigest(['R2152-2']));
    expect(unmatched).toEqual([{ file: 'a.md', line: 2, heading: '### Art. R2152-3' }]);
  });
});
