// Tokens of TSAs other than the ones this project runs (test/fixtures/real/rfc3161-foreign/, see
// its PROVENANCE.md): the vendored Sigstore staging token and the copies derived from it or made
// by a local OpenSSL TSA, each through `prereg verify-token` and through `openssl ts -verify
// -attime` with the same inputs. The verdicts must agree, except where prereg is stricter on
// purpose (a SHA-1 imprint, which OpenSSL still accepts), and each refusal carries its code.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTsaTrust, verifyTimestampToken } from '../../pipeline/index.ts';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';
import { issueTimestampResponse, loadTsaSigner, testPkiPaths } from '../support/tsa/pkijs-tsa.ts';
import { opensslTsVerify } from '../support/tsa/openssl-verify.ts';
import { deterministicCopies } from '../fixtures/real/rfc3161-foreign/derive.ts';

const REAL = path.join(PROJECT_ROOT, 'test/fixtures/real/rfc3161-foreign');
const at = (f: string) => path.join(REAL, f);
const DATA = at('stamped-data.bin');
const SIGSTORE_ROOT = at('derived/sigstore-root.pem');
const SIGSTORE_TSA = at('derived/sigstore-tsa.pem');
const LOCAL_ROOT = testPkiPaths('tsa-root').cert;
const GEN_TIME = '2025-05-09T11:58:55Z';
const HELLO_SHA256 = '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824';

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'prereg-foreign-tsa-'));
  writeFileSync(path.join(work, 'other.bin'), 'hellO');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Case {
  token: string;
  data?: string;
  digest?: string;
  hash?: 'sha256' | 'sha384' | 'sha512';
  roots: string[];
  certs?: string[];
  at?: string;
}

/** `openssl ts -verify` with the same inputs, validity at --at or else at the token's genTime. */
function opensslVerifies(c: Case, genTime: string): boolean {
  const attime = Math.floor(Date.parse(c.at ?? genTime) / 1000);
  return opensslTsVerify({
    token: c.token,
    roots: c.roots,
    untrusted: c.certs ?? [],
    attime,
    scratch: work,
    ...(c.data ? { data: c.data } : {}),
    ...(c.digest ? { digest: c.digest } : {}),
  }).ok;
}

async function prereg(c: Case) {
  const args = [
    'verify-token',
    c.token,
    '--json',
    ...c.roots.flatMap((r) => ['--tsa-root', r]),
    ...(c.certs ?? []).flatMap((r) => ['--tsa-cert', r]),
  ];
  if (c.data) args.push('--data', c.data);
  if (c.digest) args.push('--digest', c.digest);
  if (c.hash) args.push('--hash', c.hash);
  if (c.at) args.push('--at', c.at);
  const run = await runCli(args);
  expect([0, 1], run.stdout + run.stderr).toContain(run.code);
  expect(run.code).toBe(run.json.status === 'VERIFIED' ? 0 : 1);
  return run.json as {
    status: string;
    reason_codes: string[];
    gen_time: string;
    validity_at: string;
    hash_algorithm: string;
    signer: string | null;
    root_sha256: string | null;
  };
}

const genuine = at('response-sha256.tsr');
const derived = (f: string) => at(`derived/${f}`);
const other = () => path.join(work, 'other.bin');

