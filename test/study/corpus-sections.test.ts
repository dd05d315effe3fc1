// Where each identifier lives (SPEC §12.4, pipeline/study/corpus-sections.ts): from after the
// heading that declares it to the next heading that declares any identifier, with the
// vocabulary's own patterns and fence rule.
import { describe, expect, it } from 'vitest';
import { corpusSections } from '../../pipeline/study/corpus-sections.ts';

const PATTERNS = ['^#{2,4} Article (?<id>[LR][0-9]{4}-[0-9]+)\\s*$', '^#{2,4} (?<id>CCAG Travaux [0-9]+)\\s*$'];
const DOC = [
  '# Code',
  '',
  '### Article R1111-1',
  '',
  'First article.',
  '',
  '## Livre II', // declares nothing: part of R1111-1's section
  '',
  '```',
  '### Article R9999-9', // inside a fence: declares nothing
  '```',
  '### Article R1111-2',
  'Second.',
  '### CCAG Travaux 4',
  'Clause.',
].join('\n');

describe('corpusSections', () => {
  const sections = corpusSections(
    [
      { path: 'a.md', text: DOC },
      { path: 'b.md', text: '## Article R1111-2\nA second declaration.\n' },
    ],
    PATTERNS,
  );

  it('a section runs to the next heading that declares an identifier, other headings and fences included', () => {
    expect(sections.get('R1111-1')).toBe('\nFirst article.\n\n## Livre II\n\n```\n### Article R9999-9\n```');
    expect(sections.get('CCAG Travaux 4')).toBe('Clause.');
  });

  it('an identifier declared twice keeps its first section, as the vocabulary keeps its first declaration', () => {
    expect(sections.get('R1111-2')).toBe('Second.');
  });

  it('a heading inside a fence declares nothing', () => {
    expect(sections.has('R9999-9')).toBe(false);
    expect([...sections.keys()].sort()).toEqual(['CCAG Travaux 4', 'R1111-1', 'R1111-2']);
  });
});
