import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type Assertion,
  type ExtractorConfig,
  compileExtractor,
  extractorConfigFromStudy,
  normaliseAmount,
  MAX_MATCH_LENGTH,
} from '../../pipeline/classify/extract.ts';
import type { StudyConfig } from '../../pipeline/study/study.ts';
import { extractVocabulary } from '../../pipeline/study/vocabulary.ts';
import { PreregError } from '../../pipeline/reasons.ts';

// The example study's real patterns and the vocabulary its corpus declares.
const root = join(import.meta.dirname, '..', '..');
const study = JSON.parse(readFileSync(join(root, 'preregistration', 'study.json'), 'utf8')) as StudyConfig;
const documents = ['ccag-travaux.md', 'code-commande-publique/partie-legislative.md', 'code-commande-publique/partie-reglementaire.md'].map(
  (path) => ({ path, text: readFileSync(join(root, 'corpus', path), 'utf8') }),
);
const vocabulary = extractVocabulary(documents, study.vocabulary.heading_patterns).ids;
const config = extractorConfigFromStudy(study, vocabulary);
const extractor = compileExtractor(config);

/** A compact view: kind, ref or value, in_vocabulary, stub; offsets are checked separately. */
function view(a: Assertion): string {
  if (a.kind === 'amount') return `amount ${a.value} ${a.unit}`;
  if (a.stub) return `stub ${a.ref}`;
  return `${a.in_vocabulary ? 'cite' : 'phantom'} ${a.ref}`;
}

function run(text: string, truncated = false, ex = extractor): string[] {
  return ex.extract(text, { truncated }).map(view);
}

describe('the example vocabulary', () => {
  it('is read from the corpus headings', () => {
    expect(vocabulary).toEqual(expect.arrayContaining(['R2152-2', 'R2122-8', 'L2113-10', 'CCAG Travaux 4', 'CCAG Travaux 41']));
    expect(vocabulary).not.toContain('L2122-8');
    expect(vocabulary).not.toContain('R2152-25');
  });
});

describe('vocabulary citations: literal and bounded', () => {
  const rows: Array<[string, string, string[]]> = [
    ['a vocabulary id', 'Voir R2152-2, alinéa 2.', ['cite R2152-2']],
    ['4 not inside 41; 41 as itself', 'selon le CCAG Travaux 41 du marché', ['cite CCAG Travaux 41']],
    ['4 at a sentence end', "C'est le CCAG Travaux 4.", ['cite CCAG Travaux 4']],
    ['4 followed by a space', 'le CCAG Travaux 4 prévoit', ['cite CCAG Travaux 4']],
    ['4.1 does not match 4', 'le CCAG Travaux 4.1 prévoit', []],
    ['R2152-25 is not R2152-2 (a phantom)', 'article R2152-25 du code', ['phantom R2152-25']],
    ['a letter before: XR2152-2', 'XR2152-2 est cité', []],
    ['a digit before: 1R2152-2', 'voir 1R2152-2', []],
    ['a dash after: R2152-2-1', 'voir R2152-2-1', []],
    ['an underscore before: _R2152-2', 'voir _R2152-2', []],
    ['a letter after: R2152-2a', 'voir R2152-2a', []],
    ['punctuation around', '(R2152-2), «R2152-2»', ['cite R2152-2', 'cite R2152-2']],
    ['case-sensitive', 'voir r2152-2 et ccag travaux 4', []],
    ['exact: no whitespace folding', 'voir CCAG  Travaux 4', []],
    ['several, in order', 'L2113-10 puis R2122-8 et CCAG Travaux 4', ['cite L2113-10', 'cite R2122-8', 'cite CCAG Travaux 4']],
  ];
  it.each(rows)('%s', (_name, text, expected) => {
    expect(run(text)).toEqual(expected);
  });

  it('prefers the longest bounded identifier at a position and never overlaps', () => {
    const ex = compileExtractor({ ...config, vocabulary: ['CCAG Travaux 4', 'CCAG Travaux 4 bis', 'Travaux 4'] });
    expect(run('le CCAG Travaux 4 bis dit', false, ex)).toEqual(['cite CCAG Travaux 4 bis']);
    expect(run('le CCAG Travaux 4 ter dit', false, ex)).toEqual(['cite CCAG Travaux 4']);
  });
});