// [what, case, prereg's codes ([] = VERIFIED), whether openssl agrees on the verdict]
const CASES: Array<[string, () => Case, string[], 'agrees' | 'prereg-stricter']> = [
  ['the vendored Sigstore token over `hello`, root pinned', () => ({ token: genuine, data: DATA, roots: [SIGSTORE_ROOT] }), [], 'agrees'],
  [
    'the same, the whole published chain as roots (as its README checks it)',
    () => ({ token: genuine, data: DATA, roots: [at('ts_chain.pem')] }),
    [],
    'agrees',
  ],
  [
    'the same by its imprint (--digest), SHA-256 asserted',
    () => ({ token: genuine, digest: HELLO_SHA256, hash: 'sha256', roots: [SIGSTORE_ROOT] }),
    [],
    'agrees',
  ],
  [
    'a flipped signature byte',
    () => ({ token: derived('flipped-signature.tsr'), data: DATA, roots: [SIGSTORE_ROOT] }),
    ['TSA_SIGNATURE_INVALID'],
    'agrees',
  ],
  ['another imprint: other bytes', () => ({ token: genuine, data: other(), roots: [SIGSTORE_ROOT] }), ['TSA_IMPRINT_MISMATCH'], 'agrees'],
  [
    'another imprint: another --digest',
    () => ({ token: genuine, digest: createHash('sha256').update('hellO').digest('hex'), roots: [SIGSTORE_ROOT] }),
    ['TSA_IMPRINT_MISMATCH'],
    'agrees',
  ],
  [
    'the chain’s root unpinned (another root pinned instead)',
    () => ({ token: genuine, data: DATA, roots: [LOCAL_ROOT] }),
    ['TSA_CHAIN_UNTRUSTED'],
    'agrees',
  ],
  [
    'the certificate removed, no --tsa-cert',
    () => ({ token: derived('no-certificate.tsr'), data: DATA, roots: [SIGSTORE_ROOT] }),
    ['TSA_SIGNER_NOT_FOUND'],
    'agrees',
  ],
  [
    'the certificate removed, --tsa-cert supplies it',
    () => ({ token: derived('no-certificate.tsr'), data: DATA, roots: [SIGSTORE_ROOT], certs: [SIGSTORE_TSA] }),
    [],
    'agrees',
  ],
  [
    'the certificate removed, the whole chain as roots: a root is never looked up as the signer',
    () => ({ token: derived('no-certificate.tsr'), data: DATA, roots: [at('ts_chain.pem')] }),
    ['TSA_SIGNER_NOT_FOUND'],
    'agrees',
  ],
  [
    'an extra non-signer certificate (another TSA’s) first in the bag',
    () => ({ token: derived('extra-certificate.tsr'), data: DATA, roots: [SIGSTORE_ROOT] }),
    [],
    'agrees',
  ],
  [
    'a local TSA’s token carrying Sigstore’s chain beside its own certificate, judged under Sigstore’s root',
    () => ({ token: derived('foreign-signer.tsr'), data: DATA, roots: [SIGSTORE_ROOT] }),
    ['TSA_CHAIN_UNTRUSTED'],
    'agrees',
  ],
  [
    'a local TSA’s token carrying only Sigstore’s certificates',
    () => ({ token: derived('foreign-signer-bag-only.tsr'), data: DATA, roots: [SIGSTORE_ROOT] }),
    ['TSA_SIGNER_NOT_FOUND'],
    'agrees',
  ],
  [
    'validity at a later --at, after the TSA certificate expired (2035-03-26)',
    () => ({ token: genuine, data: DATA, roots: [SIGSTORE_ROOT], at: '2036-01-01T00:00:00Z' }),
    ['TSA_CHAIN_UNTRUSTED'],
    'agrees',
  ],
  [
    'validity at an earlier --at, before the certificates were issued (2025-03-28)',
    () => ({ token: genuine, data: DATA, roots: [SIGSTORE_ROOT], at: '2025-01-01T00:00:00Z' }),
    ['TSA_CHAIN_UNTRUSTED'],
    'agrees',
  ],
  [
    'validity at an --at inside the certificates’ window',
    () => ({ token: genuine, data: DATA, roots: [SIGSTORE_ROOT], at: '2030-01-01T00:00:00+02:00' }),
    [],
    'agrees',
  ],
  [
    'a local OpenSSL TSA, SHA-384 imprint of `hello`',
    () => ({ token: derived('local-sha384.tsr'), data: DATA, roots: [LOCAL_ROOT] }),
    [],
    'agrees',
  ],
  [
    'a local OpenSSL TSA, SHA-512 imprint of `hello`',
    () => ({ token: derived('local-sha512.tsr'), data: DATA, roots: [LOCAL_ROOT] }),
    [],
    'agrees',
  ],
  [
    'the SHA-512 token by its imprint',
    () => ({ token: derived('local-sha512.tsr'), digest: createHash('sha512').update('hello').digest('hex'), roots: [LOCAL_ROOT] }),
    [],
    'agrees',
  ],
  [
    'the SHA-512 token, another imprint',
    () => ({ token: derived('local-sha512.tsr'), digest: createHash('sha512').update('hellO').digest('hex'), roots: [LOCAL_ROOT] }),
    ['TSA_IMPRINT_MISMATCH'],
    'agrees',
  ],
  [
    'the SHA-384 token under Sigstore’s root',
    () => ({ token: derived('local-sha384.tsr'), data: DATA, roots: [SIGSTORE_ROOT] }),
    ['TSA_CHAIN_UNTRUSTED'],
    'agrees',
  ],
  [
    'a local OpenSSL TSA, SHA-1 imprint: OpenSSL accepts it, prereg refuses',
    () => ({ token: derived('local-sha1.tsr'), data: DATA, roots: [LOCAL_ROOT] }),
    ['TSA_HASH_WEAK'],
    'prereg-stricter',
  ],
];

