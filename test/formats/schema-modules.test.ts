// The schemas the code imports are the published ones: each module under pipeline/formats/schemas/
// is exactly what scripts/generate-schema-modules.ts writes from schemas/*.schema.json.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generatedModules } from '../../scripts/generate-schema-modules.ts';

const DIR = fileURLToPath(new URL('../../pipeline/formats/schemas/', import.meta.url));

describe('schema modules', () => {
  const expected = generatedModules();

  it('are one per published schema, plus the index, and nothing else', () => {
    expect(readdirSync(DIR).sort()).toEqual([...expected.keys()].sort());
  });

  it.each([...expected.keys()])('%s is the generator\'s output (run `npm run schemas:generate`)', (file) => {
    expect(readFileSync(`${DIR}${file}`, 'utf8')).toBe(expected.get(file));
  });
});
