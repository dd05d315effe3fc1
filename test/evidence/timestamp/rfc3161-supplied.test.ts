// tsa_certs (SPEC §5.4): TSA signing and intermediate certificates the trust policy supplies for
// tokens that do not carry them, as `openssl ts -verify -untrusted` takes them. Real tokens only:
// OpenSSL's `ts -reply` answering a request made by `openssl ts -query` without `-cert` (so the
// token carries no certificate), and the pkijs TSA told to carry none. A supplied certificate is
// never an anchor: it must chain to a pinned root, carry the EKU, and be the one the sid names.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadTsaTrust,
  TIMESTAMP_CHECKS,
  verifyTimestampToken,
  type TimestampVerification,
} from '../../../pipeline/evidence/timestamp/rfc3161.ts';
import { buildTimestampRequest } from '../../../pipeline/formats/timestamp-request.ts';
import { PreregError } from '../../../pipeline/reasons.ts';
import { createOpensslTsa, type OpensslTsa } from '../../support/tsa/openssl-tsa.ts';
import { issueTimestampResponse, loadTestSigner, testPkiPaths, type TsaSigner } from '../../support/tsa/pkijs-tsa.ts';

const DIGEST = createHash('sha256').update('prereg tsa_certs test: the anchored digest').digest();
const pem = (name: Parameters<typeof testPkiPaths>[0]) => readFileSync(testPkiPaths(name).cert, 'utf8');
const ROOT = pem('tsa-root');
const TSA = pem('tsa');

let work: string;
let openssl: OpensslTsa;
/** An intermediate CA under the pinned root, and a TSA signer under it, minted here with openssl. */
let interCa: string;
let interTsa: string;
let interOpenssl: OpensslTsa;
let noEku: TsaSigner;

function run(args: string[]): string {
  return execFileSync('openssl', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** `openssl ts -query` over the digest bytes (the message), with or without `-cert` (certReq). */
function opensslQuery(certReq: boolean): Uint8Array {
  const data = join(work, 'digest.bin');
  const out = join(work, `query-${certReq}.tsq`);
  writeFileSync(data, DIGEST);
  run(['ts', '-query', '-data', data, '-sha256', ...(certReq ? ['-cert'] : []), '-out', out]);
  return new Uint8Array(readFileSync(out));
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'prereg-tsa-certs-'));
  const paths = testPkiPaths('tsa');
  openssl = await createOpensslTsa({ certPath: paths.cert, keyPath: paths.key });
  noEku = await loadTestSigner('tsa-no-eku');

  // Root → intermediate CA → TSA signer, valid from now (the openssl TSA stamps the current time).
  const ext = join(work, 'ext.cnf');
  writeFileSync(
    ext,
    [
      '[ inter ]',
      'basicConstraints = critical, CA:TRUE',
      'keyUsage = critical, keyCertSign',
      'subjectKeyIdentifier = hash',
      'authorityKeyIdentifier = keyid',
      '[ leaf ]',
      'basicConstraints = critical, CA:FALSE',
      'keyUsage = critical, digitalSignature',
      'extendedKeyUsage = critical, timeStamping',
      'subjectKeyIdentifier = hash',
      'authorityKeyIdentifier = keyid',
    ].join('\n'),
  );
  const o = '/O=prereg TEST-ONLY fixtures/OU=not for production';
  for (const [name, subject, issuerCert, issuerKey, section, serial] of [
    ['inter', `${o}/CN=TEST-ONLY intermediate CA`, testPkiPaths('tsa-root').cert, testPkiPaths('tsa-root').key, 'inter', '4097'],
    [
      'inter-tsa',
      `${o}/CN=TEST-ONLY TSA under the intermediate`,
      join(work, 'inter.cert.pem'),
      join(work, 'inter.key.pem'),
      'leaf',
      '4098',
    ],
  ] as const) {
    run(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', join(work, `${name}.key.pem`)]);
    run(['req', '-new', '-key', join(work, `${name}.key.pem`), '-subj', subject, '-out', join(work, `${name}.csr`)]);
    run([
      'x509',
      '-req',
      '-in',
      join(work, `${name}.csr`),
      '-CA',
      issuerCert,
      '-CAkey',
      issuerKey,
      '-set_serial',
      serial,
      '-days',
      '30',
      '-extfile',
      ext,
      '-extensions',
      section,
      '-out',
      join(work, `${name}.cert.pem`),
    ]);
  }
  interCa = readFileSync(join(work, 'inter.cert.pem'), 'utf8');
  interTsa = readFileSync(join(work, 'inter-tsa.cert.pem'), 'utf8');
  interOpenssl = await createOpensslTsa({ certPath: join(work, 'inter-tsa.cert.pem'), keyPath: join(work, 'inter-tsa.key.pem') });
});

