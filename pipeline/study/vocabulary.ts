// The vocabulary: citable identifiers declared by the corpus's own headings (SPEC §4.1).
import { canonicalJson } from '../formats/canonical-json.ts';
import { sha256Hex } from '../formats/hash.ts';

export interface VocabularyEntry {
  id: string;
  /** Corpus-relative file that declares it. */
  file: string;
  line: number;
}

export interface Vocabulary {
  ids: string[];
  sha256: string;
  entries: VocabularyEntry[];
}

/** A heading line outside fenced code blocks that declares identifiers: its 0-based line index and the ids its patterns name. */
export interface DeclaringHeading {
  line: number;
  ids: string[];
}

/**
 * The heading lines of one Markdown document, outside fenced code blocks, that a heading pattern
 * matches (each pattern has a named group `id`), in line order: what declares the vocabulary and
 * where each identifier's section begins and ends (corpus-sections.ts).
 */
export function declaringHeadings(lines: readonly string[], patterns: readonly RegExp[]): DeclaringHeading[] {
  const headings: DeclaringHeading[] = [];
  let fence: string | null = null;
  lines.forEach((line, i) => {
    const fenceMatch = /^(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      if (fence === null) fence = fenceMatch[1]!;
      else if (line.startsWith(fence)) fence = null;
      return;
    }
    if (fence !== null || !line.startsWith('#')) return;
    const ids = patterns.map((re) => re.exec(line)?.groups?.id).filter((id): id is string => id !== undefined);
    if (ids.length > 0) headings.push({ line: i, ids });
  });
  return headings;
}

/** A document's lines as the vocabulary reads them. */
export const documentLines = (text: string): string[] => text.split(/\r?\n/);

/** The heading patterns of study.json, compiled as the vocabulary compiles them. */
export const headingRegexes = (headingPatterns: readonly string[]): RegExp[] => headingPatterns.map((p) => new RegExp(p, 'u'));

/**
 * Reads identifiers from Markdown headings outside fenced code blocks. Each pattern must have a
 * named group `id`. An identifier declared twice is kept once (its first declaration).
 */
export function extractVocabulary(
  documents: ReadonlyArray<{ path: string; text: string }>,
  headingPatterns: readonly string[],
): Vocabulary {
  const patterns = headingRegexes(headingPatterns);
  const entries: VocabularyEntry[] = [];
  const seen = new Set<string>();
  for (const doc of documents) {
    for (const heading of declaringHeadings(documentLines(doc.text), patterns)) {
      for (const id of heading.ids) {
        if (seen.has(id)) continue;
        seen.add(id);
        entries.push({ id, file: doc.path, line: heading.line + 1 });
      }
    }
  }
  const ids = [...seen].sort(byCodePoint);
  return { ids, sha256: vocabularyDigest(ids), entries };
}

/** SHA-256 of the canonical JSON array of identifiers, sorted by code point. */
export function vocabularyDigest(ids: readonly string[]): string {
  return sha256Hex(canonicalJson([...ids].sort(byCodePoint)));
}

export function byCodePoint(a: string, b: string): number {
  // Compare by code point: UTF-16 order differs from it beyond U+FFFF.
  const ca = [...a];
  const cb = [...b];
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const d = ca[i]!.codePointAt(0)! - cb[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return ca.length - cb.length;
}
