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
import { EXIT, PreregError } from '../reasons.ts';

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

// --- boundaries ---------------------------------------------------------------------------------

const ID_CHAR = /^[\p{L}\p{N}\p{M}_-]$/u;
const DIGIT = /^\p{N}$/u;
/** The same boundary rule as regular-expression assertions, wrapped around shape/section patterns. */
const LEFT_BOUNDARY = String.raw`(?<![\p{L}\p{N}\p{M}_\-])(?!(?<=\.)\p{N})`;
const RIGHT_BOUNDARY = String.raw`(?![\p{L}\p{N}\p{M}_\-]|\.\p{N})`;

function codePointBefore(text: string, i: number): string {
  const low = text.charCodeAt(i - 1);
  if (low >= 0xdc00 && low <= 0xdfff && i >= 2) {
    const high = text.charCodeAt(i - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(i - 2, i);
  }
  return text.slice(i - 1, i);
}

function codePointAt(text: string, i: number): string {
  return String.fromCodePoint(text.codePointAt(i)!);
}

function isBoundaryBefore(text: string, start: number): boolean {
  if (start === 0) return true;
  const prev = codePointBefore(text, start);
  if (prev === '.') return !DIGIT.test(codePointAt(text, start));
  return !ID_CHAR.test(prev);
}

function isBoundaryAfter(text: string, end: number): boolean {
  if (end >= text.length) return true;
  const next = codePointAt(text, end);
  if (next === '.') return end + 1 >= text.length || !DIGIT.test(codePointAt(text, end + 1));
  return !ID_CHAR.test(next);
}

// --- the vocabulary trie ----------------------------------------------------------------------

interface TrieNode {
  children: Map<number, TrieNode>;
  terminal: boolean;
}

function buildTrie(ids: readonly string[]): TrieNode {
  const root: TrieNode = { children: new Map(), terminal: false };
  for (const id of ids) {
    // An empty identifier would match everywhere; extractVocabulary never produces one.
    if (id === '') continue;
    let node = root;
    for (let i = 0; i < id.length; i++) {
      const unit = id.charCodeAt(i);
      let child = node.children.get(unit);
      if (child === undefined) {
        child = { children: new Map(), terminal: false };
        node.children.set(unit, child);
      }
      node = child;
    }
    node.terminal = true;
  }
  return root;
}

/** The end of the longest bounded identifier starting at `start`, or -1. */
function longestAt(root: TrieNode, text: string, start: number): number {
  let node: TrieNode | undefined = root;
  let best = -1;
  for (let i = start; i < text.length; i++) {
    node = node.children.get(text.charCodeAt(i));
    if (node === undefined) break;
    if (node.terminal && isBoundaryAfter(text, i + 1)) best = i + 1;
  }
  return best;
}

/** Whether text[start..] is a non-empty prefix of some identifier (complete or not). */
function isTriePrefix(root: TrieNode, text: string, start: number): boolean {
  let node: TrieNode | undefined = root;
  for (let i = start; i < text.length; i++) {
    node = node.children.get(text.charCodeAt(i));
    if (node === undefined) return false;
  }
  return start < text.length;
}

/** Every bounded occurrence of the trie's identifiers: leftmost, then longest, never overlapping. */
function literalMatches(root: TrieNode, text: string): Array<Span & { ref: string }> {
  const found: Array<Span & { ref: string }> = [];
  for (let i = 0; i < text.length; ) {
    if (root.children.has(text.charCodeAt(i)) && isBoundaryBefore(text, i)) {
      const end = longestAt(root, text, i);
      if (end > i) {
        found.push({ ref: text.slice(i, end), start: i, end });
        i = end;
        continue;
      }
    }
    i++;
  }
  return found;
}

/**
 * A matcher for a fixed set of identifiers by the vocabulary's own rules (one trie, bounded,
 * case-sensitive, leftmost-longest, linear in the text): used to find where served passages write
 * the identifiers an answer cites, vocabulary or not.
 */
export function compileLiteralMatcher(ids: Iterable<string>): (text: string) => Array<Span & { ref: string }> {
  const root = buildTrie([...new Set(ids)]);
  return (text) => literalMatches(root, text);
}

// --- the extractor ------------------------------------------------------------------------------

export interface Span {
  start: number;
  end: number;
}

/** The longest stub looked for at the end of a truncated answer, in UTF-16 code units. */
const STUB_WINDOW = 256;

function compilePattern(pattern: string, what: string, bounded: boolean): RegExp {
  try {
    return new RegExp(bounded ? `${LEFT_BOUNDARY}(?:${pattern})${RIGHT_BOUNDARY}` : pattern, 'gu');
  } catch (err) {
    throw new PreregError(
      'STUDY_INVALID',
      `study.json ${what} ${JSON.stringify(pattern)} is not a valid regular expression: ${(err as Error).message}`,
      EXIT.blocked,
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
      EXIT.blocked,
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

// --- prefixes of a pattern's language (stub detection) --------------------------------------------
// A stub is "a prefix of something a shape pattern matches". ECMAScript has no partial matching, so
// the pattern is parsed (the whole `u`-mode grammar) and rewritten into a pattern whose language is
// exactly the prefixes of the original's: P(a) = a?, P(xy) = x P(y) | P(x), P(x|y) = P(x) | P(y),
// P(x{n,m}) = x{0,m-1} P(x). Zero-width assertions (^ $ \b lookarounds) are read as always true
// and back-references as any text: this can only make more fragments stubs, never fewer.

type Node =
  | { t: 'atom'; src: string }
  | { t: 'empty' }
  | { t: 'any' }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; options: Node[] }
  | { t: 'group'; body: Node; name: string | null }
  | { t: 'quant'; body: Node; min: number; max: number };

function parsePattern(src: string): Node {
  let i = 0;
  const fail = (what: string): never => {
    throw new Error(`cannot parse pattern ${JSON.stringify(src)} at ${i}: ${what}`);
  };
  const alt = (): Node => {
    const options = [seq()];
    while (src[i] === '|') {
      i++;
      options.push(seq());
    }
    return options.length === 1 ? options[0]! : { t: 'alt', options };
  };
  const seq = (): Node => {
    const items: Node[] = [];
    while (i < src.length && src[i] !== '|' && src[i] !== ')') items.push(quantified(atom()));
    return { t: 'seq', items };
  };
  const quantified = (body: Node): Node => {
    const q = /^(?:([*+?])|\{([0-9]+)(,([0-9]*))?\})\??/.exec(src.slice(i));
    if (q === null) return body;
    i += q[0].length;
    if (q[1] !== undefined) return { t: 'quant', body, min: q[1] === '+' ? 1 : 0, max: q[1] === '?' ? 1 : Infinity };
    const min = Number(q[2]);
    return { t: 'quant', body, min, max: q[3] === undefined ? min : q[4] === '' ? Infinity : Number(q[4]) };
  };
  const take = (re: RegExp): string => {
    const m = re.exec(src.slice(i)) ?? fail(`expected ${re.source}`);
    i += m[0].length;
    return m[0];
  };
  const atom = (): Node => {
    const c = src[i]!;
    if (c === '(') {
      const head = take(/^\((?:\?(?::|=|!|<=|<!|<([^>]+)>))?/);
      const body = alt();
      if (src[i++] !== ')') fail('unclosed group');
      if (/^\(\?(?:=|!|<=|<!)/.test(head)) return { t: 'empty' };
      const name = /^\(\?<([^>]+)>/.exec(head)?.[1] ?? null;
      return { t: 'group', body, name };
    }
    if (c === '[') return { t: 'atom', src: take(/^\[(?:\\[\s\S]|[^\\\]])*\]/) };
    if (c === '^' || c === '$') return i++, { t: 'empty' };
    if (c === '\\') {
      const esc = take(/^\\(?:[pP]\{[^}]*\}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}(?:\\u[dD][c-fC-F][0-9a-fA-F]{2})?|x[0-9a-fA-F]{2}|c[a-zA-Z]|k<[^>]+>|[1-9][0-9]*|[\s\S])/u);
      if (esc === '\\b' || esc === '\\B') return { t: 'empty' };
      if (/^\\(?:k<|[1-9])/.test(esc)) return { t: 'any' };
      return { t: 'atom', src: esc };
    }
    const cp = String.fromCodePoint(src.codePointAt(i)!);
    i += cp.length;
    return { t: 'atom', src: cp };
  };
  const tree = alt();
  if (i !== src.length) fail('unbalanced )');
  return tree;
}

/** The original language, with groups made non-capturing (copies must not repeat a group name). */
function full(n: Node): string {
  switch (n.t) {
    case 'atom':
      return n.src;
    case 'empty':
      return '';
    case 'any':
      return String.raw`[\s\S]*`;
    case 'seq':
      return n.items.map(full).join('');
    case 'alt':
      return `(?:${n.options.map(full).join('|')})`;
    case 'group':
      return `(?:${full(n.body)})`;
    case 'quant':
      return `(?:${full(n.body)}){${n.min},${n.max === Infinity ? '' : n.max}}`;
  }
}

/** The language of all prefixes (the empty string and complete matches included). */
function prefix(n: Node): string {
  switch (n.t) {
    case 'atom':
      return `(?:${n.src})?`;
    case 'empty':
      return '';
    case 'any':
      return String.raw`[\s\S]*`;
    case 'seq': {
      const [first, ...rest] = n.items;
      if (first === undefined) return '';
      if (rest.length === 0) return prefix(first);
      return `(?:${full(first)}${prefix({ t: 'seq', items: rest })}|${prefix(first)})`;
    }
    case 'alt':
      return `(?:${n.options.map(prefix).join('|')})`;
    case 'group':
      return prefix(n.body);
    case 'quant': {
      if (n.max === 0) return '';
      const upTo = n.max === Infinity ? '' : String(n.max - (n.body.t === 'atom' ? 0 : 1));
      // For a single character, "some, then a prefix of one more" is simply "up to max of them".
      return n.body.t === 'atom' ? `(?:${n.body.src}){0,${upTo}}` : `(?:${full(n.body)}){0,${upTo}}${prefix(n.body)}`;
    }
  }
}

/** Whether text[start..] (to the end) is a non-empty prefix of a string the pattern matches. */
function compilePrefixMatcher(pattern: string): (text: string, start: number) => boolean {
  const re = new RegExp(`(?:${prefix(parsePattern(pattern))})$`, 'uy');
  return (text, start) => {
    if (start >= text.length) return false;
    re.lastIndex = start;
    return re.test(text);
  };
}

function namedGroups(pattern: string): Set<string> {
  const names = new Set<string>();
  const walk = (n: Node): void => {
    if (n.t === 'seq') n.items.forEach(walk);
    else if (n.t === 'alt') n.options.forEach(walk);
    else if (n.t === 'quant') walk(n.body);
    else if (n.t === 'group') {
      if (n.name !== null) names.add(n.name);
      walk(n.body);
    }
  };
  walk(parsePattern(pattern));
  return names;
}
