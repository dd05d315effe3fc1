// Trust built from texts a program holds (the library's trustFromMemory) is the trust loadTrust
// reads from a directory: the same policy and files give the same material and the same verdicts
// on ArkForge's production proof; a named file that is missing, or one that does not decode, and a
// policy its schema rejects are refused as loadTrust refuses them.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTrust, parseJson, trustFromMemory, UNBOUNDED_WINDOW, verifyEvidence } from '../../pipeline/index.ts';
import { namedTrustFiles } from '../../pipeline/io/trust-files.ts';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';

const REAL = join(PROJECT_ROOT, 'test/fixtures/real/arkforge-production');
let dir: string;
beforeAll(async () => {
  // The trust a participant pins for ArkForge's proofs: FreeTSA, the Rekor log, ArkForge's published keys.
  dir = mkdtempSync(join(tmpdir(), 'prereg-trust-memory-'));
  for (const f of ['freetsa-cacert.pem', 'freetsa-tsa.crt', 'rekor-log.pub.pem']) cpSync(join(REAL, f), join(dir, f));
  writeFileSync(
    join(dir, 'policy.json'),
    JSON.stringify({
      format: 'prereg.trust/1',
      arkforge_keys: [],
      tsa_roots: ['freetsa-cacert.pem'],
      tsa_certs: ['freetsa-tsa.crt'],
      tlog_keys: [{ log_id: 'c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d', public_key_file: 'rekor-log.pub.pem' }],
      require_tsa_token: true,
      max_skew_seconds: 300,
      require_receipts: false,
    }),
  );
  const imported = await runCli(['trust', 'import-arkforge', join(REAL, 'published_keys.json'), '--trust', dir]);
  expect(imported.code, imported.stderr).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const policy = () => JSON.parse(readFileSync(join(dir, 'policy.json'), 'utf8')) as Record<string, unknown>;
/** Every file the policy names (import-arkforge added ArkForge's Rekor submitter key), by the policy's name for it. */
const files = (): Record<string, string> =>
  Object.fromEntries(namedTrustFiles(policy() as never).map((f) => [f, readFileSync(join(dir, f), 'utf8')]));
const proof = parseJson(readFileSync(join(REAL, 'proof_proveit_gel.json'), 'utf8'));

describe('trustFromMemory', () => {
  it('gives the material loadTrust reads from the directory, and the same verdict on a production proof', async () => {
    const fromDir = loadTrust(dir);
    const fromMemory = trustFromMemory(policy(), files());
    expect(fromMemory.dir).toBeNull();
    expect(fromMemory.material.inputs).toEqual(fromDir.material.inputs);
    const a = await verifyEvidence({ proof }, fromDir.material, UNBOUNDED_WINDOW);
    const b = await verifyEvidence({ proof }, fromMemory.material, UNBOUNDED_WINDOW);
    expect(b.status).toBe('VERIFIED');
    expect(b).toEqual(a);
  });

  it('refuses a policy naming a file it was not given (FILE_NOT_FOUND, the name said)', () => {
    const { 'freetsa-tsa.crt': _, ...rest } = files();
    expect(() => trustFromMemory(policy(), rest)).toThrow(
      expect.objectContaining({ code: 'FILE_NOT_FOUND', message: expect.stringContaining('"freetsa-tsa.crt"') }),
    );
  });

  it('refuses a policy its schema rejects (TRUST_POLICY_INVALID) and a pinned file that does not decode', () => {
    expect(() => trustFromMemory({ ...policy(), require_tsa_token: 'yes' }, files())).toThrow(
      expect.objectContaining({ code: 'TRUST_POLICY_INVALID' }),
    );
    expect(() =>
      trustFromMemory(policy(), { ...files(), 'freetsa-cacert.pem': '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' }),
    ).toThrow();
  });

  it('a verdict changes with the trust given: without the TSA certificate the production token does not verify', async () => {
    const p = policy();
    const r = await verifyEvidence({ proof }, trustFromMemory({ ...p, tsa_certs: [] }, files()).material, UNBOUNDED_WINDOW);
    expect(r.status).not.toBe('VERIFIED');
  });
});
