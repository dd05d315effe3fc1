// The project's published JSON Schemas (draft 2020-12, in schemas/), imported as modules
// (formats/schemas/, generated from schemas/ by scripts/generate-schema-modules.ts) and compiled
// once with ajv when first asked. A value that passes is then read as its TypeScript type: that
// type has the schema's shape, which test/formats/schema-types.test.ts checks at compile time
// (formats/schema-shape.ts) for the proof, the log entry, the trust policy, freeze.json and study.json.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { SCHEMA_DOCUMENTS } from './schemas/index.ts';

const ajv = new Ajv2020({ allErrors: true, strict: true });
const compiled = new Map<string, ValidateFunction>();

export type SchemaName = keyof typeof SCHEMA_DOCUMENTS;

export function validator(name: SchemaName): ValidateFunction {
  let v = compiled.get(name);
  if (!v) {
    v = ajv.compile(SCHEMA_DOCUMENTS[name]);
    compiled.set(name, v);
  }
  return v;
}

export function describeErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${
    e.keyword === 'additionalProperties' ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})` : ''
  }`);
}

/** Returns the problems found, empty when the value is valid. */
export function schemaProblems(name: SchemaName, value: unknown): string[] {
  const v = validator(name);
  return v(value) ? [] : describeErrors(v.errors);
}
