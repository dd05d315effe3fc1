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
  for (const { line, text } of headingLines(lines)) {
    const ids = declaredIds(text, patterns);
    if (ids.length > 0) headings.push({ line, ids });
  }
  return headings;
}

/** The identifiers a heading line declares: each pattern's `id` group, in pattern order. */
function declaredIds(text: string, patterns: readonly RegExp[]): string[] {
  return patterns.map((re) => re.exec(text)?.groups?.id).filter((id): id is string => id !== undefined);
}

/** Every Markdown heading line (starting with `#`) outside fenced code blocks, with its 0-based index. */
function* headingLines(lines: readonly string[]): Generator<{ line: number; text: string }> {
  let fence: string | null = null;
  for (const [i, line] of lines.entries()) {
    const fenceMatch = /^(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      if (fence === null) fence = fenceMatch[1]!;
      else if (line.startsWith(fence)) fence = null;
      continue;
    }
    if (fence === null && line.startsWith('#')) yield { line: i, text: line };
  }
}

/** A heading shaped like an identifier that no heading pattern declares (VOCABULARY_HEADING_UNMATCHED). */
export interface UnmatchedHeading {
  /** Corpus-relative file. */
  file: string;
  /** 1-based line. */
  line: number;
  heading: string;
}

/**
 * An identifier declared by a second heading (VOCABULARY_ID_DUPLICATE): which article a citation
 * of it names, which passage proves it, would depend on the order of the corpus's paths.
 */
export interface DuplicateDeclaration {
  id: string;
  /** Where it was declared first (corpus-relative file, 1-based line), in path order. */
  first: { file: string; line: number };
  /** Where it is declared again. */
  again: { file: string; line: number; heading: string };
}

/** What VOCABULARY_ID_DUPLICATE says: the identifier and both places (study-relative file:line). */
export function duplicateMessage(d: DuplicateDeclaration): string {
  return `the identifier ${JSON.stringify(d.id)} is declared by two headings, corpus/${d.first.file}:${d.first.line} and corpus/${d.again.file}:${d.again.line} (${JSON.stringify(d.again.heading)}): one identifier, one article`;
}

/** A document's lines as the vocabulary reads them. */
export const documentLines = (text: string): string[] => text.split(/\r?\n/);

/** The heading patterns of study.json, compiled as the vocabulary compiles them. */
export const headingRegexes = (headingPatterns: readonly string[]): RegExp[] => headingPatterns.map((p) => new RegExp(p, 'u'));

/**
 * Reads identifiers from Markdown headings outside fenced code blocks. Each pattern must have a
 * named group `id`. An identifier declared twice is kept once (its first declaration); freeze
 * refuses such a corpus (readCorpusHeadings' `duplicates`).
 */
export function extractVocabulary(
  documents: ReadonlyArray<{ path: string; text: string }>,
  headingPatterns: readonly string[],
): Vocabulary {
  return readCorpusHeadings(documents, headingPatterns, []).vocabulary;
}

/**
 * One pass over the corpus's headings: the vocabulary they declare (extractVocabulary), the
 * headings that contain an identifier of a declared shape (study.json shape_patterns) but that no
 * heading pattern matches (SPEC §12.5) — a citable article the vocabulary would silently leave
 * out, so that a citation of it is a phantom; a warning, never a refusal — and the identifiers
 * a second heading declares again (a refusal: one identifier, one article). One heading whose
 * patterns name the same identifier twice declares it once.
 */
export function readCorpusHeadings(
  documents: ReadonlyArray<{ path: string; text: string }>,
  headingPatterns: readonly string[],
  shapePatterns: readonly string[],
): { vocabulary: Vocabulary; unmatched: UnmatchedHeading[]; duplicates: DuplicateDeclaration[] } {
  const patterns = headingRegexes(headingPatterns);
  const shapes = shapePatterns.map((p) => new RegExp(p, 'u'));
  const entries: VocabularyEntry[] = [];
  const unmatched: UnmatchedHeading[] = [];
  const duplicates: DuplicateDeclaration[] = [];
  const seen = new Map<string, VocabularyEntry>();
  for (const doc of documents) {
    for (const { line, text } of headingLines(documentLines(doc.text))) {
      const ids = declaredIds(text, patterns);
      if (ids.length === 0) {
        // Matched by a heading pattern (even one whose id group is empty) is declared, not left out.
        if (!patterns.some((re) => re.test(text)) && shapes.some((re) => re.test(text)))
          unmatched.push({ file: doc.path, line: line + 1, heading: text });
        continue;
      }
      for (const id of ids) {
        const first = seen.get(id);
        if (first === undefined) {
          const entry = { id, file: doc.path, line: line + 1 };
          seen.set(id, entry);
          entries.push(entry);
        } else if (first.file !== doc.path || first.line !== line + 1) {
          duplicates.push({ id, first: { file: first.file, line: first.line }, again: { file: doc.path, line: line + 1, heading: text } });
        }
      }
    }
  }
  const ids = [...seen.keys()].sort(byCodePoint);
  return { vocabulary: { ids, sha256: vocabularyDigest(ids), entries }, unmatched, duplicates };
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
