// The committed TEST-ONLY PKI of the tests (scripts/make-test-pki.sh) and its signers. The TSA
// itself is the pipeline's TEST-ONLY one (pipeline/dev/tsa/pkijs-tsa.ts), which the rehearsal's
// `prereg dev tsa` runs too; re-exported here for the tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadTsaSigner, type TsaSigner } from '../../../pipeline/dev/tsa/pkijs-tsa.ts';

export * from '../../../pipeline/dev/tsa/pkijs-tsa.ts';

/** The committed TEST-ONLY PKI (scripts/make-test-pki.sh). */
export const TEST_PKI_DIR = fileURLToPath(new URL('../../fixtures/pki/', import.meta.url));
export type TestPkiName = 'tsa-root' | 'tsa' | 'tsa-no-eku' | 'unpinned-root' | 'unpinned-tsa';

export function testPkiPaths(name: TestPkiName): { cert: string; key: string } {
  return { cert: `${TEST_PKI_DIR}TEST-ONLY-${name}.cert.pem`, key: `${TEST_PKI_DIR}TEST-ONLY-${name}.key.pem` };
}

/** Load one of the committed TEST-ONLY signers. */
export async function loadTestSigner(name: TestPkiName): Promise<TsaSigner> {
  const paths = testPkiPaths(name);
  return loadTsaSigner(readFileSync(paths.cert, 'utf8'), readFileSync(paths.key, 'utf8'));
}
