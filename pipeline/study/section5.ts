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

/**
 * Section 5 is the level-2 heading whose title starts with `5` (`## 5. Analysis plan`) up to the
 * next level-2 heading. Headings inside fenced blocks do not count. Returns null when absent.
 */
/** Section 5 of the study's preregistration/PREREGISTRATION.md, read from disk; null when it has none. */
export function readSection5(layout: Pick<StudyLayout, 'plan'>): Section5 | null {
  return extractSection5(readText(layout.plan));
}

export function extractSection5(markdown: string): Section5 | null {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let start = -1;
  let end = lines.length;
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fenceMatch = /^(`{3,}|~{3,})/.exec(line);
    if (fenceMatch) {
      if (fence === null) fence = fenceMatch[1]!;
      else if (line.startsWith(fence) && line.slice(fence.length).trim() === '') fence = null;
      continue;
    }
    if (fence !== null || !/^## (?!#)/.test(line)) continue;
    if (start === -1 && /^## +5(?![0-9])/.test(line)) start = i;
    else if (start !== -1) {
      end = i;
      break;
    }
  }
  if (start === -1) return null;
  const sectionLines = lines.slice(start, end);
  // A section that ends the file keeps its final newline exactly as written.
  const text = sectionLines.join('\n') + (end < lines.length ? '\n' : '');
  return { text, sha256: sha256Hex(text), sqlBlocks: sqlBlocksOf(sectionLines, start) };
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
        for (const lit of m[1]!.matchAll(/'((?:[^']|'')*)'/g)) named.push({ system_id: lit[1]!.replaceAll("''", "'"), line: block.line + i });
      }
    });
  }
  return named;
}

/**
 * The identifiers section 5's SQL names, outside comments and string literals (a double-quoted
 * identifier unquoted), lower-cased, each with its line in PREREGISTRATION.md: what the freeze's
 * static rule check reads (SPEC §13.1).
 */
export function section5Identifiers(section5: Pick<Section5, 'sqlBlocks'>): Array<{ name: string; line: number }> {
  const names: Array<{ name: string; line: number }> = [];
  for (const block of section5.sqlBlocks) {
    let line = block.line;
    // Comments, string literals, quoted identifiers and bare words, in one left-to-right scan.
    for (const m of block.sql.matchAll(/--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)|'(?:[^']|'')*'?|"((?:[^"]|"")*)"?|([A-Za-z_][A-Za-z0-9_$]*)|\n/g)) {
      if (m[0] === '\n') line++;
      else {
        const name = m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2];
        if (name !== undefined) names.push({ name: name.toLowerCase(), line });
        line += m[0].split('\n').length - 1;
      }
    }
  }
  return names;
}
