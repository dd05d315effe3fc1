// A trust directory for tests that pins the TEST-ONLY log key of the in-test log (test-log.ts)
// and the key the test issuer submits its entries with: the committed example trust directory,
// plus tlog/TEST-ONLY-tlog.pub.pem with its tlog_keys entry and tlog/TEST-ONLY-arkforge-2026.pub.pem
// with its tlog_submitter_keys entry (the test issuer logs with its Ed25519 key; ArkForge's real
// entries are signed by ECDSA P-256 "rekor" keys, see test/evidence/real-witnesses.test.ts). The
// committed example itself pins neither (pinning one there would need a re-freeze of the example
// study); a test that needs a pinned log builds one of these in a scratch place.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TrustPolicy } from '../../../pipeline/formats/trust-policy.ts';
import { testKeyPem, TestLog } from './test-log.ts';

/** The window the log key is pinned for: the example study's year. */
export const TEST_LOG_WINDOW = { valid_from: '2026-01-01T00:00:00Z', valid_until: '2027-01-01T00:00:00Z' } as const;
export const TEST_LOG_KEY_FILE = 'tlog/TEST-ONLY-tlog.pub.pem';
export const TEST_SUBMITTER_KEY_FILE = 'tlog/TEST-ONLY-arkforge-2026.pub.pem';

/** The policy's tlog_keys entry of the TEST-ONLY log key. */
export function testLogKeyPolicy(): NonNullable<TrustPolicy['tlog_keys']>[number] {
  return { log_id: TestLog.withTestKey().logId, public_key_file: TEST_LOG_KEY_FILE, ...TEST_LOG_WINDOW };
}

/** The policy's tlog_submitter_keys entry of the test issuer's key (TEST-ONLY-arkforge-2026), for the same window. */
export function testSubmitterKeyPolicy(): NonNullable<TrustPolicy['tlog_submitter_keys']>[number] {
  return { key_id: 'TEST-ONLY-arkforge-2026', public_key_file: TEST_SUBMITTER_KEY_FILE, ...TEST_LOG_WINDOW };
}

/** Adds the TEST-ONLY log key and the test issuer's submitter key to the trust directory `trustDir` (its policy.json rewritten). */
export function pinTestLog(trustDir: string): void {
  mkdirSync(join(trustDir, 'tlog'), { recursive: true });
  writeFileSync(join(trustDir, TEST_LOG_KEY_FILE), testKeyPem('TEST-ONLY-tlog.pub.pem'));
  writeFileSync(join(trustDir, TEST_SUBMITTER_KEY_FILE), testKeyPem('TEST-ONLY-arkforge-2026.pub.pem'));
  const file = join(trustDir, 'policy.json');
  const policy = JSON.parse(readFileSync(file, 'utf8')) as TrustPolicy;
  policy.tlog_keys = [testLogKeyPolicy()];
  policy.tlog_submitter_keys = [testSubmitterKeyPolicy()];
  writeFileSync(file, `${JSON.stringify(policy, null, 2)}\n`);
}

/** A copy of the example trust directory `from` at `to`, pinning the TEST-ONLY log key and submitter key. */
export function trustDirPinningTestLog(from: string, to: string): string {
  cpSync(from, to, { recursive: true });
  pinTestLog(to);
  return to;
}
