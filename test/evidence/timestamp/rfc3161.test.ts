// RFC 3161 verification against real tokens only: minted by the pkijs TSA (chosen genTime, bad
// variants) and by OpenSSL's `ts -reply`, over HTTP or directly. No mocks.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadTsaTrust,
  TIMESTAMP_CHECKS,
  TIMESTAMP_CHECK_CODES,
  verifyTimestampToken,
  type TimestampVerification,
  type TsaReasonCode,
  type TsaTrust,
} from '../../../pipeline/evidence/timestamp/rfc3161.ts';
import { buildTimestampRequest, OID_SHA256 } from '../../../pipeline/formats/timestamp-request.ts';
import { PreregError } from '../../../pipeline/reasons.ts';
import { startTsaServer } from '../../support/tsa/http-tsa.ts';
import { createOpensslTsa, type OpensslTsa } from '../../support/tsa/openssl-tsa.ts';
import { editSignedData } from '../../support/tsa/token-surgery.ts';
import {
  issueTimestampResponse,
  loadTestSigner,
  loadTsaSigner,
  rejectionResponse,
  testPkiPaths,
  timeStampTokenOf,
  type IssueOptions,
  type TsaSigner,
} from '../../support/tsa/pkijs-tsa.ts';

const DIGEST = createHash('sha256').update('prereg rfc3161 test: freeze digest').digest();
const OTHER_DIGEST = createHash('sha256').update('some other document').digest();
const GEN_TIME = '2024-05-01T08:31:00Z';

const pem = (name: Parameters<typeof testPkiPaths>[0]) => readFileSync(testPkiPaths(name).cert, 'utf8');
const derOfPem = (text: string) => new Uint8Array(Buffer.from(text.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64'));

let trust: TsaTrust;
let tsa: TsaSigner;
let noEku: TsaSigner;
let unpinned: TsaSigner;
let openssl: OpensslTsa;
let work: string;

beforeAll(async () => {
  trust = loadTsaTrust([pem('tsa-root')]);
  [tsa, noEku, unpinned] = await Promise.all([loadTestSigner('tsa'), loadTestSigner('tsa-no-eku'), loadTestSigner('unpinned-tsa')]);
  const paths = testPkiPaths('tsa');
  openssl = await createOpensslTsa({ certPath: paths.cert, keyPath: paths.key });
  work = mkdtempSync(join(tmpdir(), 'prereg-rfc3161-test-'));
});

afterAll(async () => {
  await openssl?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A TimeStampResp from the pkijs TSA over `digest` (nonce 42 unless said otherwise). */
function pkijsToken(signer: TsaSigner, options: Partial<IssueOptions> = {}, digest: Uint8Array = DIGEST): Promise<Uint8Array> {
  return issueTimestampResponse(buildTimestampRequest(digest, 42n), signer, { genTime: GEN_TIME, ...options });
}

/** The failed checks must be exactly `codes`; every other check that ran passed. */
function expectFailures(result: TimestampVerification, reason_codes: TsaReasonCode[]): void {
  expect(result.reason_codes).toEqual(reason_codes);
  expect(result.ok).toBe(reason_codes.length === 0);
  for (const check of TIMESTAMP_CHECKS) {
    if (!reason_codes.includes(TIMESTAMP_CHECK_CODES[check])) expect(result.checks[check], check).not.toBe('fail');
  }
  // TSA_HASH_WEAK stands for two checks (imprint and signature algorithms): one of them failed.
  for (const code of reason_codes) {
    expect(
      TIMESTAMP_CHECKS.some((check) => TIMESTAMP_CHECK_CODES[check] === code && result.checks[check] === 'fail'),
      code,
    ).toBe(true);
  }
}

function expectAllPass(result: TimestampVerification): void {
  expectFailures(result, []);
  expect(result.checks).toEqual({
    parse: 'pass',
    status: 'pass',
    imprint_algorithm: 'pass',
    imprint: 'pass',
    nonce: 'skipped',
    policy: 'skipped',
    signer: 'pass',
    signature_algorithm: 'pass',
    signature: 'pass',
    signer_binding: 'pass',
    chain: 'pass',
    path_length: 'pass',
    critical_extensions: 'pass',
    eku: 'pass',
  });
}

/** A DER TimeStampReq whose imprint is `hashed` under the hash algorithm `oid` (any, even a weak one). */
function imprintRequest(oid: string, hashed: Uint8Array): Uint8Array {
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: oid }),
      hashedMessage: new asn1js.OctetString({ valueHex: hashed }),
    }),
    certReq: true,
  });
  return new Uint8Array(request.toSchema().toBER(false));
}