describe('prereg verify-token and openssl ts -verify -attime agree on the token family', () => {
  it.each(CASES)('%s', async (_what, make, reason_codes, relation) => {
    const c = make();
    const r = await prereg(c);
    expect(r.reason_codes).toEqual(reason_codes);
    expect(r.status).toBe(reason_codes.length === 0 ? 'VERIFIED' : 'REFUSED');
    expect(r.validity_at).toBe(new Date(c.at ?? r.gen_time).toISOString());
    const openssl = opensslVerifies(c, r.gen_time);
    if (relation === 'agrees') expect(openssl).toBe(reason_codes.length === 0);
    else expect([openssl, reason_codes.length === 0]).toEqual([true, false]);
  });

  it('the genuine token: its genTime, signer and imprint as the TSA wrote them', async () => {
    const r = await prereg({ token: genuine, data: DATA, roots: [SIGSTORE_ROOT] });
    expect([r.gen_time, r.hash_algorithm, r.signer]).toEqual([GEN_TIME, 'SHA-256', 'CN=sigstore-tsa,O=sigstore.dev']);
    expect(r.root_sha256).toBe(
      createHash('sha256')
        .update(Buffer.from(readFileSync(SIGSTORE_ROOT, 'utf8').replace(/-----[^-]+-----|\s/g, ''), 'base64'))
        .digest('hex'),
    );
  });

  it('the derived copies in derived/ are exactly what derive.ts makes from the vendored token (never hand-edited)', () => {
    for (const [name, bytes] of Object.entries(deterministicCopies())) {
      expect(Buffer.compare(readFileSync(derived(name)), Buffer.from(bytes)), name).toBe(0);
    }
    // and the vendored files are byte for byte the published ones
    expect(createHash('sha256').update(readFileSync(genuine)).digest('hex')).toBe(sha256Of('response-sha256.tsr'));
  });
});

function sha256Of(file: string): string {
  const line = readFileSync(at('PROVENANCE.md'), 'utf8')
    .split('\n')
    .find((l) => l.includes(`\`${file}\``) && /[0-9a-f]{64}/.test(l));
  return /([0-9a-f]{64})/.exec(line ?? '')?.[1] ?? 'no digest in PROVENANCE.md';
}

describe('verify-token refuses what it cannot judge, before verifying anything', () => {
  it.each([
    ['no --tsa-root', ['--data', DATA], 2, 'USAGE'],
    ['both --data and --digest', ['--data', DATA, '--digest', HELLO_SHA256, '--tsa-root', SIGSTORE_ROOT], 2, 'USAGE'],
    ['neither --data nor --digest', ['--tsa-root', SIGSTORE_ROOT], 2, 'USAGE'],
    ['--hash sha1', ['--data', DATA, '--hash', 'sha1', '--tsa-root', SIGSTORE_ROOT], 2, 'USAGE'],
    ['a --digest of the wrong length for --hash', ['--digest', HELLO_SHA256, '--hash', 'sha512', '--tsa-root', SIGSTORE_ROOT], 2, 'USAGE'],
    ['a --digest that is not hex', ['--digest', 'zz'.repeat(32), '--tsa-root', SIGSTORE_ROOT], 2, 'USAGE'],
    ['--at that is not RFC 3339', ['--data', DATA, '--at', '2030-01-01', '--tsa-root', SIGSTORE_ROOT], 2, 'USAGE'],
    ['a missing --data file', ['--data', path.join(REAL, 'nope.bin'), '--tsa-root', SIGSTORE_ROOT], 3, 'FILE_NOT_FOUND'],
    ['a missing --tsa-root file', ['--data', DATA, '--tsa-root', path.join(REAL, 'nope.pem')], 3, 'FILE_NOT_FOUND'],
    ['a --tsa-root file without a certificate', ['--data', DATA, '--tsa-root', DATA], 3, 'TSA_TRUST_INVALID'],
  ] as const)('%s', async (_what, args, exit, code) => {
    const r = await runCli(['verify-token', genuine, ...args, '--json']);
    expect([r.code, r.json?.code]).toEqual([exit, code]);
  });

  it('a missing token file → exit 3 FILE_NOT_FOUND; bytes that are no token → exit 1 TSA_TOKEN_MALFORMED', async () => {
    const missing = await runCli(['verify-token', path.join(work, 'nope.tsr'), '--data', DATA, '--tsa-root', SIGSTORE_ROOT, '--json']);
    expect([missing.code, missing.json.code]).toEqual([3, 'FILE_NOT_FOUND']);
    const garbage = await runCli(['verify-token', DATA, '--data', DATA, '--tsa-root', SIGSTORE_ROOT, '--json']);
    expect([garbage.code, garbage.json.reason_codes]).toEqual([1, ['TSA_TOKEN_MALFORMED']]);
  });
});

