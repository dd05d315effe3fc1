// The `anchor --import` recipe of docs/operating.md, run as written (bash, real openssl,
// curl) against a local OpenSSL TSA over HTTP: the token it gets (SHA-512 imprint, as written;
// SHA-384 too) is accepted. The two usual mistakes (imprint = the digest itself, or a hash of its
// hex text) and a SHA-1 imprint are refused, storing nothing.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';
import { startTsaServer, type TsaServer } from '../support/tsa/http-tsa.ts';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

function recipe(name = 'anchor-import'): string {
  const doc = readFileSync(join(PROJECT_ROOT, 'docs/operating.md'), 'utf8');
  const m = new RegExp(`<!-- recipe:${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\`\`\`\\n<!-- /recipe -->`).exec(doc);
  if (!m) throw new Error(`docs/operating.md has no ${name} recipe block`);
  return m[1]!;
}

let base: string;
let study: string;
let tsa: TsaServer;
beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'prereg-recipe-'));
  study = join(base, 'study');
  const priv = join(base, 'private');
  tsa = await startTsaServer({ backend: 'openssl' });
  const now = Date.now();
  const init = await runCli([
    'init',
    study,
    '--private-dir',
    priv,
    '--opens-at',
    iso(now + DAY),
    '--closes-at',
    iso(now + 2 * DAY),
    '--tsa-root',
    join(PROJECT_ROOT, 'test/fixtures/pki/TEST-ONLY-tsa-root.cert.pem'),
    '--seller',
    'retrieval.example',
    '--system',
    'sys-a=fp-sys-a',
  ]);
  expect(init.code, init.stderr).toBe(0);
  const freeze = await runCli([
    'freeze',
    '--root',
    study,
    '--answer-key',
    join(priv, 'answer-key.jsonl'),
    '--secret-file',
    join(priv, 'answer-key.secret'),
  ]);
  expect(freeze.code, freeze.stderr).toBe(0);
});
afterAll(async () => {
  await tsa?.close();
  rmSync(base, { recursive: true, force: true });
});

/**
 * Runs `script` with bash in a fresh directory, `prereg` being this checkout's CLI on the study.
 * Asynchronously: the TSA answering curl runs in this process.
 */