describe('phantom candidates by shape', () => {
  const rows: Array<[string, string, string[]]> = [
    ['L2122-8 written for R2122-8', "l'article L2122-8 permet", ['phantom L2122-8']],
    ['a vocabulary id is not a phantom', "l'article R2122-8 permet", ['cite R2122-8']],
    ['a CCAG article absent from the vocabulary', 'le CCAG Travaux 99 dit', ['phantom CCAG Travaux 99']],
    ['shapes are bounded too', 'le code XL2122-8 ou L2122-8b', []],
    ['R2161 et suivants is not a citation', 'voir les articles R2161 et suivants', []],
  ];
  it.each(rows)('%s', (_name, text, expected) => {
    expect(run(text)).toEqual(expected);
  });

  it('a shape covered by a section pattern is not a citation; the same shape alone is', () => {
    // A shape that also accepts a bare section number, so the section pattern has work to do.
    const ex = compileExtractor({ ...config, shapePatterns: ['[LRD][0-9]{4}(?:-[0-9]+)?'] });
    expect(run('voir les articles R2161 et suivants', false, ex)).toEqual([]);
    expect(run("voir l'article R2161 seul", false, ex)).toEqual(['phantom R2161']);
  });

  it('a vocabulary id inside a section mention is not a citation either', () => {
    const ex = compileExtractor({ ...config, sectionPatterns: ['CCAG Travaux [0-9]+ et suivants'] });
    expect(run('le CCAG Travaux 4 et suivants', false, ex)).toEqual([]);
    expect(run('le CCAG Travaux 4 et le 5', false, ex)).toEqual(['cite CCAG Travaux 4']);
  });
});

describe('truncated answers: stubs', () => {
  const rows: Array<[string, string, boolean, string[]]> = [
    ['R2112- cut: a stub, no phantom', "selon l'article R2112-", true, ['stub R2112-']],
    ['R2112- not truncated: nothing', "selon l'article R2112-", false, []],
    ['R21 cut', 'voir R21', true, ['stub R21']],
    ['R21 not truncated', 'voir R21', false, []],
    ['a full id at the very end may be cut (R2152-25)', 'voir R2152-2', true, ['stub R2152-2']],
    ['the same, not truncated, is a citation', 'voir R2152-2', false, ['cite R2152-2']],
    ['a full id then a final dot may be cut (4.1)', 'le CCAG Travaux 4.', true, ['stub CCAG Travaux 4']],
    ['a full id then a space is complete', 'voir R2152-2 ', true, ['cite R2152-2']],
    ['a vocabulary prefix with a space', 'voir R2152-2 et le CCAG Trav', true, ['cite R2152-2', 'stub CCAG Trav']],
    ['a phantom at the end is a stub', 'voir L2122-8', true, ['stub L2122-8']],
    ['not a prefix of any identifier', 'voir R21x', true, []],
    ['no boundary before the fragment', 'voir XR21', true, []],
    ['an ordinary word at the end', 'le marché', true, []],
  ];
  it.each(rows)('%s', (_name, text, truncated, expected) => {
    expect(run(text, truncated)).toEqual(expected);
  });

  it('a stub reports the fragment, its offsets, and in_vocabulary null', () => {
    const text = "selon l'article R2112-";
    expect(extractor.extract(text, { truncated: true })).toEqual([
      {
        assertion_index: 0,
        kind: 'citation',
        ref: 'R2112-',
        in_vocabulary: null,
        value: null,
        unit: null,
        start: 16,
        end: 22,
        text: 'R2112-',
        stub: true,
      },
    ]);
  });

  it('recognises prefixes of shapes with groups, alternation and quantifiers', () => {
    const ex = compileExtractor({ ...config, vocabulary: [], shapePatterns: ['(?:Art\\.|Article) (?<n>[0-9]{1,3})(?:-[0-9]+)?'] });
    expect(run('voir Art. 12-', true, ex)).toEqual(['stub Art. 12-']);
    expect(run('voir Arti', true, ex)).toEqual(['stub Arti']);
    expect(run('voir Article 1234', true, ex)).toEqual([]);
    expect(run('voir Artx', true, ex)).toEqual([]);
  });
});

