// The worked example of docs/participating.md, run as written (bash, the CLI as `prereg` on PATH)
// in a directory that holds no study: it needs only what the package ships (docs/examples/
// participating/, found through `prereg docs`), and those files are the vendored real ones.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/cli.ts';

const run = promisify(execFile);
const EXAMPLE = join(PROJECT_ROOT, 'docs/examples/participating');
const REAL = join(PROJECT_ROOT, 'test/fixtures/real/arkforge-production');
const scratch = mkdtempSync(join(tmpdir(), 'prereg-participating-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function recipe(): string {
  const doc = readFileSync(join(PROJECT_ROOT, 'docs/participating.md'), 'utf8');
  const m = /<!-- recipe:worked-example -->\n```sh\n([\s\S]*?)```\n<!-- \/recipe -->/.exec(doc);
  if (!m) throw new Error('docs/participating.md has no worked-example recipe block');
  return m[1]!;
}

describe('docs/participating.md, the worked example', () => {
  it('ships the vendored real proofs and certificates unchanged', () => {
    for (const [shipped, vendored] of [
      ['proof_2026_07.json', 'proof_2026_07.json'],
      ['proof_proveit_gel.json', 'proof_proveit_gel.json'],
      ['trust/freetsa-cacert.pem', 'freetsa-cacert.pem'],
      ['trust/freetsa-tsa.crt', 'freetsa-tsa.crt'],
      ['trust/rekor-log.pub.pem', 'rekor-log.pub.pem'],
    ])
      expect(readFileSync(join(EXAMPLE, shipped!)).equals(readFileSync(join(REAL, vendored!))), shipped).toBe(true);
  });

  it('runs as written with nothing but the package: UNTRUSTED for lack of a preimage only, then VERIFIED', async () => {
    const bin = join(scratch, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'prereg'), `#!/bin/sh\nexec "${process.execPath}" "${join(PROJECT_ROOT, 'bin/prereg.mjs')}" "$@"\n`);
    chmodSync(join(bin, 'prereg'), 0o755);
    const here = join(scratch, 'elsewhere');
    mkdirSync(here);
    const r = await run('bash', ['-euo', 'pipefail', '-c', recipe()], {
      cwd: here,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    expect(r.stdout).toContain('validate: OK, every line would be accepted');
    expect(r.stdout).toMatch(/real\.jsonl:1 evidence\[0\]: evidence UNTRUSTED PROOF_IDENTITY_UNANCHORED PROOF_PREIMAGE_REDACTED\n/);
    expect(r.stdout).toMatch(/proof_proveit_gel\.json: proof VERIFIED\n/);
    expect(readFileSync(join(here, 'real.jsonl'), 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
  });
});