/** Index of `needle` in `haystack` (exactly once), for byte surgery on DER. */
function indexOfOnce(haystack: Uint8Array, needle: Uint8Array): number {
  const hay = Buffer.from(haystack);
  const at = hay.indexOf(Buffer.from(needle));
  expect(at).toBeGreaterThanOrEqual(0);
  expect(hay.indexOf(Buffer.from(needle), at + 1)).toBe(-1);
  return at;
}

function signedDataOf(response: Uint8Array): pkijs.SignedData {
  const resp = pkijs.TimeStampResp.fromBER(new Uint8Array(response));
  return new pkijs.SignedData({ schema: resp.timeStampToken!.content });
}

/** The same TimeStampResp with its outer SEQUENCE in BER indefinite-length form (30 80 … 00 00). */
function indefiniteOuter(response: Uint8Array): Uint8Array {
  const resp = asn1js.fromBER(response.slice()).result as asn1js.Sequence;
  const inner = Buffer.concat(resp.valueBlock.value.map((v) => Buffer.from(v.toBER(false))));
  return new Uint8Array(Buffer.concat([Buffer.from([0x30, 0x80]), inner, Buffer.from([0, 0])]));
}

describe('good tokens', () => {
  it('pkijs TSA: verifies, with exactly the chosen genTime and the token fields', async () => {
    const token = await pkijsToken(tsa, { serialNumber: 123456789n });
    const result = await verifyTimestampToken(token, DIGEST, trust);
    expectAllPass(result);
    expect(result.genTime).toBe(GEN_TIME);
    expect(result.serialNumber).toBe('123456789');
    expect(result.nonce).toBe('42');
    expect(result.policy).toBe('1.2.3.4.1');
    expect(result.hashAlgorithm).toBe('SHA-256');
    expect(result.pkiStatus).toBe(0);
    expect(result.signerSubject).toBe('CN=TEST-ONLY prereg TSA,OU=not for production,O=prereg TEST-ONLY fixtures');
    expect(result.tsaName).toBe(result.signerSubject);
    expect(result.signerCertSha256).toBe(
      createHash('sha256')
        .update(derOfPem(pem('tsa')))
        .digest('hex'),
    );
  });

  it('keeps fractional seconds of genTime exactly', async () => {
    const result = await verifyTimestampToken(await pkijsToken(tsa, { genTime: '2024-05-01T08:31:00.123456Z' }), DIGEST, trust);
    expectAllPass(result);
    expect(result.genTime).toBe('2024-05-01T08:31:00.123456Z');
  });

  it('a re-encoding by asn1js (editSignedData with no edit) still verifies, so the malformed cases below test their edit', async () => {
    expectAllPass(
      await verifyTimestampToken(
        editSignedData(await pkijsToken(tsa), () => {}),
        DIGEST,
        trust,
      ),
    );
  });

  it('accepts BER the way asn1js does: the unsigned outer SEQUENCE in indefinite-length form', async () => {
    const token = indefiniteOuter(await pkijsToken(tsa));
    expect([...token.subarray(0, 2)]).toEqual([0x30, 0x80]);
    expectAllPass(await verifyTimestampToken(token, DIGEST, trust));
  });

  it('verifies many tokens of one TSA alike (memoised certificates and imported key give the same results)', async () => {
    const local = loadTsaTrust([pem('tsa-root')]);
    const tokens = await Promise.all([1n, 2n, 3n].map((serialNumber) => pkijsToken(tsa, { serialNumber })));
    for (const token of tokens) expectAllPass(await verifyTimestampToken(token, DIGEST, local));
    const flipped = tokens[2]!.slice();
    flipped[flipped.length - 5]! ^= 1; // inside the signature value, the last field of the token
    expectFailures(await verifyTimestampToken(flipped, DIGEST, local), ['TSA_SIGNATURE_INVALID']);
    // Remembered bindings are keyed by the attribute's bytes: other ESSCertIDv2 contents are decided anew.
    const otherCert = await pkijsToken(tsa, { essCertIdCertificateDer: derOfPem(pem('tsa-no-eku')) });
    expectFailures(await verifyTimestampToken(otherCert, DIGEST, local), ['TSA_SIGNER_UNBOUND']);
    const otherSerial = await pkijsToken(tsa, { essCertIdSerialNumber: 1n });
    expectFailures(await verifyTimestampToken(otherSerial, DIGEST, local), ['TSA_SIGNER_UNBOUND']);
    expectAllPass(await verifyTimestampToken(tokens[0]!, DIGEST, local));
  });

  it('accepts a bare TimeStampToken (ContentInfo); status is then skipped', async () => {
    const result = await verifyTimestampToken(timeStampTokenOf(await pkijsToken(tsa)), DIGEST, trust);
    expect(result.ok).toBe(true);
    expect(result.reason_codes).toEqual([]);
    expect(result.checks.status).toBe('skipped');
    expect(result.pkiStatus).toBeUndefined();
    expect(result.genTime).toBe(GEN_TIME);
  });

  it('accepts ESSCertID (v1, SHA-1) instead of ESSCertIDv2, and both together', async () => {
    expectAllPass(await verifyTimestampToken(await pkijsToken(tsa, { essCertId: 'v1' }), DIGEST, trust));
    expectAllPass(await verifyTimestampToken(await pkijsToken(tsa, { essCertId: 'both' }), DIGEST, trust));
  });

  it('openssl ts -reply: verifies, genTime close to now', async () => {
    const before = Date.now();
    const token = await openssl.reply(buildTimestampRequest(DIGEST, 7n));
    const result = await verifyTimestampToken(token, DIGEST, trust);
    expectAllPass(result);
    expect(result.genTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(Math.abs(Date.parse(result.genTime!) - before)).toBeLessThan(60_000);
    expect(result.nonce).toBe('7');
    expect(result.policy).toBe('1.2.3.4.1');
  });

  it('openssl ts -reply with ESSCertID (ess_cert_id_alg sha1): verifies', async () => {
    const paths = testPkiPaths('tsa');
    const v1 = await createOpensslTsa({ certPath: paths.cert, keyPath: paths.key, essCertIdAlg: 'sha1' });
    try {
      expectAllPass(await verifyTimestampToken(await v1.reply(buildTimestampRequest(DIGEST, 8n)), DIGEST, trust));
    } finally {
      await v1.close();
    }
  });

  it('an independent verifier agrees: openssl ts -verify accepts the pkijs TSA token', async () => {
    const tsr = join(work, 'pkijs.tsr');
    const data = join(work, 'digest.bin');
    writeFileSync(tsr, await pkijsToken(tsa));
    writeFileSync(data, DIGEST);
    const out = execFileSync('openssl', ['ts', '-verify', '-in', tsr, '-data', data, '-CAfile', testPkiPaths('tsa-root').cert], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(out).toContain('Verification: OK');
  });

  it('the RSA signer of the other root verifies once that root is pinned', async () => {
    const both = loadTsaTrust([pem('tsa-root'), pem('unpinned-root')]);
    expectAllPass(await verifyTimestampToken(await pkijsToken(unpinned), DIGEST, both));
  });
});

describe('each failure, reported alone with its code', () => {
  it('token over another digest → TSA_IMPRINT_MISMATCH only', async () => {
    const result = await verifyTimestampToken(await pkijsToken(tsa, {}, OTHER_DIGEST), DIGEST, trust);
    expectFailures(result, ['TSA_IMPRINT_MISMATCH']);
    expect(result.checks.signature).toBe('pass');
    expect(result.genTime).toBe(GEN_TIME);
  });

  it('openssl token over another digest → TSA_IMPRINT_MISMATCH only', async () => {
    const token = await openssl.reply(buildTimestampRequest(OTHER_DIGEST, 9n));
    expectFailures(await verifyTimestampToken(token, DIGEST, trust), ['TSA_IMPRINT_MISMATCH']);
  });

  it('SHA-384 and SHA-512 imprints of the right bytes verify (the token says which); asserting another hash → TSA_IMPRINT_MISMATCH', async () => {
    for (const [oid, node] of [
      ['2.16.840.1.101.3.4.2.2', 'sha384'],
      ['2.16.840.1.101.3.4.2.3', 'sha512'],
    ] as const) {
      const token = await issueTimestampResponse(imprintRequest(oid, createHash(node).update(DIGEST).digest()), tsa, { genTime: GEN_TIME });
      const result = await verifyTimestampToken(token, DIGEST, trust);
      expectAllPass(result);
      expect(result.hashAlgorithm).toBe(node === 'sha384' ? 'SHA-384' : 'SHA-512');
      expectAllPass(await verifyTimestampToken(token, { data: DIGEST, hash: node }, trust));
      expectAllPass(await verifyTimestampToken(token, { imprint: createHash(node).update(DIGEST).digest() }, trust));
      expectFailures(await verifyTimestampToken(token, { data: DIGEST, hash: 'sha256' }, trust), ['TSA_IMPRINT_MISMATCH']);
      expectFailures(await verifyTimestampToken(token, { imprint: createHash(node).update(OTHER_DIGEST).digest() }, trust), [
        'TSA_IMPRINT_MISMATCH',
      ]);
    }
  });

  it('a SHA-1 imprint, even of the right bytes (openssl ts -reply told to accept SHA-1) → TSA_HASH_WEAK only (the imprint is not compared)', async () => {
    const paths = testPkiPaths('tsa');
    const sha1Tsa = await createOpensslTsa({ certPath: paths.cert, keyPath: paths.key, digests: ['sha1', 'sha256'] });
    const token = await sha1Tsa
      .reply(imprintRequest('1.3.14.3.2.26', createHash('sha1').update(DIGEST).digest()))
      .finally(() => sha1Tsa.close());
    const result = await verifyTimestampToken(token, DIGEST, trust);
    expectFailures(result, ['TSA_HASH_WEAK']);
    expect([result.hashAlgorithm, result.checks.imprint]).toEqual(['SHA-1', 'skipped']);
    expectFailures(await verifyTimestampToken(token, { imprint: createHash('sha1').update(DIGEST).digest() }, trust), ['TSA_HASH_WEAK']);
  });

  it('an imprint under an algorithm prereg cannot name (MD5) → TSA_HASH_WEAK only', async () => {
    const token = await issueTimestampResponse(imprintRequest('1.2.840.113549.2.5', createHash('md5').update(DIGEST).digest()), tsa, {
      genTime: GEN_TIME,
      anyImprintAlgorithm: true,
    });
    expectFailures(await verifyTimestampToken(token, DIGEST, trust), ['TSA_HASH_WEAK']);
  });

  it('the right SHA-256 bytes under another algorithm OID → TSA_IMPRINT_MISMATCH (the algorithm is compared too)', async () => {
    const request = new pkijs.TimeStampReq({
      version: 1,
      messageImprint: new pkijs.MessageImprint({
        hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: '2.16.840.1.101.3.4.2.3' }),
        hashedMessage: new asn1js.OctetString({ valueHex: createHash('sha256').update(DIGEST).digest() }),
      }),
      certReq: true,
    });
    const token = await issueTimestampResponse(new Uint8Array(request.toSchema().toBER(false)), tsa, { genTime: GEN_TIME });
    expectFailures(await verifyTimestampToken(token, DIGEST, trust), ['TSA_IMPRINT_MISMATCH']);
  });

  it('TSA under an unpinned root → TSA_CHAIN_UNTRUSTED only', async () => {
    expectFailures(await verifyTimestampToken(await pkijsToken(unpinned), DIGEST, trust), ['TSA_CHAIN_UNTRUSTED']);
  });

  it('an impostor with the pinned names and serial but other keys → TSA_CHAIN_UNTRUSTED only', async () => {
    // Root and TSA certificates copying the pinned root's and TSA's subjects (and the TSA's serial,
    // so even IssuerAndSerialNumber matches), made here with the openssl CLI; the impostor root is
    // carried in the token to tempt the path builder.
    const dir = mkdtempSync(join(work, 'impostor-'));
    const sh = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const names = '/O=prereg TEST-ONLY fixtures/OU=not for production';
    sh([
      'req',
      '-x509',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'root.key',
      '-out',
      'root.pem',
      '-days',
      '3650',
      '-subj',
      `${names}/CN=TEST-ONLY prereg TSA Root CA`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ]);
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
      `${names}/CN=TEST-ONLY prereg TSA`,
    ]);
    writeFileSync(
      join(dir, 'ext.cnf'),
      '[ext]\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=critical,timeStamping\n',
    );
    const serial = `0x${Buffer.from(tsa.certificate.serialNumber.valueBlock.valueHexView).toString('hex')}`;
    sh([
      'x509',
      '-req',
      '-in',
      'tsa.csr',
      '-CA',
      'root.pem',
      '-CAkey',
      'root.key',
      '-set_serial',
      serial,
      '-days',
      '365',
      '-extfile',
      'ext.cnf',
      '-extensions',
      'ext',
      '-out',
      'tsa.pem',
    ]);
    const read = (f: string) => readFileSync(join(dir, f), 'utf8');
    const impostor = await loadTsaSigner(read('tsa.pem'), read('tsa.key'), [read('root.pem')]);
    expect(impostor.certificate.issuer.isEqual(tsa.certificate.issuer)).toBe(true);
    expect(impostor.certificate.serialNumber.isEqual(tsa.certificate.serialNumber)).toBe(true);
    const token = await pkijsToken(impostor, { genTime: new Date() });
    expectFailures(await verifyTimestampToken(token, DIGEST, trust), ['TSA_CHAIN_UNTRUSTED']);
  });

  it('no pinned roots at all → TSA_CHAIN_UNTRUSTED only', async () => {
    const empty: TsaTrust = { roots: [], rootsSha256: [] };
    expectFailures(await verifyTimestampToken(await pkijsToken(tsa), DIGEST, empty), ['TSA_CHAIN_UNTRUSTED']);
  });

  it('the chain is checked at genTime: before the certificates’ validity → TSA_CHAIN_UNTRUSTED, also after a cached success', async () => {
    expectAllPass(await verifyTimestampToken(await pkijsToken(tsa), DIGEST, trust));
    const early = await verifyTimestampToken(await pkijsToken(tsa, { genTime: '2019-06-01T00:00:00Z' }), DIGEST, trust);
    expectFailures(early, ['TSA_CHAIN_UNTRUSTED']);
    const late = await verifyTimestampToken(await pkijsToken(tsa, { genTime: '2045-06-01T00:00:00Z' }), DIGEST, trust);
    expectFailures(late, ['TSA_CHAIN_UNTRUSTED']);
  });

  it('tokens verified at once share one path validation and get the verdicts each gets alone (valid, early, late, unpinned, in any order)', async () => {
    const tokens = [
      await pkijsToken(tsa, { genTime: '2019-06-01T00:00:00Z' }),
      await pkijsToken(tsa),
      await pkijsToken(tsa, { genTime: '2045-06-01T00:00:00Z' }),
      await pkijsToken(unpinned),
      await pkijsToken(tsa, { genTime: '2024-06-01T00:00:00Z' }),
    ];
    const alone: TimestampVerification[] = [];
    for (const token of tokens) alone.push(await verifyTimestampToken(token, DIGEST, loadTsaTrust([pem('tsa-root')])));
    expect(alone.map((v) => v.reason_codes)).toEqual([['TSA_CHAIN_UNTRUSTED'], [], ['TSA_CHAIN_UNTRUSTED'], ['TSA_CHAIN_UNTRUSTED'], []]);
    for (const order of [
      [0, 1, 2, 3, 4],
      [1, 0, 4, 2, 3],
      [2, 3, 0, 1, 4, 1, 0],
    ]) {
      const shared = loadTsaTrust([pem('tsa-root')]); // a fresh memo: every path validation starts in flight together
      const together = await Promise.all(order.map((i) => verifyTimestampToken(tokens[i]!, DIGEST, shared)));
      expect(together).toEqual(order.map((i) => alone[i]));
    }
  });

  it('options.at judges validity at another time than genTime (reported as validityAt); genTime by default', async () => {
    const token = await pkijsToken(tsa);
    const byDefault = await verifyTimestampToken(token, DIGEST, trust);
    expectAllPass(byDefault);
    expect(byDefault.validityAt).toBe(new Date(GEN_TIME).toISOString());
    const before = await verifyTimestampToken(token, DIGEST, trust, { at: new Date('2019-06-01T00:00:00Z') });
    expectFailures(before, ['TSA_CHAIN_UNTRUSTED']);
    expect(before.validityAt).toBe('2019-06-01T00:00:00.000Z');
    expectFailures(await verifyTimestampToken(token, DIGEST, trust, { at: new Date('2045-06-01T00:00:00Z') }), ['TSA_CHAIN_UNTRUSTED']);
    expectAllPass(await verifyTimestampToken(token, DIGEST, trust, { at: new Date('2024-06-01T00:00:00Z') }));
  });

  it('a byte flipped inside the signature value → TSA_SIGNATURE_INVALID only', async () => {
    const token = await pkijsToken(tsa);
    const signature = signedDataOf(token).signerInfos[0]!.signature.valueBlock.valueHexView;
    const at = indexOfOnce(token, signature);
    const tampered = Uint8Array.from(token);
    tampered[at + signature.length - 1]! ^= 0x01; // last byte of s: the DER of the signature stays valid
    expectFailures(await verifyTimestampToken(tampered, DIGEST, trust), ['TSA_SIGNATURE_INVALID']);
  });

  it('a byte flipped inside the signed TSTInfo (serial number) → TSA_SIGNATURE_INVALID only', async () => {
    const serial = 0x1122334455667788n;
    const token = await pkijsToken(tsa, { serialNumber: serial });
    const at = indexOfOnce(token, Buffer.from('1122334455667788', 'hex'));
    const tampered = Uint8Array.from(token);
    tampered[at + 7]! ^= 0x01;
    const result = await verifyTimestampToken(tampered, DIGEST, trust);
    expectFailures(result, ['TSA_SIGNATURE_INVALID']);
    expect(result.serialNumber).toBe((serial ^ 1n).toString());
  });

  it('openssl token with a flipped signature byte → TSA_SIGNATURE_INVALID only', async () => {
    const token = await openssl.reply(buildTimestampRequest(DIGEST, 10n));
    const signature = signedDataOf(token).signerInfos[0]!.signature.valueBlock.valueHexView;
    const tampered = Uint8Array.from(token);
    tampered[indexOfOnce(token, signature) + signature.length - 1]! ^= 0x80;
    expectFailures(await verifyTimestampToken(tampered, DIGEST, trust), ['TSA_SIGNATURE_INVALID']);
  });

  it('no ESSCertIDv2 (nor ESSCertID) → TSA_SIGNER_UNBOUND only', async () => {
    expectFailures(await verifyTimestampToken(await pkijsToken(tsa, { essCertId: 'none' }), DIGEST, trust), ['TSA_SIGNER_UNBOUND']);
  });

  it('ESSCertIDv2 naming another certificate → TSA_SIGNER_UNBOUND only', async () => {
    const token = await pkijsToken(tsa, { essCertIdCertificateDer: derOfPem(pem('tsa-no-eku')) });
    expectFailures(await verifyTimestampToken(token, DIGEST, trust), ['TSA_SIGNER_UNBOUND']);
  });

  it('ESSCertIDv2 with the right hash but another issuerSerial → TSA_SIGNER_UNBOUND only', async () => {
    const token = await pkijsToken(tsa, { essCertIdSerialNumber: 1n });
    expectFailures(await verifyTimestampToken(token, DIGEST, trust), ['TSA_SIGNER_UNBOUND']);
  });

  it('signer certificate without the timeStamping EKU → TSA_EKU_MISSING only', async () => {
    expectFailures(await verifyTimestampToken(await pkijsToken(noEku), DIGEST, trust), ['TSA_EKU_MISSING']);
  });

  it('status rejection (2) from the pkijs TSA → TSA_STATUS_REJECTED, nothing else runs', async () => {
    const result = await verifyTimestampToken(rejectionResponse('badAlg', 'unsupported algorithm'), DIGEST, trust);
    expectFailures(result, ['TSA_STATUS_REJECTED']);
    expect(result.pkiStatus).toBe(2);
    expect(result.statusText).toBe('unsupported algorithm');
    for (const check of ['imprint', 'signature', 'signer_binding', 'chain', 'eku'] as const) {
      expect(result.checks[check]).toBe('skipped');
    }
  });

  it('status rejection from openssl (SHA-1 imprint not accepted) → TSA_STATUS_REJECTED only', async () => {
    const request = new pkijs.TimeStampReq({
      version: 1,
      messageImprint: new pkijs.MessageImprint({
        hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: '1.3.14.3.2.26' }),
        hashedMessage: new asn1js.OctetString({ valueHex: createHash('sha1').update(DIGEST).digest() }),
      }),
      certReq: true,
    });
    const result = await verifyTimestampToken(await openssl.reply(new Uint8Array(request.toSchema().toBER(false))), DIGEST, trust);
    expectFailures(result, ['TSA_STATUS_REJECTED']);
    expect(result.pkiStatus).toBe(2);
  });

  it('granted but the token carries no certificate and none is supplied → TSA_SIGNER_NOT_FOUND (signer check), the checks needing it skipped', async () => {
    const result = await verifyTimestampToken(await pkijsToken(tsa, { includeCertificates: false }), DIGEST, trust);
    expectFailures(result, ['TSA_SIGNER_NOT_FOUND']);
    expect(result.checks.signer).toBe('fail');
    expect(result.checks.signature).toBe('skipped');
    expect(result.checks.signer_binding).toBe('skipped');
    expect(result.checks.chain).toBe('skipped');
    expect(result.checks.eku).toBe('skipped');
  });
});

