// The example auditor's own material (test/fixtures/example-auditor/, made before any attack a test
// plays), as `prereg audit` / `check-anchors` flags: the audit trusts only these (SPEC §12.1).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freezeDigest, loadFreezeRecord } from '../../pipeline/study/freeze-record.ts';
import { studyLayout } from '../../pipeline/layout.ts';
import { exampleWorkingCopy, PROJECT_ROOT } from './cli.ts';

export const EXAMPLE_AUDITOR_DIR = join(PROJECT_ROOT, 'test/fixtures/example-auditor');
export const AUDITOR_TSA_ROOT = join(EXAMPLE_AUDITOR_DIR, 'TEST-ONLY-tsa-root.cert.pem');
export const AUDITOR_ISSUER_KEYS = join(EXAMPLE_AUDITOR_DIR, 'TEST-ONLY-issuer-keys.json');
/** The operator's identity key, as the operator published it (`audit --operator-key`). */
export const AUDITOR_OPERATOR_KEY = join(EXAMPLE_AUDITOR_DIR, 'TEST-ONLY-operator.pub.pem');

/** The freeze digest the committed example study published before it opened. */
export function sealedExampleFreezeDigest(): string {
  return readFileSync(join(EXAMPLE_AUDITOR_DIR, 'freeze-digest.txt'), 'utf8').trim();
}

/**
 * The freeze digest of the example copies the tests work on (copyExampleStudy): the working copy's,
 * made by the global setup before any test runs — published, for the tests' auditor, before any
 * attack a test plays.
 */
export function exampleFreezeDigest(): string {
  return publishedFreezeDigest(exampleWorkingCopy());
}

/**
 * The freeze digest a test's auditor saw published for the study at `root`: read when the test
 * says it was published (after a legitimate re-freeze of a scratch study, before any attack).
 */
export function publishedFreezeDigest(root: string): string {
  return freezeDigest(loadFreezeRecord(studyLayout(root).freeze));
}

/** The auditor's flags: its TSA root and issuer keys, and the freeze digest it expects. */
export function auditorFlags(expectFreeze: string = exampleFreezeDigest()): string[] {
  return ['--tsa-root', AUDITOR_TSA_ROOT, '--issuer-keys', AUDITOR_ISSUER_KEYS, '--expect-freeze', expectFreeze];
}
