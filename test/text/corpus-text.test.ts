// Is a served passage frozen corpus text (SPEC §12.4, pipeline/text/corpus-text.ts): one row per
// rule, a passing and a failing case.
import { describe, expect, it } from 'vitest';
import { foldText, matchPassage, normaliseText } from '../../pipeline/text/corpus-text.ts';

const SECTION =
  "\nL'acheteur peut passer un marché sans publicité ni mise en concurrence préalables pour répondre à\nun besoin dont la valeur estimée est inférieure à 40\u00a0000 euros hors taxes. Le plafond est de 10⁵.\n";
const section = foldText(SECTION);
const EXCERPT = 'sans publicité ni mise en concurrence préalables pour répondre à un besoin dont la valeur estimée';

describe('normalisation: NFC and white-space folding only', () => {
  it.each([
    ['runs of white space, line breaks and tabs become one space; the ends are trimmed', ' a \t\n b\u00a0\u202fc  ', 'a b c'],
    ['decomposed accents compose (NFC)', 'me\u0301daille', 'médaille'],
    ['no compatibility folding: a superscript stays a superscript', '10⁵ ﬁn', '10⁵ ﬁn'],
    ['white space alone is empty', ' \n\t ', ''],
  ])('%s', (_, input, expected) => {
    expect(normaliseText(input)).toBe(expected);
    expect(foldText(input).folded).toBe(expected);
  });
});

describe('matchPassage', () => {
  it.each([
    ['the whole section, as written', SECTION, 'section'],
    ['the whole section, white space and composition changed', SECTION.replace(/\n/g, '  ').normalize('NFD'), 'section'],
    ['an excerpt of at least min_chars characters', EXCERPT, 'excerpt'],
    ['an excerpt re-wrapped', EXCERPT.replace(/ /g, '\n'), 'excerpt'],
    ['a short excerpt (20 characters)', 'inférieure à 40 000 ', 'too_short'],
    ['an empty passage', '  \n ', 'empty'],
    ['a changed figure', SECTION.replace('40\u00a0000', '99 999'), 'not_found'],
    ['a match only under NFKC (10⁵ → 105)', SECTION.replace('10⁵', '105'), 'not_found'],
  ])('%s: %s', (_, text, expected) => {
    expect(matchPassage(text, section, 80).match).toBe(expected);
  });

  it('a ref that names no section is unknown_ref', () => {
    expect(matchPassage(EXCERPT, undefined, 80)).toEqual({ match: 'unknown_ref', corpus_text: null });
  });

  it('min_chars counts code points, at the bound', () => {
    // 80 code points that start and end with a letter (a trimmed space would shorten it).
    const start = [...Array(EXCERPT.length - 80).keys()].find((k) => EXCERPT[k] !== ' ' && EXCERPT[k + 79] !== ' ')!;
    const text = EXCERPT.slice(start, start + 80);
    expect([...normaliseText(text)].length).toBe(80);
    expect(matchPassage(text, section, 80).match).toBe('excerpt');
    expect(matchPassage(text, section, 81).match).toBe('too_short');
  });

  it('returns the matched span as the corpus writes it (NFC, its own white space), never the served bytes', () => {
    const served = 'un besoin dont la valeur estimée est inférieure à 40 000 euros hors taxes. Le plafond est de 10⁵.'.normalize('NFD');
    expect(matchPassage(served, section, 80)).toEqual({
      match: 'excerpt',
      corpus_text: 'un besoin dont la valeur estimée est inférieure à 40\u00a0000 euros hors taxes. Le plafond est de 10⁵.',
    });
    expect(matchPassage(SECTION, section, 80).corpus_text).toBe(SECTION.trim());
    expect(matchPassage(EXCERPT.replace(/ /g, '\n'), section, 80).corpus_text).toBe(EXCERPT.replace('répondre à un', 'répondre à\nun'));
  });
});
