// Assertion extraction from an answer's text (SPEC §5.1, §6.3): the pipeline finds the citations
// and amounts itself; section 5 only classifies them. Pure: no file system, clock or network.
//
// Rules (each one a decision written down, tested in test/classify/extract.test.ts):
// - Offsets (`start`, `end`) are UTF-16 code-unit offsets into the answer text, i.e. JavaScript
//   string indices (`text.slice(start, end) === assertion.text`); `end` is exclusive.
// - Vocabulary citations are found by a trie walked from every position (one multi-pattern matcher
//   for the whole frozen vocabulary, not one regular expression per identifier). Matching is
//   case-sensitive and exact, code unit for code unit: no case folding, no Unicode normalisation,
//   no whitespace folding (`CCAG  Travaux 4` with two spaces is not `CCAG Travaux 4`).
// - Bounded: an identifier matches only when the characters just before and after it are not
//   identifier characters (letters, digits, combining marks, `-`, `_`). A `.` is an identifier
//   character only when a digit follows it, so `CCAG Travaux 4.` at a sentence end matches
//   `CCAG Travaux 4`, while `CCAG Travaux 4.1` and `CCAG Travaux 41` do not.
// - At one position the longest bounded identifier wins; matches never overlap (leftmost first).
// - Phantom candidates: bounded matches of a shape pattern, not in the vocabulary and not
//   overlapping a vocabulary citation: a citation with in_vocabulary=false. Overlapping shape
//   matches are resolved leftmost, then longest, then by pattern order.
// - A citation (vocabulary or shape) lying inside a bounded match of a section pattern is not a
//   citation: the study declared that text names a section (`R2161 et suivants`), not an article.
// - Truncated answers: the fragment that runs into the end of the text, starts at a boundary and
//   is a prefix of a vocabulary identifier or of a string a shape pattern matches (complete or
//   not: `R2112-`, `R21`, and also `R2152-2`, which may have been cut from `R2152-25`) is a stub
//   (kind 'citation', stub=true, in_vocabulary=null), never a citation or a phantom. So is a
//   citation followed only by a final `.` (`… CCAG Travaux 4.` may have been cut from `4.1`).
//   When the answer is not truncated, an incomplete fragment is simply not a citation.
// - Amounts: matches of the study's pattern whose named group `value` is normalised to a canonical
//   decimal string (see normaliseAmount); a match overlapping a citation or stub is not an amount.
import type { StudyConfig } from '../study/study.ts';
import { PreregError } from '../reasons.ts';
import { compilePrefixMatcher, namedGroups } from './pattern-prefix.ts';
import { buildTrie, isBoundaryBefore, isTriePrefix, LEFT_BOUNDARY, literalMatches, RIGHT_BOUNDARY, type Span } from './vocabulary-trie.ts';

export type { Span } from './vocabulary-trie.ts';

export interface ExtractorConfig {
  /** The frozen vocabulary: every citable identifier. */
  vocabulary: readonly string[];
  /** study.json vocabulary.shape_patterns (ECMAScript, compiled with flags 'gu'). */
  shapePatterns: readonly string[];
  /** study.json vocabulary.section_patterns. */
  sectionPatterns: readonly string[];
  /** study.json amounts.pattern, with a named group `value`. */
  amountPattern: string;
  amountUnit: string;
  groupSeparators: readonly string[];
  decimalSeparator: string;
}

export interface Assertion {
  /** 0.. in the order of `start`. */
  assertion_index: number;
  kind: 'citation' | 'amount';
  /** Citation: the identifier as written (a stub: the fragment). Amount: null. */
  ref: string | null;
  /** Citation: whether ref is in the frozen vocabulary (false: a phantom). Stub, amount: null. */
  in_vocabulary: boolean | null;
  /** Amount: the canonical decimal string. Citation: null. */
  value: string | null;
  unit: string | null;
  /** UTF-16 code-unit offsets into the answer text; end exclusive. */
  start: number;
  end: number;
  text: string;
  /** A citation-shaped fragment cut by the end of a truncated answer: never judged. */
  stub: boolean;
}

export interface Extractor {
  extract(answerText: string, opts: { truncated: boolean }): Assertion[];
}

/** Builds the extractor's configuration from study.json and the frozen vocabulary. */
export function extractorConfigFromStudy(study: StudyConfig, vocabulary: readonly string[]): ExtractorConfig {
  return {
    vocabulary,
    shapePatterns: study.vocabulary.shape_patterns,
    sectionPatterns: study.vocabulary.section_patterns ?? [],
    amountPattern: study.amounts.pattern,
    amountUnit: study.amounts.unit,
    // study.json may omit them: no group separator, and `.` as the decimal separator.
    groupSeparators: study.amounts.group_separators ?? [],
    decimalSeparator: study.amounts.decimal_separator ?? '.',
  };
}

// --- the extractor ------------------------------------------------------------------------------

