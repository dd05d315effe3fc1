// Section 5 of the preregistration: the executable analysis plan (SPEC §4.2).
import { sha256Hex } from '../formats/hash.ts';
import { readText } from '../io/json-files.ts';
import type { StudyLayout } from '../layout.ts';

export interface Section5 {
  /** The section's text, line endings normalised to \n, from its heading up to the next level-2 heading. */
  text: string;
  sha256: string;
  /** The fenced ```sql blocks, in order, with the line where each starts in the document. */
  sqlBlocks: Array<{ sql: string; line: number }>;
}

/** One part of PREREGISTRATION.md as the freeze digests it (SPEC §13.3): a level-2 section, or what precedes the first. */
export interface PlanSection {
  /** The level-2 heading line (`## 1. Question`); "" for the text before the first heading. */
  heading: string;
  /** The 1-based line of the heading (1 for the text before the first heading). */
  line: number;
  /** The section's text, line endings normalised to \n, from its heading up to the next level-2 heading. */
  text: string;
}

/**
 * The document cut at its level-2 headings (headings inside fenced blocks do not count): the text
 * before the first, then each section up to the next. Joined, the parts are the whole document
 * with its line endings normalised, so a digest of each covers every byte.
 */
export function planSections(markdown: string): PlanSection[] {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const starts = [0];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fenceMatch = /^(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      if (fence === null) fence = fenceMatch[1]!;
      else if (line.startsWith(fence) && line.slice(fence.length).trim() === '') fence = null;
      continue;
    }
    if (fence === null && /^## (?!#)/.test(line) && i > 0) starts.push(i);
  }
  return starts.map((start, k) => {
    const end = starts[k + 1] ?? lines.length;
    const heading = /^## (?!#)/.test(lines[start]!) ? lines[start]! : '';
    // A section that ends the file keeps its final newline exactly as written.
    const text = lines.slice(start, end).join('\n') + (end < lines.length ? '\n' : '');
    return { heading, line: start + 1, text };
  });
}

/** Section 5: the first level-2 heading whose title starts with `5` (`## 5. Analysis plan`). */
export function isSection5(heading: string): boolean {
  return /^## +5(?![0-9])/.test(heading);
}

/** Section 5 of the study's preregistration/PREREGISTRATION.md, read from disk; null when it has none. */
export function readSection5(layout: Pick<StudyLayout, 'plan'>): Section5 | null {
  return extractSection5(readText(layout.plan));
}

/** Section 5 of a document's sections; null when it has none. */
export function section5Of(sections: readonly PlanSection[]): Section5 | null {
  const section = sections.find((s) => isSection5(s.heading));
  if (!section) return null;
  const lines = section.text.split('\n');
  if (section.text.endsWith('\n')) lines.pop();
  return { text: section.text, sha256: sha256Hex(section.text), sqlBlocks: sqlBlocksOf(lines, section.line - 1) };
}

export function extractSection5(markdown: string): Section5 | null {
  return section5Of(planSections(markdown));
}

