// The audit's check of manifest.p7s is at least as strict as `openssl cms -verify`: every single
// byte of the emitted file, flipped (XOR 0xff), is rejected. Before, the lenient BER
// parser let 53 one-bit flips through that OpenSSL rejects, and one left the audit VALID.
import { spawnSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cmsProblem } from '../../pipeline/audit/signatures.ts';
import { PROJECT_ROOT } from '../support/cli.ts';
import { emittedStudy, scratchDir, type EmittedStudy } from './helpers.ts';

const CA = join(PROJECT_ROOT, 'test/fixtures/keys/TEST-ONLY-operator.cert.pem');
const pinned = createPublicKey(readFileSync(join(PROJECT_ROOT, 'preregistration/trust/operator/TEST-ONLY-operator.pub.pem')));

function opensslAccepts(p7s: string, content: string): boolean {
  return (
    spawnSync(
      'openssl',
      [
        'cms',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        p7s,
        '-content',
        content,
        '-CAfile',
        CA,
        '-purpose',
        'any',
        '-out',
        '/dev/null',
      ],
      { stdio: 'pipe' },
    ).status === 0
  );
}

describe('manifest.p7s, one byte flipped at a time', () => {
  let study: EmittedStudy;
  let scratch: ReturnType<typeof scratchDir>;
  let p7s: Buffer;
  let manifest: Buffer;
  beforeAll(async () => {
    study = await emittedStudy();
    scratch = scratchDir('prereg-p7s-');
    p7s = readFileSync(join(study.dir, 'manifest.p7s'));
    manifest = readFileSync(join(study.dir, 'manifest.json'));
  }, 120_000);
  afterAll(() => {
    study?.cleanup();
    scratch?.cleanup();
  });

  it('the emitted file passes both the audit and openssl', async () => {
    expect(await cmsProblem(p7s, manifest, pinned)).toBeNull();
    expect(opensslAccepts(join(study.dir, 'manifest.p7s'), join(study.dir, 'manifest.json'))).toBe(true);
  });

  it('every flip is rejected by the audit whenever openssl rejects it (in fact every flip is rejected)', async () => {
    const acceptedByAudit: number[] = [];
    for (let i = 0; i < p7s.length; i++) {
      for (const bit of [0xff]) {
        const flipped = Buffer.from(p7s);
        flipped[i]! ^= bit;
        if ((await cmsProblem(flipped, manifest, pinned)) === null) acceptedByAudit.push(i * 256 + bit);
      }
    }
    // A flip the audit accepts must be one openssl accepts too; none is expected at all.
    const file = join(scratch.path, 'flipped.p7s');
    const laxerThanOpenssl = acceptedByAudit.filter((code) => {
      const flipped = Buffer.from(p7s);
      flipped[Math.floor(code / 256)]! ^= code % 256;
      writeFileSync(file, flipped);
      return !opensslAccepts(file, join(study.dir, 'manifest.json'));
    });
    expect(laxerThanOpenssl).toEqual([]);
    expect(acceptedByAudit).toEqual([]);
  }, 120_000);
});
