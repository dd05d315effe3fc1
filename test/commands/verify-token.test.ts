// `prereg verify-token` on the example study's own tokens — its freeze anchor and its seal anchor
// (committed), and fresh tokens of the example's local TSAs (the pkijs TSA the example is built
// with, and `openssl ts -reply`) — agrees with `openssl ts -verify -attime <genTime>` on the same
// inputs, over the right bytes and over other bytes. Terminal output escapes what the token says.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTimestampRequest } from '../../pipeline/formats/timestamp-request.ts';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';
import { createOpensslTsa } from '../support/tsa/openssl-tsa.ts';
import { issueTimestampResponse, loadTsaSigner, testPkiPaths } from '../support/tsa/pkijs-tsa.ts';
import { opensslTsVerify } from '../support/tsa/openssl-verify.ts';

const ROOT = path.join(PROJECT_ROOT, 'preregistration/trust/tsa-roots/TEST-ONLY-tsa-root.cert.pem');
const hexBytes = (hex: string) => Buffer.from(hex, 'hex');
const freezeDigest = readFileSync(path.join(PROJECT_ROOT, 'test/fixtures/example-auditor/freeze-digest.txt'), 'utf8').trim();
const sealDigest = (
  JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'inputs/anchors/local-test-tsa.json'), 'utf8')) as { seal_digest: string }
).seal_digest;

let work: string;
beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'prereg-verify-token-'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

function file(name: string, bytes: Uint8Array | string): string {
  const p = path.join(work, name);
  writeFileSync(p, bytes);
  return p;
}

function openssl(token: string, data: string, genTime: string): boolean {
  return opensslTsVerify({ token, data, roots: [ROOT], attime: Math.floor(Date.parse(genTime) / 1000), scratch: work }).ok;
}

async function bothVerdicts(token: string, data: Uint8Array): Promise<{ prereg: boolean; openssl: boolean; reason_codes: string[] }> {
  const dataFile = file(`data-${randomBytes(4).toString('hex')}.bin`, data);
  const r = await runCli(['verify-token', token, '--data', dataFile, '--tsa-root', ROOT, '--json']);
  expect([0, 1]).toContain(r.code);
  return { prereg: r.code === 0, openssl: openssl(token, dataFile, r.json.gen_time), reason_codes: r.json.reason_codes };
}

describe('verify-token agrees with openssl ts -verify on the example study’s tokens', () => {
  it.each([
    [
      'the freeze anchor (preregistration/anchors/local-test-tsa.tsr) over the 32 bytes of freeze_digest',
      'preregistration/anchors/local-test-tsa.tsr',
      () => freezeDigest,
    ],
    [
      'the seal anchor (inputs/anchors/local-test-tsa.tsr) over the 32 bytes of seal_digest',
      'inputs/anchors/local-test-tsa.tsr',
      () => sealDigest,
    ],
  ])('%s', async (_what, token, digest) => {
    const right = await bothVerdicts(path.join(PROJECT_ROOT, token), hexBytes(digest()));
    expect(right).toEqual({ prereg: true, openssl: true, reason_codes: [] });
    // The hex text instead of the bytes: another message, refused by both.
    const wrong = await bothVerdicts(path.join(PROJECT_ROOT, token), Buffer.from(digest()));
    expect(wrong).toEqual({ prereg: false, openssl: false, reason_codes: ['TSA_IMPRINT_MISMATCH'] });
  });

  it('a fresh token of the example’s local pkijs TSA (the one rebuild-example anchors with) and of openssl ts -reply', async () => {
    const digest = createHash('sha256').update('a document of the example').digest();
    const signer = await loadTsaSigner(readFileSync(testPkiPaths('tsa').cert, 'utf8'), readFileSync(testPkiPaths('tsa').key, 'utf8'));
    const fromPkijs = file('pkijs.tsr', await issueTimestampResponse(buildTimestampRequest(digest, 5n), signer, { genTime: new Date() }));
    const tsa = await createOpensslTsa({ certPath: testPkiPaths('tsa').cert, keyPath: testPkiPaths('tsa').key });
    const fromOpenssl = file('openssl.tsr', await tsa.reply(buildTimestampRequest(digest, 6n)).finally(() => tsa.close()));
    for (const token of [fromPkijs, fromOpenssl]) {
      expect(await bothVerdicts(token, digest)).toEqual({ prereg: true, openssl: true, reason_codes: [] });
      expect(await bothVerdicts(token, createHash('sha256').update('another').digest())).toEqual({
        prereg: false,
        openssl: false,
        reason_codes: ['TSA_IMPRINT_MISMATCH'],
      });
    }
  });
});