async function bash(script: string, witness: string, env: Record<string, string> = {}): Promise<{ code: number; output: string }> {
  const work = mkdtempSync(join(base, 'work-'));
  const prelude = `set -euo pipefail\nprereg() { node ${JSON.stringify(join(PROJECT_ROOT, 'bin/prereg.mjs'))} "$@" --root ${JSON.stringify(study)}; }\n`;
  try {
    const { stdout, stderr } = await promisify(execFile)('bash', ['-c', prelude + script], {
      cwd: work,
      env: { ...process.env, TSA_URL: tsa.url, WITNESS: witness, CI: 'true', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { code: 0, output: `${stdout}${stderr}` };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, output: `${e.stdout}${e.stderr}` };
  }
}

describe('docs/operating.md: anchor --import with openssl ts -query', () => {
  it('the recipe as written gives a token that anchor stores and check-anchors accepts', async () => {
    const r = await bash(recipe(), 'recipe-tsa');
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('imported recipe-tsa');
    const check = await runCli(['check-anchors', '--root', study, '--json']);
    expect([check.code, check.json.reason_codes]).toEqual([0, []]);
    expect(check.json.witnesses.map((w: { witness: string; ok: boolean }) => [w.witness, w.ok])).toEqual([['recipe-tsa', true]]);

    // The stored token checks with OpenSSL alone, over the same 32 bytes (the verify recipe).
    const pki = join(PROJECT_ROOT, 'test/fixtures/pki');
    const env = {
      ANCHOR: join(study, 'preregistration/anchors/recipe-tsa.tsr'),
      TSA_ROOT: join(pki, 'TEST-ONLY-tsa-root.cert.pem'),
      TSA_CERT: join(pki, 'TEST-ONLY-tsa.cert.pem'),
    };
    const digestBytes = `printf '%s' ${check.json.freeze_digest} | xxd -r -p > freeze-digest.bin\n`;
    const verified = await bash(digestBytes + recipe('anchor-verify'), 'recipe-tsa', env);
    expect(verified.code, verified.output).toBe(0);
    expect(verified.output).toContain('Verification: OK');
    const other = await bash(
      `printf '%s' ${'0'.repeat(64)} | xxd -r -p > freeze-digest.bin\n${recipe('anchor-verify')}`,
      'recipe-tsa',
      env,
    );
    expect(other.code).not.toBe(0);
  });

  it('the recipe asks for a SHA-512 imprint, and the stored token is one: SHA-384/512 imprints over the 32 bytes are anchors like SHA-256 ones', async () => {
    expect(recipe()).toMatch(/^openssl ts -query -data freeze-digest\.bin -sha512 -cert -out freeze\.tsq$/m);
    const token = readFileSync(join(study, 'preregistration/anchors/recipe-tsa.tsr'));
    const check = await runCli(['check-anchors', '--root', study, '--json']);
    expect(check.json.witnesses.map((w: { witness: string; ok: boolean }) => [w.witness, w.ok])).toEqual([['recipe-tsa', true]]);
    expect(token.includes(Buffer.from('0609608648016503040203', 'hex'))).toBe(true); // id-sha512 in the imprint
    // And with -sha384: the same recipe, another witness.
    const r = await bash(recipe().replace('-sha512', '-sha384'), 'recipe-sha384');
    expect(r.code, r.output).toBe(0);
    const both = await runCli(['check-anchors', '--root', study, '--json']);
    expect(both.json.witnesses.map((w: { witness: string; ok: boolean }) => [w.witness, w.ok]).sort()).toEqual([
      ['recipe-sha384', true],
      ['recipe-tsa', true],
    ]);
  });

  it('a SHA-1 query (-sha1, answered by a TSA that still accepts it) is refused: TSA_HASH_WEAK, nothing stored', async () => {
    const sha1 = await startTsaServer({ backend: 'openssl', openssl: { digests: ['sha1', 'sha256'] } });
    try {
      const r = await bash(recipe().replace('-sha512', '-sha1'), 'sha1-tsa', { TSA_URL: sha1.url });
      expect(r.code).toBe(1);
      expect(r.output).toContain('TSA_HASH_WEAK');
      expect(existsSync(join(study, 'preregistration/anchors/sha1-tsa.tsr'))).toBe(false);
    } finally {
      await sha1.close();
    }
  });

  for (const [mistake, step2, step3] of [
    ['the digest itself as the imprint (-digest)', '', 'openssl ts -query -digest "$DIGEST" -sha256 -cert -out freeze.tsq'],
    [
      'SHA-256 of the hex text',
      `printf '%s' "$DIGEST" > freeze-digest.bin`,
      'openssl ts -query -data freeze-digest.bin -sha256 -cert -out freeze.tsq',
    ],
  ] as const) {
    it(`refuses a token over ${mistake}: TSA_IMPRINT_MISMATCH, nothing stored`, async () => {
      const lines = recipe().split('\n');
      const script = lines.map((l) => (l.startsWith('printf ') ? step2 : l.startsWith('openssl ts -query') ? step3 : l)).join('\n');
      const anchors = () =>
        existsSync(join(study, 'preregistration/anchors')) ? readdirSync(join(study, 'preregistration/anchors')).sort() : [];
      const before = anchors();
      const r = await bash(script, 'wrong-tsa');
      expect(r.code).toBe(1);
      expect(r.output).toContain('ANCHOR_INVALID');
      expect(r.output).toContain('TSA_IMPRINT_MISMATCH');
      expect(anchors()).toEqual(before);
    });
  }
});
