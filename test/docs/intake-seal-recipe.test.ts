// The `openssl ts -verify` recipe of docs/intake.md, run as written (bash, python3, xxd, real
// openssl) on a study sealed through the CLI: OpenSSL verifies the seal's token over the seal
// digest it recomputes itself; after seal.json is edited, the same recipe fails.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/cli.ts';
import { AFTER_CLOSE, intakeFixture, intakeWith, sealWith, signAs, TSA_ROOT_PEM } from '../support/intake-study.ts';

const run = promisify(execFile);
function recipe(): string {
  const doc = readFileSync(join(PROJECT_ROOT, 'docs/intake.md'), 'utf8');
  const m = /<!-- recipe:seal-verify -->\n```sh\n([\s\S]*?)```\n<!-- \/recipe -->/.exec(doc);
  if (!m) throw new Error('docs/intake.md has no seal-verify recipe block');
  return m[1]!;
}

const fixture = intakeFixture();
let root: string;
beforeAll(async () => {
  const s = fixture.built.copy();
  const file = join(s.staging, 'sys-honest.jsonl');
  expect((await signAs(s, file, s.honest)).code).toBe(0);
  expect((await intakeWith(fixture.tsa, s, `${file}.intake.json`)).code).toBe(0);
  fixture.tsa.at(AFTER_CLOSE);
  expect((await sealWith(fixture.tsa, s)).code).toBe(0);
  root = s.root;
}, 120_000);

const env = () => ({
  ...process.env,
  WITNESS: 'local',
  TSA_ROOT: TSA_ROOT_PEM,
  TSA_CERT: join(PROJECT_ROOT, 'test/fixtures/pki/TEST-ONLY-tsa.cert.pem'),
});

describe('docs/intake.md: checking a seal token with OpenSSL', () => {
  it('verifies, and shows the genTime', async () => {
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', recipe()], { cwd: root, env: env() });
    expect(stdout).toContain('Verification: OK');
    expect(stdout).toContain('Time stamp: Nov 16 00:10:00 2026 GMT');
  });

  it('fails over an edited seal.json', async () => {
    const path = join(root, 'inputs/seal.json');
    const original = readFileSync(path, 'utf8');
    writeFileSync(path, original.replace('"entries": 1', '"entries": 0'));
    try {
      await expect(run('bash', ['-euo', 'pipefail', '-c', recipe()], { cwd: root, env: env() })).rejects.toThrow(
        /Verification: FAILED|message imprint mismatch/,
      );
    } finally {
      writeFileSync(path, original);
    }
  });
});