describe('terminal output', () => {
  it('names, genTime, validity time and every check; a TSA name with control characters is shown escaped', async () => {
    // A TSA whose certificate subject carries ESC, a newline and a bidi override: the pkijs TSA
    // writes it into TSTInfo's tsa field, which the terminal line shows.
    const dir = mkdtempSync(path.join(work, 'hostile-'));
    const sh = (args: string[]) => spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
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
      'k.pem',
      '-out',
      'r.csr',
      '-subj',
      '/CN=hostile',
    ]);
    writeFileSync(
      path.join(dir, 'ext.cnf'),
      '[ext]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,timeStamping\n',
    );
    // -subj cannot carry control characters: the subject is given in an openssl config.
    writeFileSync(
      path.join(dir, 'subj.cnf'),
      `[req]\ndistinguished_name=dn\nprompt=no\nutf8=yes\nstring_mask=utf8only\n[dn]\nCN=TSA\u001b[2J\u202eFAKE: VERIFIED\n`,
    );
    const req = sh(['req', '-new', '-key', 'k.pem', '-config', 'subj.cnf', '-out', 'r2.csr']);
    expect(req.status, req.stderr).toBe(0);
    const x = sh([
      'x509',
      '-req',
      '-in',
      'r2.csr',
      '-CA',
      root.cert,
      '-CAkey',
      root.key,
      '-set_serial',
      '0x4242',
      '-days',
      '30',
      '-extfile',
      'ext.cnf',
      '-extensions',
      'ext',
      '-out',
      'c.pem',
    ]);
    expect(x.status, x.stderr).toBe(0);
    sh(['pkcs8', '-topk8', '-nocrypt', '-in', 'k.pem', '-out', 'k8.pem']);
    const signer = await loadTsaSigner(readFileSync(path.join(dir, 'c.pem'), 'utf8'), readFileSync(path.join(dir, 'k8.pem'), 'utf8'));
    const digest = createHash('sha256').update('x').digest();
    const token = file('hostile.tsr', await issueTimestampResponse(buildTimestampRequest(digest, 1n), signer, { genTime: new Date() }));
    const r = await runCli(['verify-token', token, '--data', file('x.bin', digest), '--tsa-root', ROOT]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/: VERIFIED\n/);
    expect(r.stdout).toContain('CN=TSA\\u001b[2J\\u202eFAKE: VERIFIED');
    expect(r.stdout).not.toMatch(/[\u001b\u202e]/);
    expect(r.stdout).toMatch(/validity judged at .* \(genTime\)/);
    expect(r.stdout).toContain(
      'checks: parse pass, status pass, imprint_algorithm pass, imprint pass, nonce skipped, policy skipped, signer pass, signature_algorithm pass, signature pass, signer_binding pass, chain pass, path_length pass, critical_extensions pass, eku pass',
    );
  });
});

describe('a token whose signature hashes with SHA-1 (as FreeTSA signed in 2017)', () => {
  // `openssl ts -reply` with signer_digest sha1, an ECDSA and an RSA signer (ecdsa-with-SHA1,
  // sha1WithRSAEncryption): OpenSSL still says OK; prereg refuses it as a weak hash, not as
  // tampering: a SHA-1 signature can be forged for a colliding TSTInfo (a deliberate difference).
  it.each([
    ['ECDSA', 'tsa', 'tsa-root'],
    ['RSA', 'unpinned-tsa', 'unpinned-root'],
  ] as const)('%s signer → TSA_HASH_WEAK only, where openssl ts -verify says OK', async (_what, signer, root) => {
    const digest = createHash('sha256').update(`a document signed with SHA-1 by ${signer}`).digest();
    const tsa = await createOpensslTsa({ certPath: testPkiPaths(signer).cert, keyPath: testPkiPaths(signer).key, signerDigest: 'sha1' });
    const token = file(`sha1-${signer}.tsr`, await tsa.reply(buildTimestampRequest(digest, 9n)).finally(() => tsa.close()));
    const dataFile = file(`sha1-${signer}.bin`, digest);
    const r = await runCli(['verify-token', token, '--data', dataFile, '--tsa-root', testPkiPaths(root).cert, '--json']);
    expect([r.code, r.json.status, r.json.reason_codes]).toEqual([1, 'REFUSED', ['TSA_HASH_WEAK']]);
    expect([r.json.checks.signature_algorithm, r.json.checks.signature, r.json.checks.imprint]).toEqual(['fail', 'skipped', 'pass']);
    const openssl = opensslTsVerify({
      token,
      data: dataFile,
      roots: [testPkiPaths(root).cert],
      attime: Math.floor(Date.parse(r.json.gen_time) / 1000),
      scratch: work,
    });
    expect(openssl.ok, openssl.output).toBe(true);
  });
});