describe('several failures at once are all reported', () => {
  it('other digest + no ESSCertIDv2 + unpinned root + no EKU-less issue', async () => {
    const token = await pkijsToken(unpinned, { essCertId: 'none' }, OTHER_DIGEST);
    expectFailures(await verifyTimestampToken(token, DIGEST, trust), ['TSA_IMPRINT_MISMATCH', 'TSA_SIGNER_UNBOUND', 'TSA_CHAIN_UNTRUSTED']);
  });

  it('other digest + tampered signature + no EKU', async () => {
    const token = await pkijsToken(noEku, {}, OTHER_DIGEST);
    const signature = signedDataOf(token).signerInfos[0]!.signature.valueBlock.valueHexView;
    const tampered = Uint8Array.from(token);
    tampered[indexOfOnce(token, signature) + signature.length - 1]! ^= 0x01;
    expectFailures(await verifyTimestampToken(tampered, DIGEST, trust), [
      'TSA_IMPRINT_MISMATCH',
      'TSA_SIGNATURE_INVALID',
      'TSA_EKU_MISSING',
    ]);
  });
});

describe('malformed input → TSA_TOKEN_MALFORMED, every other check skipped', () => {
  const cases: [string, () => Promise<Uint8Array>][] = [
    ['garbage bytes', async () => new Uint8Array(Buffer.from('this is not DER at all, just text\n'))],
    ['empty input', async () => new Uint8Array(0)],
    ['truncated token', async () => (await pkijsToken(tsa)).subarray(0, -20)],
    ['a token with a trailing byte', async () => Uint8Array.from([...(await pkijsToken(tsa)), 0])],
    ['valid DER that is not a token (a certificate)', async () => derOfPem(pem('tsa'))],
    ['base64 text of a token', async () => new Uint8Array(Buffer.from(Buffer.from(await pkijsToken(tsa)).toString('base64')))],
  ];
  // Parts the walker delimits (pipeline/formats/der.ts) but that are not what they must be.
  const notASignerInfo = () => new asn1js.Sequence({ value: [new asn1js.Integer({ value: 7 })] });
  cases.push(
    [
      'the signerInfo is a SEQUENCE but not a SignerInfo',
      async () =>
        editSignedData(await pkijsToken(tsa), (parts) => (parts.at(-1) as asn1js.Set).valueBlock.value.splice(0, 1, notASignerInfo())),
    ],
    [
      'a carried certificate does not parse',
      async () =>
        editSignedData(await pkijsToken(tsa), (parts) => (parts[3] as asn1js.Constructed).valueBlock.value.splice(0, 1, notASignerInfo())),
    ],
    [
      'the encapsulated content is typed id-data, not id-ct-TSTInfo',
      async () =>
        editSignedData(await pkijsToken(tsa), (parts) =>
          (parts[2] as asn1js.Sequence).valueBlock.value.splice(0, 1, new asn1js.ObjectIdentifier({ value: '1.2.840.113549.1.7.1' })),
        ),
    ],
    [
      'the encapsulated content is absent',
      async () => editSignedData(await pkijsToken(tsa), (parts) => (parts[2] as asn1js.Sequence).valueBlock.value.splice(1, 1)),
    ],
    [
      'two signerInfos',
      async () =>
        editSignedData(await pkijsToken(tsa), (parts) => {
          const set = parts.at(-1) as asn1js.Set;
          set.valueBlock.value.push(set.valueBlock.value[0]!);
        }),
    ],
    [
      'the version is not an INTEGER',
      async () => editSignedData(await pkijsToken(tsa), (parts) => parts.splice(0, 1, new asn1js.Utf8String({ value: '3' }))),
    ],
  );
  for (const [name, make] of cases) {
    it(name, async () => {
      const result = await verifyTimestampToken(await make(), DIGEST, trust);
      expectFailures(result, ['TSA_TOKEN_MALFORMED']);
      for (const check of TIMESTAMP_CHECKS.filter((c) => c !== 'parse')) expect(result.checks[check]).toBe('skipped');
    });
  }

  it('the message may have any length: 31 of the 32 bytes are another message (TSA_IMPRINT_MISMATCH); a subject that is not bytes is a caller bug and throws', async () => {
    expectFailures(await verifyTimestampToken(await pkijsToken(tsa), DIGEST.subarray(0, 31), trust), ['TSA_IMPRINT_MISMATCH']);
    await expect(verifyTimestampToken(await pkijsToken(tsa), { data: 'text' as unknown as Uint8Array }, trust)).rejects.toThrow(TypeError);
    await expect(verifyTimestampToken(await pkijsToken(tsa), DIGEST, trust, { at: new Date('not a date') })).rejects.toThrow(TypeError);
  });
});

