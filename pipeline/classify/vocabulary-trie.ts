// Where an identifier starts and ends in a text, and the trie of the frozen vocabulary that finds
// every identifier in one pass (classify/extract.ts; the rules are in its header). Pure.

export interface Span {
  start: number;
  end: number;
}

// --- boundaries ---------------------------------------------------------------------------------

const ID_CHAR = /^[\p{L}\p{N}\p{M}_-]$/u;
const DIGIT = /^\p{N}$/u;
/** The same boundary rule as regular-expression assertions, wrapped around shape/section patterns. */
export const LEFT_BOUNDARY = String.raw`(?<![\p{L}\p{N}\p{M}_\-])(?!(?<=\.)\p{N})`;
export const RIGHT_BOUNDARY = String.raw`(?![\p{L}\p{N}\p{M}_\-]|\.\p{N})`;

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

export function isBoundaryBefore(text: string, start: number): boolean {
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

export function buildTrie(ids: readonly string[]): TrieNode {
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
export function isTriePrefix(root: TrieNode, text: string, start: number): boolean {
  let node: TrieNode | undefined = root;
  for (let i = start; i < text.length; i++) {
    node = node.children.get(text.charCodeAt(i));
    if (node === undefined) return false;
  }
  return start < text.length;
}

/** Every bounded occurrence of the trie's identifiers: leftmost, then longest, never overlapping. */
export function literalMatches(root: TrieNode, text: string): Array<Span & { ref: string }> {
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