describe('the typed export verifyTimestampToken (package index)', () => {
  it('verifies the Sigstore token over `hello` and refuses it over other bytes', async () => {
    const trust = loadTsaTrust([readFileSync(SIGSTORE_ROOT, 'utf8')]);
    const token = readFileSync(genuine);
    expect((await verifyTimestampToken(token, { data: Buffer.from('hello') }, trust)).ok).toBe(true);
    expect((await verifyTimestampToken(token, { data: Buffer.from('hellO') }, trust)).reason_codes).toEqual(['TSA_IMPRINT_MISMATCH']);
  });
});

describe('the signer certificate must be a timestamping certificate (RFC 3161 §2.3), as openssl requires', () => {
  // Signers issued here by the TEST-ONLY root, each with one extension changed, answering through
  // the pkijs TSA (`openssl ts -reply` itself refuses to sign with such a certificate).
  const variants: Array<[string, string, string[]]> = [
    ['critical EKU timeStamping only (the rule)', 'keyUsage=critical,digitalSignature\nextendedKeyUsage=critical,timeStamping', []],
    ['EKU not critical', 'keyUsage=critical,digitalSignature\nextendedKeyUsage=timeStamping', ['TSA_EKU_MISSING']],
    [
      'EKU with a second purpose',
      'keyUsage=critical,digitalSignature\nextendedKeyUsage=critical,timeStamping,codeSigning',
      ['TSA_EKU_MISSING'],
    ],
    [
      'key usage beyond signing (keyEncipherment)',
      'keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=critical,timeStamping',
      ['TSA_EKU_MISSING'],
    ],
  ];
  it.each(variants)('%s', async (_what, extensions, reason_codes) => {
    const dir = mkdtempSync(path.join(work, 'eku-'));
    const sh = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const root = testPkiPaths('tsa-root');
    sh([
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'tsa.key',
      '-out',
      'tsa.csr',
      '-subj',
      '/O=prereg TEST-ONLY fixtures/CN=EKU variant',
    ]);
    writeFileSync(path.join(dir, 'ext.cnf'), `[ext]\nbasicConstraints=critical,CA:FALSE\n${extensions}\n`);
    sh([
      'x509',
      '-req',
      '-in',
      'tsa.csr',
      '-CA',
      root.cert,
      '-CAkey',
      root.key,
      '-set_serial',
      '0x7e57',
      '-days',
      '30',
      '-extfile',
      'ext.cnf',
      '-extensions',
      'ext',
      '-out',
      'tsa.pem',
    ]);
    sh(['pkcs8', '-topk8', '-nocrypt', '-in', 'tsa.key', '-out', 'tsa.p8']);
    sh(['ts', '-query', '-data', DATA, '-sha256', '-cert', '-out', 'q.tsq']);
    const signer = await loadTsaSigner(readFileSync(path.join(dir, 'tsa.pem'), 'utf8'), readFileSync(path.join(dir, 'tsa.p8'), 'utf8'));
    writeFileSync(
      path.join(dir, 'r.tsr'),
      await issueTimestampResponse(readFileSync(path.join(dir, 'q.tsq')), signer, { genTime: new Date() }),
    );
    const c: Case = { token: path.join(dir, 'r.tsr'), data: DATA, roots: [LOCAL_ROOT] };
    const r = await prereg(c);
    expect(r.reason_codes).toEqual(reason_codes);
    expect(opensslVerifies(c, r.gen_time)).toBe(reason_codes.length === 0);
  });
});
