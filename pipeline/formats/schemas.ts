// The project's published JSON Schemas (draft 2020-12, in schemas/), checked by validators that
// ajv compiled ahead of time (formats/validators/, generated from schemas/ with the schema modules
// of formats/schemas/ by scripts/generate-schema-modules.ts): no command loads ajv's compiler or
// compiles a schema. A value that passes is then read as its TypeScript type: that type has the
// schema's shape, which test/formats/schema-types.test.ts checks at compile time
// (formats/schema-shape.ts) for every schema: the proof, the transparency-log entry, the trust
// policy, freeze.json, study.json, the intake request, the seal, the deviation entry, the corpus
// items, the answer key, the submission line, the commitment line and the timeline's entries.
import type { ErrorObject } from 'ajv';
import type { SCHEMA_DOCUMENTS } from './schemas/index.ts';
import type { CompiledValidator } from './compiled-validator.ts';
import { VALIDATORS } from './validators/index.ts';

export type SchemaName = keyof typeof SCHEMA_DOCUMENTS;

export function validator(name: SchemaName): CompiledValidator {
  return VALIDATORS[name]!;
}

/** How many of ajv's problems a message lists; the rest are counted (a line of 50,000 unknown keys stays short). */
export const MAX_LISTED_PROBLEMS = 20;
const MAX_SHOWN_NAME = 80;

/** A name from the input as shown in a message: bounded, and lone surrogates written as escapes. */
function shownName(s: string): string {
  const cut = s.length > MAX_SHOWN_NAME ? `${s.slice(0, MAX_SHOWN_NAME)}…` : s;
  return cut.replace(/[\ud800-\udfff]/g, (c, i: number, all: string) => {
    const code = c.charCodeAt(0);
    const paired = code <= 0xdbff ? /[\udc00-\udfff]/.test(all[i + 1] ?? '') : /[\ud800-\udbff]/.test(all[i - 1] ?? '');
    return paired ? c : `\\u${code.toString(16)}`;
  });
}

export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  const all = errors ?? [];
  const listed = all
    .slice(0, MAX_LISTED_PROBLEMS)
    .map(
      (e) =>
        `${shownName(e.instancePath || '/')} ${e.message ?? 'is invalid'}${
          e.keyword === 'additionalProperties'
            ? ` (${shownName(String((e.params as { additionalProperty?: string }).additionalProperty))})`
            : ''
        }`,
    );
  if (all.length > MAX_LISTED_PROBLEMS) listed.push(`… and ${all.length - MAX_LISTED_PROBLEMS} more problems`);
  return listed;
}

/** Returns the problems found, empty when the value is valid. */
export function schemaProblems(name: SchemaName, value: unknown): string[] {
  const v = validator(name);
  return v(value) ? [] : describeErrors(v.errors);
}