/** The longest stub looked for at the end of a truncated answer, in UTF-16 code units. */
const STUB_WINDOW = 256;

function compilePattern(pattern: string, what: string, bounded: boolean): RegExp {
  try {
    return new RegExp(bounded ? `${LEFT_BOUNDARY}(?:${pattern})${RIGHT_BOUNDARY}` : pattern, 'gu');
  } catch (err) {
    throw new PreregError(
      'STUDY_INVALID',
      `study.json ${what} ${JSON.stringify(pattern)} is not a valid regular expression: ${(err as Error).message}`,
      { pattern },
    );
  }
}

/**
 * The longest text one pattern match may span, in UTF-16 code units. A study pattern is matched
 * inside windows of the text, so the time is linear in the text whatever the pattern (a greedy
 * `[0-9]+` run over the whole text from every position was quadratic: 200,000 digits took a
 * minute); a match that would be longer is not an assertion.
 */
export const MAX_MATCH_LENGTH = 256;
/** Text scanned per window (plus MAX_MATCH_LENGTH of context on each side): a failing match costs at most the window and its context. */
const WINDOW = MAX_MATCH_LENGTH;

/**
 * The leftmost, non-overlapping matches of `re` (flags 'gu') in text, as a global scan of the
 * whole text finds them, bounded to MAX_MATCH_LENGTH: each window sees MAX_MATCH_LENGTH units of
 * context before (for lookbehinds) and after; a match reaching the window's end may have been cut
 * there, so it is not one. `index` is into the whole text.
 */
function* matchesOf(re: RegExp, text: string): Generator<RegExpExecArray> {
  let from = 0; // no match may start before the end of the previous one
  for (let windowStart = 0; windowStart < text.length; windowStart += WINDOW) {
    const windowEnd = Math.min(text.length, windowStart + WINDOW);
    const left = Math.max(0, windowStart - MAX_MATCH_LENGTH);
    const right = Math.min(text.length, windowEnd + MAX_MATCH_LENGTH + 1); // a match of the bound ends before it
    const slice = text.slice(left, right);
    re.lastIndex = Math.max(from, windowStart) - left;
    for (let m = re.exec(slice); m !== null; m = re.exec(slice)) {
      const start = m.index + left;
      if (start >= windowEnd) break;
      const end = start + m[0].length;
      const cut = m[0].length > MAX_MATCH_LENGTH || (end >= right && right < text.length);
      if (m[0] === '' || cut || start < from) {
        // An empty match names nothing, a cut one is too long: step over one code point.
        re.lastIndex = m.index + ((slice.codePointAt(m.index) ?? 0) > 0xffff ? 2 : 1);
        continue;
      }
      from = end;
      m.index = start;
      yield m;
      re.lastIndex = end - left;
    }
  }
}

function overlaps(a: Span, b: Span): boolean {
  return a.start < b.end && b.start < a.end;
}

/** Whether span overlaps one of `sorted` (sorted by start, not overlapping each other). */
function overlapsAny(sorted: readonly Span[], span: Span): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]!.end <= span.start) lo = mid + 1;
    else hi = mid;
  }
  return lo < sorted.length && overlaps(sorted[lo]!, span);
}

