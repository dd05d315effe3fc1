// Each fact in one place (README, "Layout"): only pipeline/store/ runs SQL and reads its results
// (through the typed API of store/query.ts and store/cells.ts, so no caller indexes getRows() and
// casts a cell); a status comes from a check catalogue (evidence/check-catalogue.ts), never from a
// code's name prefix, nor a code's exit from a set of codes of one's own; check_* columns come
// from the catalogues, never written out by hand. Read
// from the sources, so a new copy fails here rather than in review.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PIPELINE_DIR, repoRelative, sourceFiles, withoutComments } from '../support/sources.ts';

/**
 * Known SQL outside store/, each with what removes it. The test fails too when an entry is no
 * longer needed, so the list only shrinks.
 */
const KNOWN_SQL: ReadonlyArray<{ file: string; call: string; why: string }> = [];

/** Every DuckDB call or value import in `text`: the call's name, or 'value import'. */
function sqlCalls(text: string): string[] {
  const code = withoutComments(text);
  const calls: string[] = [];
  for (const m of code.matchAll(
    /\.(runAndReadAll|runAndRead|streamAndReadAll|streamAndRead|stream|getRows\w*|getRowObjects\w*|createAppender|registerScalarFunction)\s*\(/g,
  ))
    calls.push(m[1]!);
  for (const m of code.matchAll(/\b(?:connection|c|db\.connection|store\.connection)\.(run)\s*\(/g)) calls.push(m[1]!);
  for (const m of code.matchAll(/\bimport\s+(type\s+)?\{([^}]*)\}\s*from\s*['"]@duckdb\/node-api['"]/g)) {
    const names = m[2]!
      .split(',')
      .map((n) => n.trim())
      .filter((n) => n !== '');
    if (m[1] === undefined && names.some((n) => !n.startsWith('type '))) calls.push('value import');
  }
  return [...new Set(calls)];
}

/** A status decided by a code's family prefix (`startsWith('CHAIN_')`), not by a catalogue. */
const PREFIX_TEST = /\.startsWith\(\s*['"`][A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_['"`]\s*\)/g;
/** A set of reason codes kept beside the catalogues (as doctor's CONFLICT_CODES was): a code's exit is in reasons.ts, a check's status in its check catalogue. */
const CODE_SET = /\b(\w+)\s*:\s*(?:Readonly)?Set<\w*ReasonCode>\s*=/g;
/** Known code sets, each with what removes it; the list only shrinks. */
const KNOWN_CODE_SETS: ReadonlyArray<{ file: string; name: string; why: string }> = [];

/** A check_* column or cell written by hand (`'check_tsa'`, `check_tsa: c.tsa`). */
const CHECK_COLUMN = /['"`](check_[a-z_]+)|\b(check_[a-z_]+)\s*:/g;

type Sources = ReadonlyMap<string, string>;

function violations(sources: Sources, known = KNOWN_SQL): string[] {
  const found: string[] = [];
  const used = new Set<string>();
  for (const [file, text] of sources) {
    if (!file.startsWith('pipeline/store/')) {
      for (const call of sqlCalls(text)) {
        if (known.some((k) => k.file === file && k.call === call)) used.add(`${file} ${call}`);
        else found.push(`${file} runs SQL or reads a result itself (${call}): only pipeline/store/ may; use store/query.ts`);
      }
    }
    for (const m of withoutComments(text).matchAll(PREFIX_TEST))
      found.push(`${file} decides by a code's name prefix (${m[0]}): read the status from the check catalogue`);
    for (const m of withoutComments(text).matchAll(CODE_SET)) {
      if (KNOWN_CODE_SETS.some((k) => k.file === file && k.name === m[1])) used.add(`${file} ${m[1]}`);
      else found.push(`${file} keeps its own set of codes (${m[1]}): read the exit from reasons.ts or the status from a check catalogue`);
    }
    for (const m of withoutComments(text).matchAll(CHECK_COLUMN))
      found.push(`${file} writes a check column by hand (${m[1] ?? m[2]}): derive it from the check catalogue (checkColumns, checkCells)`);
  }
  for (const k of known) {
    if (!used.has(`${k.file} ${k.call}`)) found.push(`KNOWN_SQL lists ${k.file} (${k.call}), which no longer needs it: remove the entry`);
  }
  for (const k of KNOWN_CODE_SETS) {
    if (!used.has(`${k.file} ${k.name}`))
      found.push(`KNOWN_CODE_SETS lists ${k.file} (${k.name}), which no longer exists: remove the entry`);
  }
  return found;
}

describe('each fact in one place', () => {
  const sources: Sources = new Map(sourceFiles(PIPELINE_DIR).map((abs) => [repoRelative(abs), readFileSync(abs, 'utf8')]));
  const withText = (file: string, more: string): Sources => new Map([...sources, [file, `${sources.get(file) ?? ''}\n${more}`]]);

  it('reads every pipeline source, store/ included', () => {
    expect(sources.size).toBeGreaterThan(100);
    expect(sqlCalls(sources.get('pipeline/store/query.ts')!)).toContain('runAndReadAll');
  });

  it('only store/ runs SQL; no status from a name prefix, no set of codes of its own; no check column by hand', () => {
    expect(violations(sources)).toEqual([]);
  });

  // The rules themselves, on the real sources with one bad line added each time.
  it('fails when a file outside store/ decodes a result itself, runs a statement or imports a DuckDB value', () => {
    expect(
      violations(withText('pipeline/emit/tables.ts', 'const n = (await connection.runAndReadAll(sql)).getRows()[0]![0] as bigint;')),
    ).toEqual([
      'pipeline/emit/tables.ts runs SQL or reads a result itself (runAndReadAll): only pipeline/store/ may; use store/query.ts',
      'pipeline/emit/tables.ts runs SQL or reads a result itself (getRows): only pipeline/store/ may; use store/query.ts',
    ]);
    expect(violations(withText('pipeline/classify/base-tables.ts', 'await connection.run(SET_ATTEMPTS_PER_ITEM, [3]);'))).toEqual([
      'pipeline/classify/base-tables.ts runs SQL or reads a result itself (run): only pipeline/store/ may; use store/query.ts',
    ]);
    expect(
      violations(withText('pipeline/audit/trust.ts', "import { DuckDBTypeId, type DuckDBConnection } from '@duckdb/node-api';")),
    ).toEqual(['pipeline/audit/trust.ts runs SQL or reads a result itself (value import): only pipeline/store/ may; use store/query.ts']);
    // A type import and another object's run() are not SQL.
    expect(
      violations(withText('pipeline/audit/trust.ts', "import type { DuckDBConnection } from '@duckdb/node-api';\nawait command.run(ctx);")),
    ).toEqual([]);
  });

  it("fails on a status from a code's name prefix and on a check column written by hand", () => {
    expect(
      violations(withText('pipeline/participant/commitment.ts', "const broken = codes.filter((c) => c.startsWith('CHAIN_'));")),
    ).toEqual([
      "pipeline/participant/commitment.ts decides by a code's name prefix (.startsWith('CHAIN_')): read the status from the check catalogue",
    ]);
    expect(
      violations(withText('pipeline/verify/rows.ts', "const row = { check_tsa: c.tsa };\nconst COLUMNS = ['check_structure'];")),
    ).toEqual([
      'pipeline/verify/rows.ts writes a check column by hand (check_tsa): derive it from the check catalogue (checkColumns, checkCells)',
      'pipeline/verify/rows.ts writes a check column by hand (check_structure): derive it from the check catalogue (checkColumns, checkCells)',
    ]);
  });

  it("fails on a set of codes kept beside the catalogues, as doctor's CONFLICT_CODES was", () => {
    expect(
      violations(withText('pipeline/doctor/readiness.ts', "const CONFLICT_CODES: ReadonlySet<ReasonCode> = new Set(['CORPUS_DRIFT']);")),
    ).toEqual([
      'pipeline/doctor/readiness.ts keeps its own set of codes (CONFLICT_CODES): read the exit from reasons.ts or the status from a check catalogue',
    ]);
    // A set of a narrower code type (a catalogue's own union) is the same copy.
    expect(
      violations(
        withText(
          'pipeline/evidence/tlog/keys.ts',
          "const GAPS: ReadonlySet<TsaReasonCode> = new Set(['TSA_CHAIN_UNTRUSTED']);\nconst MORE: Set<ReasonCode> = new Set();",
        ),
      ),
    ).toEqual([
      'pipeline/evidence/tlog/keys.ts keeps its own set of codes (GAPS): read the exit from reasons.ts or the status from a check catalogue',
      'pipeline/evidence/tlog/keys.ts keeps its own set of codes (MORE): read the exit from reasons.ts or the status from a check catalogue',
    ]);
  });

  it('fails when a known exception is no longer needed', () => {
    expect(violations(sources, [...KNOWN_SQL, { file: 'pipeline/audit/trust.ts', call: 'getRows', why: 'test' }])).toEqual([
      'KNOWN_SQL lists pipeline/audit/trust.ts (getRows), which no longer needs it: remove the entry',
    ]);
  });
});