describe('verify-token --query REQ.tsq: the token against its request, as openssl ts -verify -queryfile', () => {
  // Requests made by `openssl ts -query`, the token by `openssl ts -reply` for the first one; each
  // request judged by both verifiers. A token replayed for another request (same data, another
  // nonce) is what a TSA or a man in the middle would send to pass an old token off as fresh.
  const root = testPkiPaths('tsa-root');
  const sh = (args: string[]) => execFileSync('openssl', args, { cwd: work, stdio: ['ignore', 'pipe', 'pipe'] });
  let token: string;
  let data: string;
  beforeAll(async () => {
    data = file('query-data.bin', 'the data a participant had timestamped');
    sh(['ts', '-query', '-data', data, '-sha256', '-cert', '-out', 'asked.tsq']);
    const tsa = await createOpensslTsa({ certPath: testPkiPaths('tsa').cert, keyPath: testPkiPaths('tsa').key });
    token = file('asked.tsr', await tsa.reply(readFileSync(path.join(work, 'asked.tsq'))).finally(() => tsa.close()));
  });

  const cases: Array<[string, string[], string[]]> = [
    ['its own request', ['-data', 'DATA', '-sha256', '-cert'], []],
    ['another request for the same data (another nonce): a replay', ['-data', 'DATA', '-sha256', '-cert'], ['TSA_NONCE_MISMATCH']],
    ['a request without a nonce for the same data (nothing to compare)', ['-data', 'DATA', '-sha256', '-no_nonce'], []],
    ['a request for other data', ['-data', 'OTHER', '-sha256', '-no_nonce'], ['TSA_IMPRINT_MISMATCH']],
    [
      'a request for the same data under another policy',
      ['-data', 'DATA', '-sha256', '-no_nonce', '-tspolicy', '1.2.3.4.99'],
      ['TSA_POLICY_MISMATCH'],
    ],
    [
      'a request for the same data under the policy it was issued with',
      ['-data', 'DATA', '-sha256', '-no_nonce', '-tspolicy', '1.2.3.4.1'],
      [],
    ],
  ];
  it.each(cases)('%s', async (what, queryArgs, reason_codes) => {
    const other = file('query-other.bin', 'other data');
    const query = what === 'its own request' ? path.join(work, 'asked.tsq') : path.join(work, `q-${randomBytes(4).toString('hex')}.tsq`);
    if (what !== 'its own request')
      sh(['ts', '-query', ...queryArgs.map((a) => (a === 'DATA' ? data : a === 'OTHER' ? other : a)), '-out', query]);
    const r = await runCli(['verify-token', token, '--query', query, '--tsa-root', root.cert, '--json']);
    expect([r.code, r.json.reason_codes], r.stdout + r.stderr).toEqual([reason_codes.length === 0 ? 0 : 1, reason_codes]);
    const openssl = opensslTsVerify({
      token,
      query,
      roots: [root.cert],
      attime: Math.floor(Date.parse(r.json.gen_time) / 1000),
      scratch: work,
    });
    expect(openssl.ok, openssl.output).toBe(reason_codes.length === 0);
  });

  it('a --query that is no TimeStampReq → exit 3 TSA_REQUEST_MALFORMED; --query with --data → USAGE', async () => {
    const bad = await runCli(['verify-token', token, '--query', data, '--tsa-root', root.cert, '--json']);
    expect([bad.code, bad.json.code]).toEqual([3, 'TSA_REQUEST_MALFORMED']);
    const both = await runCli([
      'verify-token',
      token,
      '--query',
      path.join(work, 'asked.tsq'),
      '--data',
      data,
      '--tsa-root',
      root.cert,
      '--json',
    ]);
    expect([both.code, both.json.code]).toEqual([2, 'USAGE']);
  });
});
