// The project's published JSON Schemas (draft 2020-12, in schemas/), compiled once with ajv.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const SCHEMA_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

const ajv = new Ajv2020({ allErrors: true, strict: true });
const compiled = new Map<string, ValidateFunction>();

export type SchemaName = 'study' | 'freeze' | 'items' | 'answer-key' | 'trust-policy' | 'proof' | 'submission' | 'tlog-entry' | 'timeline' | 'commitment';

export function validator(name: SchemaName): ValidateFunction {
  let v = compiled.get(name);
  if (!v) {
    v = ajv.compile(JSON.parse(readFileSync(`${SCHEMA_DIR}${name}.schema.json`, 'utf8')));
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
