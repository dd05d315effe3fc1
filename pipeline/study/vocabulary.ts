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

/**
 * Reads identifiers from Markdown headings outside fenced code blocks. Each pattern must have a
 * named group `id`. An identifier declared twice is kept once (its first declaration).
 */
export function extractVocabulary(
  documents: ReadonlyArray<{ path: string; text: string }>,
  headingPatterns: readonly string[],
): Vocabulary {
  const patterns = headingPatterns.map((p) => new RegExp(p, 'u'));
  const entries: VocabularyEntry[] = [];
  const seen = new Set<string>();
  for (const doc of documents) {
    let fence: string | null = null;
    doc.text.split(/\r?\n/).forEach((line, i) => {
      const fenceMatch = /^(`{3,}|~{3,})/.exec(line);
      if (fenceMatch) {
        if (fence === null) fence = fenceMatch[1]!;
        else if (line.startsWith(fence)) fence = null;
        return;
      }
      if (fence !== null || !line.startsWith('#')) return;
      for (const re of patterns) {
        const id = re.exec(line)?.groups?.id;
        if (id !== undefined && !seen.has(id)) {
          seen.add(id);
          entries.push({ id, file: doc.path, line: i + 1 });
        }
      }
    });
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