export function compileExtractor(config: ExtractorConfig): Extractor {
  const vocabulary = new Set(config.vocabulary.filter((id) => id !== ''));
  const trie = buildTrie([...vocabulary]);
  const shapes = config.shapePatterns.map((p) => compilePattern(p, 'shape pattern', true));
  const sections = config.sectionPatterns.map((p) => compilePattern(p, 'section pattern', true));
  const amounts = compilePattern(config.amountPattern, 'amount pattern', false);
  if (!namedGroups(config.amountPattern).has('value')) {
    throw new PreregError(
      'STUDY_INVALID',
      `study.json amount pattern ${JSON.stringify(config.amountPattern)} has no named group \`value\`.`,
      { pattern: config.amountPattern },
    );
  }
  const shapePrefixes = config.shapePatterns.map((p) => compilePrefixMatcher(p));
  const { groupSeparators, decimalSeparator, amountUnit } = config;

  function vocabularyCitations(text: string): Assertion[] {
    return literalMatches(trie, text).map((m) => citation(m.ref, true, m.start, m.end));
  }

  function phantomCitations(text: string, known: readonly Assertion[]): Assertion[] {
    const candidates: Array<Span & { order: number }> = [];
    shapes.forEach((re, order) => {
      for (const m of matchesOf(re, text)) {
        const span = { start: m.index, end: m.index + m[0].length };
        if (vocabulary.has(m[0]) || overlapsAny(known, span)) continue;
        candidates.push({ ...span, order });
      }
    });
    candidates.sort((a, b) => a.start - b.start || b.end - a.end || a.order - b.order);
    const kept: Assertion[] = [];
    let reached = 0;
    for (const c of candidates) {
      if (c.start < reached) continue;
      kept.push(citation(text.slice(c.start, c.end), false, c.start, c.end));
      reached = c.end;
    }
    return kept;
  }

  /** Drops citations lying inside a section mention (a sweep over both, sorted by start). */
  function outsideSections(text: string, cited: Assertion[]): Assertion[] {
    if (sections.length === 0 || cited.length === 0) return cited;
    const spans: Span[] = [];
    for (const re of sections) for (const m of matchesOf(re, text)) spans.push({ start: m.index, end: m.index + m[0].length });
    spans.sort((a, b) => a.start - b.start);
    let j = 0;
    let maxEnd = -1;
    return cited.filter((c) => {
      while (j < spans.length && spans[j]!.start <= c.start) maxEnd = Math.max(maxEnd, spans[j++]!.end);
      return maxEnd < c.end;
    });
  }

  /** The earliest start of a citation-shaped fragment running into the end of the text, or -1. */
  function stubStart(text: string): number {
    for (let s = Math.max(0, text.length - STUB_WINDOW); s < text.length; s++) {
      if (!isBoundaryBefore(text, s)) continue;
      if (isTriePrefix(trie, text, s) || shapePrefixes.some((p) => p(text, s))) return s;
    }
    return -1;
  }

  function amountAssertions(text: string, cited: readonly Span[]): Assertion[] {
    const found: Assertion[] = [];
    for (const m of matchesOf(amounts, text)) {
      const span = { start: m.index, end: m.index + m[0].length };
      if (overlapsAny(cited, span)) continue;
      const raw = m.groups?.value;
      found.push({
        assertion_index: 0,
        kind: 'amount',
        ref: null,
        in_vocabulary: null,
        // A match in which `value` did not take part is kept, visibly, with a null value.
        value: raw === undefined ? null : normaliseAmount(raw, groupSeparators, decimalSeparator),
        unit: amountUnit,
        ...span,
        text: m[0],
        stub: false,
      });
    }
    return found;
  }

  return {
    extract(text, opts) {
      const known = vocabularyCitations(text);
      let cited = outsideSections(
        text,
        [...known, ...phantomCitations(text, known)].sort((a, b) => a.start - b.start),
      );
      if (opts.truncated) {
        const s = stubStart(text);
        const tail = s === -1 ? null : { start: s, end: text.length };
        cited = cited.filter((c) => tail === null || !overlaps(c, tail));
        // A citation followed only by a final `.` may have been cut from `4.1`: not judged either.
        const cut = (c: Assertion): boolean => c.end === text.length || (c.end === text.length - 1 && text.endsWith('.'));
        cited = cited.map((c) => (cut(c) ? { ...c, in_vocabulary: null, stub: true } : c));
        if (tail !== null) cited.push({ ...citation(text.slice(s), false, s, text.length), in_vocabulary: null, stub: true });
      }
      const all = [...cited, ...amountAssertions(text, cited)].sort((a, b) => a.start - b.start || a.end - b.end);
      return all.map((a, i) => ({ ...a, assertion_index: i }));
    },
  };
}

/**
 * The amounts a text that is no answer (a served passage, an article of the corpus) contains, as
 * the extractor finds them in an answer: never truncated, each with its canonical value.
 */
export function amountsIn(extractor: Extractor, text: string): Array<Assertion & { value: string }> {
  return extractor
    .extract(text, { truncated: false })
    .filter((a): a is Assertion & { value: string } => a.kind === 'amount' && a.value !== null);
}

function citation(ref: string, inVocabulary: boolean, start: number, end: number): Assertion {
  return {
    assertion_index: 0,
    kind: 'citation',
    ref,
    in_vocabulary: inVocabulary,
    value: null,
    unit: null,
    start,
    end,
    text: ref,
    stub: false,
  };
}

/**
 * The canonical decimal string of an amount as written: group separators removed, the decimal
 * separator turned into `.`, leading zeros of the integer part and trailing zeros of the fraction
 * stripped, and a fraction of zeros dropped (`40 000` → `40000`, `1 234,50` → `1234.5`,
 * `0,50` → `0.5`, `12,00` → `12`). A value that is not then ASCII digits with at most one `.` is
 * returned as it stands after the separator steps, never guessed at.
 */
export function normaliseAmount(raw: string, groupSeparators: readonly string[], decimalSeparator: string): string {
  let s = raw;
  for (const sep of groupSeparators) if (sep !== '' && sep !== decimalSeparator) s = s.split(sep).join('');
  if (decimalSeparator !== '.' && decimalSeparator !== '') s = s.split(decimalSeparator).join('.');
  const m = /^([0-9]*)(?:\.([0-9]*))?$/.exec(s);
  if (m === null || !/[0-9]/.test(s)) return s;
  const int = m[1]!.replace(/^0+/, '') || '0';
  const frac = (m[2] ?? '').replace(/0+$/, '');
  return frac === '' ? int : `${int}.${frac}`;
}
