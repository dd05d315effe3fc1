// docs/tables.md is the public contract section 5 is written against: every declared table
// (pipeline/store/table-declarations.ts) and every one of its columns is documented there, and a
// column the page lists in a table of columns exists. A column added to the declarations without
// its line in the page fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TABLES } from '../../pipeline/store/table-declarations.ts';
import { PROJECT_ROOT } from '../support/cli.ts';

const PAGE = readFileSync(join(PROJECT_ROOT, 'docs/tables.md'), 'utf8');

type Declared = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** Where the page documents a table: the text under its `### \`name\`` heading, or its row in a `| table | columns | what |` list. */
interface TableDoc {
  /** Every `name` the documentation writes (ranges `a` … `b` left as written). */
  text: string;
  /** The cells that list columns and nothing else (a column table's first cells, a list row's columns cell): each name there must be a column. */
  listed: string[];
}

const cells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((c) => c.trim());

function tableDocs(page: string): Map<string, TableDoc> {
  const docs = new Map<string, TableDoc>();
  let section: TableDoc | null = null;
  let header: string[] | null = null;
  let previous = '';
  for (const line of page.split('\n')) {
    const heading = /^#{2,4} (.*)$/.exec(line);
    if (heading) {
      const name = /^`([a-z_]+)`/.exec(heading[1]!)?.[1];
      section = name === undefined ? null : { text: '', listed: [] };
      if (name !== undefined) docs.set(name, section!);
    } else if (line.startsWith('|')) {
      if (!previous.startsWith('|')) header = cells(line);
      else if (!/^\|\s*-/.test(line) && header !== null) {
        const row = cells(line);
        if (header[0] === 'table') docs.set(row[0]!.replace(/`/g, ''), { text: row[1]!, listed: [row[1]!.replace(/\([^()]*\)/g, '')] });
        else if (section !== null && header[0] === 'column') section.listed.push(row[0]!);
      }
    }
    if (section !== null) section.text += `${line}\n`;
    previous = line;
  }
  return docs;
}

/** The column names a text writes, a range `a` … `b` expanded by the declared order. */
function namesIn(text: string, order: readonly string[]): { names: Set<string>; problems: string[] } {
  const names = new Set<string>();
  const problems: string[] = [];
  for (const [, from, to] of text.matchAll(/`([a-z_][a-z0-9_]*)`\s*…\s*`([a-z_][a-z0-9_]*)`/g)) {
    const [i, j] = [order.indexOf(from!), order.indexOf(to!)];
    if (i < 0 || j < i) problems.push(`the range ${from} … ${to} is not a run of declared columns`);
    else for (const c of order.slice(i, j + 1)) names.add(c);
  }
  for (const [, name] of text.matchAll(/`([a-z_][a-z0-9_]*)`/g)) names.add(name!);
  return { names, problems };
}

/** Where docs/tables.md and the declarations disagree, one line each (empty: every table and column is documented). */
function pageProblems(page: string, declared: Declared = TABLES): string[] {
  const docs = tableDocs(page);
  const problems: string[] = [];
  for (const [table, columns] of Object.entries(declared)) {
    const doc = docs.get(table);
    if (doc === undefined) {
      problems.push(`${table} is declared but docs/tables.md has no heading or row for it`);
      continue;
    }
    const order = Object.keys(columns);
    const written = namesIn(doc.text, order);
    problems.push(...written.problems.map((p) => `${table}: ${p}`));
    for (const c of order) if (!written.names.has(c)) problems.push(`${table}.${c} is declared but not documented`);
    for (const cell of doc.listed) {
      for (const c of namesIn(cell, order).names) if (!order.includes(c)) problems.push(`${table}.${c} is documented but not declared`);
    }
  }
  for (const table of docs.keys()) if (!(table in declared)) problems.push(`docs/tables.md documents ${table}, which is not declared`);
  return problems;
}

describe('docs/tables.md', () => {
  it('documents every declared table and column, and lists no column that is not declared', () => {
    expect(pageProblems(PAGE)).toEqual([]);
  });

  it('fails on a column added without its line, a line without its column, a table left out and a broken range', () => {
    const { seller_policy: _dropped, ...rest } = TABLES;
    const declared = { ...rest, records: { ...TABLES.records, config_digest: 'VARCHAR' }, phantom: { x: 'VARCHAR' } };
    expect(pageProblems(PAGE, declared)).toEqual([
      'records.config_digest is declared but not documented',
      'phantom is declared but docs/tables.md has no heading or row for it',
      'docs/tables.md documents seller_policy, which is not declared',
    ]);
    // A line for a column that does not exist, in a table of columns and in a list row.
    const extraLine = PAGE.replace('| `has_receipts` |', '| `has_evidence` | BOOLEAN | … |\n| `has_receipts` |').replace(
      '| `vocabulary` | `ref` |',
      '| `vocabulary` | `ref`, `lang` |',
    );
    expect(pageProblems(extraLine)).toEqual([
      'records.has_evidence is documented but not declared',
      'vocabulary.lang is documented but not declared',
    ]);
    // A range whose end is not a column: the columns it stood for are no longer documented.
    const broken = PAGE.replace('`check_structure` … `check_time`', '`check_structure` … `check_times`');
    expect(pageProblems(broken)).toEqual(
      expect.arrayContaining([
        'proof_checks: the range check_structure … check_times is not a run of declared columns',
        'proof_checks.check_request_hash is declared but not documented',
      ]),
    );
  });
});
