// The schemas the code imports, and the validators it runs, are the published schemas': each module
// under pipeline/formats/schemas/ and pipeline/formats/validators/ is exactly what
// scripts/generate-schema-modules.ts writes from schemas/*.schema.json.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generatedModules, generatedValidators } from '../../scripts/generate-schema-modules.ts';
import { schemaProblems } from '../../pipeline/formats/schemas.ts';

const DIR = fileURLToPath(new URL('../../pipeline/formats/schemas/', import.meta.url));
const VALIDATORS = fileURLToPath(new URL('../../pipeline/formats/validators/', import.meta.url));

describe.each([
  ['schema modules', DIR, generatedModules],
  ['validator modules', VALIDATORS, generatedValidators],
] as const)('%s', (_, dir, generated) => {
  const expected = generated();

  it('are one per published schema, plus the index, and nothing else', () => {
    expect(readdirSync(dir).sort()).toEqual([...expected.keys()].sort());
  });

  it.each([...expected.keys()])("%s is the generator's output (run `npm run schemas:generate`)", (file) => {
    expect(readFileSync(`${dir}${file}`, 'utf8')).toBe(expected.get(file));
  });
});

describe('the generated validators', () => {
  it('report what ajv reports: a missing key, a pattern, a length counted in code points', () => {
    expect(schemaProblems('items', { item_id: 'a' })).toEqual(["/ must have required property 'question'"]);
    expect(schemaProblems('items', { item_id: '-a', question: 'q' })).toEqual([
      '/item_id must match pattern "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$"',
    ]);
    // 4,000 astral characters are 8,000 UTF-16 units and still within maxLength 4000.
    expect(schemaProblems('items', { item_id: 'a', question: '😀'.repeat(4000) })).toEqual([]);
    expect(schemaProblems('items', { item_id: 'a', question: '😀'.repeat(4001) })).toEqual([
      '/question must NOT have more than 4000 characters',
    ]);
  });
});
