// Is a served passage frozen corpus text (SPEC §12.4)? Both are normalised by Unicode NFC and
// white-space folding only — every run of white space (JavaScript's \s: Unicode White_Space, the
// no-break spaces included) becomes one space, the ends are trimmed — and never by compatibility
// folding: NFKC would turn `10⁵` into `105` and let a passage that changes a figure match.
// A passage matches when, normalised, it is non-empty and is either its section's whole text or
// an excerpt of at least `minChars` characters (code points) that occurs in it. The matched span
// is returned as the corpus writes it (NFC, its own white space), for the proven column to read
// amounts and mentions from the corpus rather than from the served bytes.

/** Why a passage is, or is not, corpus text. */
export type CorpusMatch = 'section' | 'excerpt' | 'empty' | 'too_short' | 'unknown_ref' | 'not_found';

export interface PassageMatch {
  match: CorpusMatch;
  /** The matched span of the section (NFC, white space as written); null unless section or excerpt. */
  corpus_text: string | null;
}

/** A text normalised, with where each normalised code unit comes from in the NFC text. */
export interface FoldedText {
  /** NFC of the input. */
  nfc: string;
  /** NFC, white-space runs folded to one space, trimmed. */
  folded: string;
  /** origin[i]: the index in `nfc` of folded[i] (a folded space: the first unit of its run). */
  origin: number[];
}

const WHITE = /\s/u;

/** NFC, then white-space folding, remembering where each unit came from. */
export function foldText(text: string): FoldedText {
  const nfc = text.normalize('NFC');
  let folded = '';
  const origin: number[] = [];
  let pendingSpace = -1;
  for (let i = 0; i < nfc.length; i++) {
    const unit = nfc[i]!;
    if (WHITE.test(unit)) {
      if (pendingSpace < 0) pendingSpace = i;
      continue;
    }
    if (pendingSpace >= 0 && folded.length > 0) {
      folded += ' ';
      origin.push(pendingSpace);
    }
    pendingSpace = -1;
    folded += unit;
    origin.push(i);
  }
  return { nfc, folded, origin };
}

/** The normalised form alone (foldText's `folded`, without the offsets: once per served passage). */
export const normaliseText = (text: string): string => text.normalize('NFC').replace(/\s+/gu, ' ').trim();

const codePoints = (s: string): number => {
  let n = 0;
  for (const _ of s) n++;
  return n;
};

/**
 * Matches one passage against the section its ref names (undefined: the ref names no section of
 * the corpus). `section` is folded once per section by the caller (foldText).
 */
export function matchPassage(text: string, section: FoldedText | undefined, minChars: number): PassageMatch {
  const passage = normaliseText(text);
  if (passage === '') return { match: 'empty', corpus_text: null };
  if (section === undefined) return { match: 'unknown_ref', corpus_text: null };
  if (passage === section.folded) return { match: 'section', corpus_text: span(section, 0, passage.length) };
  if (codePoints(passage) < minChars) return { match: 'too_short', corpus_text: null };
  const at = section.folded.indexOf(passage);
  if (at < 0) return { match: 'not_found', corpus_text: null };
  return { match: 'excerpt', corpus_text: span(section, at, at + passage.length) };
}

/** The NFC text behind folded[start, end) (neither end is a folded space: a passage is trimmed). */
function span(section: FoldedText, start: number, end: number): string {
  return section.nfc.slice(section.origin[start]!, section.origin[end - 1]! + 1);
}
