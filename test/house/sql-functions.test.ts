// Every SQL function the product registers with DuckDB answers NULL itself (issue 33, item 8):
// DuckDB hands a function whole chunks, and the dictionaries of compressed columns, holding NULLs,
// and a rule that assumed otherwise stopped every run. store/shown-sql.ts registerTextFunction
// is the one place that calls registerScalarFunction (or DuckDBScalarFunction.create), and it
// answers a NULL without calling the rule; test/emit/null-text.test.ts plays the chunks.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PIPELINE_DIR, repoRelative, sourceFiles, withoutComments } from '../support/sources.ts';

const REGISTRATION = /\b(registerScalarFunction|DuckDBScalarFunction\.create|registerTableFunction|DuckDBTableFunction\.create)\s*\(/g;

function registrations(): string[] {
  const found: string[] = [];
  for (const abs of sourceFiles(PIPELINE_DIR)) {
    for (const m of withoutComments(readFileSync(abs, 'utf8')).matchAll(REGISTRATION)) found.push(`${repoRelative(abs)} ${m[1]}`);
  }
  return found;
}

describe('SQL functions the product registers', () => {
  it('are registered in one place, the one that answers NULL', () => {
    expect(registrations()).toEqual([
      'pipeline/store/sql-functions.ts registerScalarFunction',
      'pipeline/store/sql-functions.ts DuckDBScalarFunction.create',
    ]);
    const source = withoutComments(readFileSync(`${PIPELINE_DIR}/store/sql-functions.ts`, 'utf8'));
    const body = source.slice(source.indexOf('export function registerSqlFunction'));
    expect(body).toContain('registerScalarFunction');
    expect(body).toMatch(/if \(args\.some\(\(a\) => a === null\)\) \{\s*output\.setItem\(row, null\);\s*continue;/);
  });
});