function sqlBlocksOf(lines: readonly string[], firstLine: number): Array<{ sql: string; line: number }> {
  const blocks: Array<{ sql: string; line: number }> = [];
  let open: { fence: string; sql: boolean; body: string[]; line: number } | null = null;
  lines.forEach((line, i) => {
    if (open === null) {
      const m = /^(`{3,}|~{3,})\s*([A-Za-z0-9_-]*)/.exec(line);
      if (m) open = { fence: m[1]!, sql: m[2]!.toLowerCase() === 'sql', body: [], line: firstLine + i + 2 };
    } else if (line.startsWith(open.fence) && line.slice(open.fence.length).trim() === '') {
      if (open.sql) blocks.push({ sql: open.body.join('\n'), line: open.line });
      open = null;
    } else {
      open.body.push(line);
    }
  });
  return blocks;
}

/**
 * The system ids section 5's SQL names as literals (`system_id = 'sys-honest'`, `system_a IN
 * ('a', 'b')`), with the line each is on: a plan written over a system's name instead of the
 * registered systems (SPEC §12.6), which doctor flags when the study registers no such system.
 */
export function systemsNamedBySection5(section5: Pick<Section5, 'sqlBlocks'>): Array<{ system_id: string; line: number }> {
  const named: Array<{ system_id: string; line: number }> = [];
  for (const block of section5.sqlBlocks) {
    block.sql.split('\n').forEach((text, i) => {
      for (const m of text.matchAll(/\b(?:system_id|system_a|system_b|winner)\s*(?:=|<>|!=|IN\s*\()\s*((?:'(?:[^']|'')*'\s*,?\s*)+)/gi)) {
        for (const lit of m[1]!.matchAll(/'((?:[^']|'')*)'/g))
          named.push({ system_id: lit[1]!.replaceAll("''", "'"), line: block.line + i });
      }
    });
  }
  return named;
}

/** A word, string literal or symbol of section 5's SQL, with its line in PREREGISTRATION.md. */
interface Token {
  /** name: a bare word or a "quoted" identifier (unquoted), lower-cased; string: a '…' literal's value; symbol: = <> != ( ) , ; */
  kind: 'name' | 'string' | 'symbol';
  text: string;
  line: number;
}

/** The tokens of section 5's SQL, outside comments, block after block (each block ends with a `;`). */
function section5Tokens(section5: Pick<Section5, 'sqlBlocks'>): Token[] {
  const tokens: Token[] = [];
  for (const block of section5.sqlBlocks) {
    let line = block.line;
    // Comments, string literals, quoted identifiers, bare words and symbols, in one left-to-right scan.
    for (const m of block.sql.matchAll(
      /--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|'((?:[^']|'')*)'?|"((?:[^"]|"")*)"?|([A-Za-z_][A-Za-z0-9_$]*)|(<>|!=|[=(),;])|\n/g,
    )) {
      if (m[0] === '\n') line++;
      else {
        if (m[1] !== undefined) tokens.push({ kind: 'string', text: m[1].replaceAll("''", "'"), line });
        else if (m[2] !== undefined || m[3] !== undefined)
          tokens.push({ kind: 'name', text: (m[2]?.replaceAll('""', '"') ?? m[3]!).toLowerCase(), line });
        else if (m[4] !== undefined) tokens.push({ kind: 'symbol', text: m[4], line });
        line += m[0].split('\n').length - 1;
      }
    }
    tokens.push({ kind: 'symbol', text: ';', line });
  }
  return tokens;
}

/**
 * The identifiers section 5's SQL names, outside comments and string literals (a double-quoted
 * identifier unquoted), lower-cased, each with its line in PREREGISTRATION.md: what the freeze's
 * static rule check reads (SPEC §13.1).
 */
export function section5Identifiers(section5: Pick<Section5, 'sqlBlocks'>): Array<{ name: string; line: number }> {
  return section5Tokens(section5)
    .filter((t) => t.kind === 'name')
    .map((t) => ({ name: t.text, line: t.line }));
}

/** The object a statement makes or fills: CREATE [OR REPLACE] [TEMP] VIEW|MACRO|TABLE|FUNCTION x, INSERT INTO x, UPDATE x; null for any other. */
function definedBy(statement: readonly Token[]): string | null {
  const words = statement.filter((t) => t.kind === 'name').map((t) => t.text);
  if (words[0] === 'insert' && words[1] === 'into') return words[2] ?? null;
  if (words[0] === 'update') return words[1] ?? null;
  if (words[0] !== 'create') return null;
  let i = 1;
  while (['or', 'replace', 'temp', 'temporary'].includes(words[i] ?? '')) i++;
  if (!['view', 'macro', 'table', 'function'].includes(words[i] ?? '')) return null;
  i++;
  while (['if', 'not', 'exists'].includes(words[i] ?? '')) i++;
  return words[i] ?? null;
}

const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$/;
const COMPARISONS = new Set(['=', '<>', '!=', 'like', 'ilike', 'when']);

/**
 * The quoted UPPER_SNAKE literals of section 5 that can reach a class column (SPEC §13.1): those
 * of the statements `assertion_classes` is made from — its own, those of every view, macro or
 * table they name, transitively, and any statement that makes nothing (a SET) — except a literal
 * that is only compared (beside =, <>, !=, LIKE, after a simple CASE's WHEN, inside IN (…)).
 * Over-approximated by statement: the freeze refuses each one that is not a declared class.
 */
export function classLiteralsOfSection5(section5: Pick<Section5, 'sqlBlocks'>): Array<{ value: string; line: number }> {
  const statements: Token[][] = [[]];
  for (const t of section5Tokens(section5)) {
    if (t.kind === 'symbol' && t.text === ';') statements.push([]);
    else statements[statements.length - 1]!.push(t);
  }
  const made = statements.filter((s) => s.length > 0).map((tokens) => ({ tokens, defines: definedBy(tokens) }));
  const reached = new Set(['assertion_classes']);
  const included = new Set<(typeof made)[number]>(made.filter((s) => s.defines === null));
  for (let grew = true; grew; ) {
    grew = false;
    for (const s of made) {
      if (included.has(s) || s.defines === null || !reached.has(s.defines)) continue;
      included.add(s);
      for (const t of s.tokens) if (t.kind === 'name') reached.add(t.text);
      grew = true;
    }
  }
  const literals: Array<{ value: string; line: number }> = [];
  for (const s of made.filter((x) => included.has(x))) {
    // Depth of parentheses opened by IN ( … ): every literal inside is compared.
    const inLists: number[] = [];
    let depth = 0;
    // Between SET and WHERE (SET VARIABLE v = …, UPDATE t SET c = …), `=` assigns: not a comparison.
    let assigning = false;
    s.tokens.forEach((t, i) => {
      const before = s.tokens[i - 1];
      if (t.kind === 'name' && (t.text === 'set' || t.text === 'where')) assigning = t.text === 'set';
      if (t.kind === 'symbol' && t.text === '(') {
        depth++;
        if (before?.kind === 'name' && before.text === 'in') inLists.push(depth);
      } else if (t.kind === 'symbol' && t.text === ')') {
        if (inLists[inLists.length - 1] === depth) inLists.pop();
        depth--;
      } else if (t.kind === 'string' && UPPER_SNAKE.test(t.text) && inLists.length === 0) {
        const after = s.tokens[i + 1];
        const compared = (x: Token | undefined) =>
          x !== undefined && x.kind !== 'string' && COMPARISONS.has(x.text) && !(assigning && x.text === '=');
        if (!compared(before) && !(after?.kind === 'symbol' && COMPARISONS.has(after.text))) literals.push({ value: t.text, line: t.line });
      }
    });
  }
  return literals;
}