afterAll(async () => {
  await openssl?.close();
  await interOpenssl?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Exactly `codes` fail; the rest passed (or were skipped only where named). */
function expectOutcome(result: TimestampVerification, reason_codes: string[], skipped: string[] = []): void {
  expect(result.reason_codes).toEqual(reason_codes);
  for (const check of TIMESTAMP_CHECKS) {
    if (skipped.includes(check)) expect(result.checks[check], check).toBe('skipped');
  }
  // nonce and policy are compared only against a request (options.request), none here.
  if (reason_codes.length === 0)
    expect(Object.entries(result.checks).every(([check, c]) => c === (check === 'nonce' || check === 'policy' ? 'skipped' : 'pass'))).toBe(
      true,
    );
}

const NOT_FOUND_SKIPS = ['signer_binding', 'chain', 'eku'];

describe('a token that carries no certificate (openssl ts -reply, request without -cert)', () => {
  let bare: Uint8Array;
  beforeAll(async () => {
    bare = await openssl.reply(opensslQuery(false));
  });

  it('carries no certificate indeed: OpenSSL itself cannot verify it without -untrusted', () => {
    const tsr = join(work, 'bare.tsr');
    const data = join(work, 'digest.bin');
    writeFileSync(tsr, bare);
    expect(() => run(['ts', '-verify', '-in', tsr, '-data', data, '-CAfile', testPkiPaths('tsa-root').cert])).toThrow(
      /signer certificate not found/,
    );
    expect(
      run(['ts', '-verify', '-in', tsr, '-data', data, '-CAfile', testPkiPaths('tsa-root').cert, '-untrusted', testPkiPaths('tsa').cert]),
    ).toContain('Verification: OK');
  });

  it('verifies once its TSA certificate is supplied (tsa_certs)', async () => {
    const result = await verifyTimestampToken(bare, DIGEST, loadTsaTrust([ROOT], [TSA]));
    expectOutcome(result, []);
    expect(result.signerCertSha256).toBe(
      createHash('sha256')
        .update(Buffer.from(TSA.replace(/-----[^-]+-----|\s+/g, ''), 'base64'))
        .digest('hex'),
    );
  });

  it('without tsa_certs → TSA_SIGNER_NOT_FOUND, the checks needing the certificate skipped', async () => {
    expectOutcome(await verifyTimestampToken(bare, DIGEST, loadTsaTrust([ROOT])), ['TSA_SIGNER_NOT_FOUND'], NOT_FOUND_SKIPS);
  });

  it('with its TSA certificate pinned as a root alone → TSA_SIGNER_NOT_FOUND: a root is an anchor, never looked up as the signer', async () => {
    expectOutcome(await verifyTimestampToken(bare, DIGEST, loadTsaTrust([ROOT, TSA])), ['TSA_SIGNER_NOT_FOUND'], NOT_FOUND_SKIPS);
  });

  it('with its TSA certificate both pinned as a root and supplied: verifies (the pinned certificate anchors itself)', async () => {
    expectOutcome(await verifyTimestampToken(bare, DIGEST, loadTsaTrust([TSA], [TSA])), []);
  });

  it('with another certificate supplied (another TSA’s, the root itself) → TSA_SIGNER_NOT_FOUND', async () => {
    expectOutcome(
      await verifyTimestampToken(bare, DIGEST, loadTsaTrust([ROOT], [pem('unpinned-tsa'), pem('tsa-no-eku'), ROOT])),
      ['TSA_SIGNER_NOT_FOUND'],
      NOT_FOUND_SKIPS,
    );
  });

  it('supplying the certificate does not make it an anchor: with no root pinned → TSA_CHAIN_UNTRUSTED', async () => {
    expectOutcome(await verifyTimestampToken(bare, DIGEST, loadTsaTrust([], [TSA])), ['TSA_CHAIN_UNTRUSTED']);
    expectOutcome(await verifyTimestampToken(bare, DIGEST, loadTsaTrust([pem('unpinned-root')], [TSA])), ['TSA_CHAIN_UNTRUSTED']);
  });

  it('a token that carries its certificate verifies alike with or without tsa_certs', async () => {
    const carried = await openssl.reply(opensslQuery(true));
    expectOutcome(await verifyTimestampToken(carried, DIGEST, loadTsaTrust([ROOT])), []);
    expectOutcome(await verifyTimestampToken(carried, DIGEST, loadTsaTrust([ROOT], [TSA])), []);
  });
});

describe('a supplied certificate is judged as a carried one', () => {
  it('a supplied signer without the timeStamping EKU → TSA_EKU_MISSING (pkijs TSA carrying no certificate)', async () => {
    const token = await issueTimestampResponse(buildTimestampRequest(DIGEST, 5n), noEku, {
      genTime: '2024-05-01T08:31:00Z',
      includeCertificates: false,
    });
    expectOutcome(await verifyTimestampToken(token, DIGEST, loadTsaTrust([ROOT])), ['TSA_SIGNER_NOT_FOUND'], NOT_FOUND_SKIPS);
    expectOutcome(await verifyTimestampToken(token, DIGEST, loadTsaTrust([ROOT], [pem('tsa-no-eku')])), ['TSA_EKU_MISSING']);
  });

  it('a supplied certificate that the ESSCertIDv2 does not bind → TSA_SIGNER_UNBOUND', async () => {
    const loaded = await loadTestSigner('tsa');
    const token = await issueTimestampResponse(buildTimestampRequest(DIGEST, 6n), loaded, {
      genTime: '2024-05-01T08:31:00Z',
      includeCertificates: false,
      essCertIdCertificateDer: new Uint8Array(Buffer.from(pem('tsa-no-eku').replace(/-----[^-]+-----|\s+/g, ''), 'base64')),
    });
    expectOutcome(await verifyTimestampToken(token, DIGEST, loadTsaTrust([ROOT], [TSA])), ['TSA_SIGNER_UNBOUND']);
  });

  it('checked at genTime: a supplied signer before its validity → TSA_CHAIN_UNTRUSTED', async () => {
    const loaded = await loadTestSigner('tsa');
    const token = await issueTimestampResponse(buildTimestampRequest(DIGEST, 7n), loaded, {
      genTime: '2019-06-01T00:00:00Z',
      includeCertificates: false,
    });
    expectOutcome(await verifyTimestampToken(token, DIGEST, loadTsaTrust([ROOT], [TSA])), ['TSA_CHAIN_UNTRUSTED']);
  });
});

describe('intermediate certificates supplied (root → intermediate CA → TSA, minted by openssl)', () => {
  it('the token carries the signer only: verifies with the intermediate supplied, TSA_CHAIN_UNTRUSTED without', async () => {
    const token = await interOpenssl.reply(opensslQuery(true));
    expectOutcome(await verifyTimestampToken(token, DIGEST, loadTsaTrust([ROOT], [interCa])), []);
    expectOutcome(await verifyTimestampToken(token, DIGEST, loadTsaTrust([ROOT])), ['TSA_CHAIN_UNTRUSTED']);
  });

  it('the token carries nothing: verifies with signer and intermediate in one supplied file, or in two', async () => {
    const token = await interOpenssl.reply(opensslQuery(false));
    expectOutcome(await verifyTimestampToken(token, DIGEST, loadTsaTrust([ROOT], [`${interTsa}${interCa}`])), []);
    expectOutcome(await verifyTimestampToken(token, DIGEST, loadTsaTrust([ROOT], [interCa, interTsa])), []);
    expectOutcome(await verifyTimestampToken(token, DIGEST, loadTsaTrust([ROOT], [interTsa])), ['TSA_CHAIN_UNTRUSTED']);
    // An independent verifier agrees.
    const tsr = join(work, 'inter-bare.tsr');
    writeFileSync(tsr, token);
    writeFileSync(join(work, 'untrusted.pem'), `${interTsa}${interCa}`);
    expect(
      run([
        'ts',
        '-verify',
        '-in',
        tsr,
        '-data',
        join(work, 'digest.bin'),
        '-CAfile',
        testPkiPaths('tsa-root').cert,
        '-untrusted',
        join(work, 'untrusted.pem'),
      ]),
    ).toContain('Verification: OK');
  });

  it('the intermediate supplied as a root instead (an anchor, not path material): verifies, the root is then not needed', async () => {
    const token = await interOpenssl.reply(opensslQuery(true));
    expectOutcome(await verifyTimestampToken(token, DIGEST, loadTsaTrust([interCa])), []);
  });
});

describe('loadTsaTrust with tsa_certs', () => {
  it('decodes the supplied certificates once, keeps a certificate given twice once, and names the file of one that does not parse', () => {
    const trust = loadTsaTrust([ROOT], [TSA, `${TSA}\n${pem('tsa-no-eku')}`], {
      roots: ['roots/root.pem'],
      certs: ['certs/a.pem', 'certs/b.pem'],
    });
    expect(trust.supplied?.map((c) => c.cert.subject.typesAndValues.at(-1)?.value.valueBlock.value)).toEqual([
      'TEST-ONLY prereg TSA',
      'TEST-ONLY prereg TSA without timeStamping EKU',
    ]);
    let error: unknown;
    try {
      loadTsaTrust([ROOT], [TSA, 'no certificate here'], { certs: ['certs/a.pem', 'certs/empty.pem'] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PreregError);
    expect((error as PreregError).code).toBe('TSA_TRUST_INVALID');
    expect((error as PreregError).message).toBe('tsa_certs[1] (certs/empty.pem) holds no PEM certificate');
  });
});
