// The shape of a validator compiled ahead of time (pipeline/formats/validators/, ajv's standalone
// code): called on a value, true when it passes, its problems on `.errors` otherwise.
import type { ErrorObject } from 'ajv';

export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}