describe('loadTsaTrust', () => {
  it('reads several certificates per PEM text, drops duplicates, records their SHA-256', () => {
    const loaded = loadTsaTrust([`${pem('tsa-root')}\n${pem('unpinned-root')}`, pem('tsa-root')]);
    expect(loaded.roots).toHaveLength(2);
    expect(loaded.rootsSha256).toEqual([
      createHash('sha256')
        .update(derOfPem(pem('tsa-root')))
        .digest('hex'),
      createHash('sha256')
        .update(derOfPem(pem('unpinned-root')))
        .digest('hex'),
    ]);
  });

  it('refuses a text without a certificate, or one that does not parse (TSA_TRUST_INVALID)', () => {
    const codeOf = (texts: string[]) => {
      try {
        loadTsaTrust(texts);
      } catch (e) {
        return e instanceof PreregError ? e.code : String(e);
      }
      return 'no error';
    };
    expect(codeOf(['just text'])).toBe('TSA_TRUST_INVALID');
    expect(codeOf(['-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'])).toBe('TSA_TRUST_INVALID');
  });
});

describe('buildTimestampRequest', () => {
  it('is a DER TimeStampReq: v1, SHA-256 imprint of the 32 bytes (parameters absent), nonce, certReq', () => {
    const der = buildTimestampRequest(DIGEST, 0x8123456789abcdefn);
    const req = pkijs.TimeStampReq.fromBER(der);
    expect(req.version).toBe(1);
    expect(req.messageImprint.hashAlgorithm.algorithmId).toBe(OID_SHA256);
    expect(req.messageImprint.hashAlgorithm.algorithmParams).toBeUndefined();
    expect(Buffer.from(req.messageImprint.hashedMessage.valueBlock.valueHexView)).toEqual(createHash('sha256').update(DIGEST).digest());
    expect(req.nonce!.toBigInt()).toBe(0x8123456789abcdefn);
    expect(req.certReq).toBe(true);
    expect(req.reqPolicy).toBeUndefined();
    // DER round trip: re-encoding gives the same bytes.
    expect(Buffer.from(req.toSchema().toBER(false))).toEqual(Buffer.from(der));
  });

  it('takes the nonce as unsigned big-endian bytes (leading zeros dropped, 0x00 added before a high bit)', () => {
    expect(pkijs.TimeStampReq.fromBER(buildTimestampRequest(DIGEST, Uint8Array.from([0, 0, 1, 2]))).nonce!.toBigInt()).toBe(0x0102n);
    expect(pkijs.TimeStampReq.fromBER(buildTimestampRequest(DIGEST, Uint8Array.from([0xff, 1]))).nonce!.toBigInt()).toBe(0xff01n);
  });

  it('OpenSSL reads it as a SHA-256 query of those bytes', () => {
    const file = join(work, 'req.tsq');
    writeFileSync(file, buildTimestampRequest(DIGEST, 0x0102n));
    const text = execFileSync('openssl', ['ts', '-query', '-in', file, '-text'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(text).toContain('Hash Algorithm: sha256');
    expect(text).toContain('Nonce: 0x0102');
    expect(text).toContain('Certificate required: yes');
  });

  it('refuses a digest that is not 32 bytes and a non-positive nonce', () => {
    expect(() => buildTimestampRequest(DIGEST.subarray(0, 31), 1n)).toThrow(TypeError);
    expect(() => buildTimestampRequest(DIGEST, 0n)).toThrow(TypeError);
    expect(() => buildTimestampRequest(DIGEST, new Uint8Array([0, 0]))).toThrow(TypeError);
  });
});

describe('HTTP TSA server', () => {
  const post = (url: string, body: Uint8Array<ArrayBuffer>, signal?: AbortSignal) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/timestamp-query' }, body, signal: signal ?? null });

  for (const backend of ['pkijs', 'openssl'] as const) {
    it(`${backend} backend answers a request built by buildTimestampRequest with a verifying token`, async () => {
      const server = await startTsaServer(backend === 'pkijs' ? { backend, genTime: GEN_TIME } : { backend });
      try {
        const response = await post(server.url, buildTimestampRequest(DIGEST, 0xabcdefn));
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/timestamp-reply');
        const result = await verifyTimestampToken(new Uint8Array(await response.arrayBuffer()), DIGEST, trust);
        expectAllPass(result);
        expect(result.nonce).toBe(String(0xabcdefn));
        if (backend === 'pkijs') expect(result.genTime).toBe(GEN_TIME);
        expect(server.requests).toBe(1);
      } finally {
        await server.close();
      }
    });
  }

  it('failFirst: answers 503 to the first n requests, then a token', async () => {
    const server = await startTsaServer({ backend: 'pkijs', genTime: GEN_TIME, failFirst: 2 });
    try {
      const body = buildTimestampRequest(DIGEST, 5n);
      expect((await post(server.url, body)).status).toBe(503);
      expect((await post(server.url, body)).status).toBe(503);
      const third = await post(server.url, body);
      expect(third.status).toBe(200);
      expect((await verifyTimestampToken(new Uint8Array(await third.arrayBuffer()), DIGEST, trust)).ok).toBe(true);
      expect(server.requests).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('neverAnswer: the request hangs until the client gives up; close() still returns', async () => {
    const server = await startTsaServer({ backend: 'pkijs', neverAnswer: true });
    await expect(post(server.url, buildTimestampRequest(DIGEST, 6n), AbortSignal.timeout(300))).rejects.toThrow();
    expect(server.requests).toBe(1);
    const pending = post(server.url, buildTimestampRequest(DIGEST, 7n)).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await pending).toBeInstanceOf(Error); // the socket was destroyed under the open request
  });

  it('refuses other methods and content types', async () => {
    const server = await startTsaServer({ backend: 'pkijs' });
    try {
      expect((await fetch(server.url)).status).toBe(405);
      const wrongType = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' });
      expect(wrongType.status).toBe(415);
    } finally {
      await server.close();
    }
  });
});
