// Where each identifier of the vocabulary lives in the frozen corpus (SPEC §12.4): the text from
// after the heading that declares it to the next heading that declares any identifier (or the
// document's end), with the vocabulary's own heading patterns and fence rule (vocabulary.ts).
// What a served passage is matched against (pipeline/text/corpus-text.ts). Pure: texts in, map out.
import { declaringHeadings, documentLines, headingRegexes } from './vocabulary.ts';

/** Identifier → its section's text as the corpus writes it (lines joined by "\n"). */
export type CorpusSections = ReadonlyMap<string, string>;

/**
 * Every identifier's section. An identifier declared twice keeps its first declaration's section,
 * as the vocabulary keeps its first declaration; freeze refuses such a corpus (VOCABULARY_ID_DUPLICATE).
 */
export function corpusSections(
  documents: ReadonlyArray<{ path: string; text: string }>,
  headingPatterns: readonly string[],
): CorpusSections {
  const patterns = headingRegexes(headingPatterns);
  const sections = new Map<string, string>();
  for (const doc of documents) {
    const lines = documentLines(doc.text);
    const headings = declaringHeadings(lines, patterns);
    headings.forEach((heading, i) => {
      const end = i + 1 < headings.length ? headings[i + 1]!.line : lines.length;
      const text = lines.slice(heading.line + 1, end).join('\n');
      for (const id of heading.ids) if (!sections.has(id)) sections.set(id, text);
    });
  }
  return sections;
}