describe('amounts', () => {
  const rows: Array<[string, string, string[]]> = [
    ['40 000 euros', 'un seuil de 40 000 euros HT', ['amount 40000 EUR']],
    ['5 538 000 €', 'soit 5 538 000 € HT', ['amount 5538000 EUR']],
    ['221 000 EUR', 'à partir de 221 000 EUR', ['amount 221000 EUR']],
    ['1 234,50 euros', 'pour 1 234,50 euros', ['amount 1234.5 EUR']],
    ['NBSP and narrow NBSP separators', 'soit 5\u00a0538\u202f000\u00a0€', ['amount 5538000 EUR']],
    ['a plain number', 'soit 90 euros', ['amount 90 EUR']],
    ['no unit, no amount', 'soit 40 000 offres', []],
    ['a number inside a citation is not an amount', "l'article L2113-10 000 euros", ['cite L2113-10']],
    ['a citation then an amount', 'R2122-8 : 40 000 €', ['cite R2122-8', 'amount 40000 EUR']],
  ];
  it.each(rows)('%s', (_name, text, expected) => {
    expect(run(text)).toEqual(expected);
  });

  const norm: Array<[string, string]> = [
    ['40 000', '40000'],
    ['5\u00a0538\u202f000', '5538000'],
    ['1 234,50', '1234.5'],
    ['12,00', '12'],
    ['0,50', '0.5'],
    ['007', '7'],
    ['0', '0'],
  ];
  it.each(norm)('normalises %j to %j', (raw, expected) => {
    expect(normaliseAmount(raw, [' ', '\u00a0', '\u202f'], ',')).toBe(expected);
  });

  it('refuses an amount pattern without a `value` group', () => {
    expect(() => compileExtractor({ ...config, amountPattern: '[0-9]+ €' })).toThrow(PreregError);
    expect(() => compileExtractor({ ...config, amountPattern: '[0-9]+ €' })).toThrow(/STUDY_INVALID|named group `value`/);
  });
});

describe('offsets, order and determinism', () => {
  it('uses UTF-16 code-unit offsets (an emoji counts for two)', () => {
    const text = '📄 Selon R2152-2, 40 000 €.';
    const found = extractor.extract(text, { truncated: false });
    expect(found.map((a) => [a.assertion_index, a.start, a.end, a.text])).toEqual([
      [0, 9, 16, 'R2152-2'],
      [1, 18, 26, '40 000 €'],
    ]);
    for (const a of found) expect(text.slice(a.start, a.end)).toBe(a.text);
  });

  it('sorts by start and numbers from 0, whatever the kind', () => {
    const text = '40 000 € selon L2122-8 et R2152-2, puis 90 euros.';
    const found = extractor.extract(text, { truncated: false });
    expect(found.map(view)).toEqual(['amount 40000 EUR', 'phantom L2122-8', 'cite R2152-2', 'amount 90 EUR']);
    expect(found.map((a) => a.assertion_index)).toEqual([0, 1, 2, 3]);
    expect(extractor.extract(text, { truncated: false })).toEqual(found);
  });

  it('compiles once and is reusable across answers', () => {
    const ex: ExtractorConfig = config;
    const compiled = compileExtractor(ex);
    expect(run('voir R2152-2', false, compiled)).toEqual(['cite R2152-2']);
    expect(run('voir R2152-2', true, compiled)).toEqual(['stub R2152-2']);
    expect(run('voir R2152-2', false, compiled)).toEqual(['cite R2152-2']);
  });
});

describe('matching is bounded and linear in the text (a match spans at most MAX_MATCH_LENGTH)', () => {
  it('finds every citation and amount, and no citation glued to a digit, at every alignment of the matching windows', () => {
    const parts: string[] = [];
    const expected: Array<[string, number]> = [];
    let at = 0;
    for (let k = 0; k < 700; k++) {
      const pad = 'x'.repeat(k % 9) + ' ';
      const glued = `9R2122-8 `; // preceded by a digit: not a citation, wherever it falls
      const cite = 'R2122-8';
      const amount = ' pour 40 000 euros. ';
      parts.push(pad, glued, cite, amount);
      at += pad.length + glued.length;
      expected.push([`cite ${cite}`, at]);
      at += cite.length;
      expected.push(['amount 40000 EUR', at + ' pour '.length]);
      at += amount.length;
    }
    const text = parts.join('');
    expect(text.length).toBeGreaterThan(20 * MAX_MATCH_LENGTH);
    const found = extractor.extract(text, { truncated: false }).map((a) => [view(a), a.start]);
    expect(found).toEqual(expected);
  });

  it.each([
    ['a run of 20,000 digits before a unit', `${'1'.repeat(20_000)} €`],
    ['a shape with 20,000 digits', `R2122-${'1'.repeat(20_000)}`],
    ['20,000 digits in groups', `${'123 '.repeat(5_000)}€`],
  ])('reports no assertion longer than the bound in %s', (_, text) => {
    const found = extractor.extract(text, { truncated: false });
    for (const a of found) expect(a.end - a.start).toBeLessThanOrEqual(MAX_MATCH_LENGTH);
    expect(found.filter((a) => a.kind === 'citation')).toEqual([]);
  });
});
