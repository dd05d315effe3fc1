// The example study's TEST-ONLY operator keys (test/fixtures/keys/) as `prereg run` / `emit`
// options: one list for the rebuild script, the bench and the tests.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const KEYS = fileURLToPath(new URL('../test/fixtures/keys/', import.meta.url));

export const EXAMPLE_OPERATOR_ARGS: readonly string[] = [
  '--operator-key',
  join(KEYS, 'TEST-ONLY-operator.key.pem'),
  '--cms-key',
  join(KEYS, 'TEST-ONLY-operator-cms.key.pem'),
  '--cms-cert',
  join(KEYS, 'TEST-ONLY-operator-cms.cert.pem'),
];
