// The SignerInfo decoder and CMS signature check (cms-signer-info.ts) against real tokens: agreement
// with pkijs's SignedData.verify on good ones, and every rule made to fail on its own.
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeSignerInfo, signerInfoSignatureValid, type SignerInfo } from '../../../pipeline/evidence/timestamp/cms-signer-info.ts';
import { loadTsaTrust, verifyTimestampToken } from '../../../pipeline/evidence/timestamp/rfc3161.ts';
import { buildTimestampRequest } from '../../../pipeline/formats/timestamp-request.ts';
import { createOpensslTsa, type OpensslTsa } from '../../support/tsa/openssl-tsa.ts';
import { issueTimestampResponse, loadTestSigner, testPkiPaths, type IssueOptions, type TsaSigner } from '../../support/tsa/pkijs-tsa.ts';

const DIGEST = createHash('sha256').update('prereg cms-signer-info test').digest();
const TST_INFO = '1.2.840.113549.1.9.16.1.4';

let tsa: TsaSigner;
let rsaTsa: TsaSigner;
let openssl: OpensslTsa;

beforeAll(async () => {
  [tsa, rsaTsa] = await Promise.all([loadTestSigner('tsa'), loadTestSigner('unpinned-tsa')]);
  const paths = testPkiPaths('tsa');
  openssl = await createOpensslTsa({ certPath: paths.cert, keyPath: paths.key });
});

afterAll(async () => {
  await openssl?.close();
});

interface Parts {
  signedData: pkijs.SignedData;
  signerInfoDer: Uint8Array;
  eContent: Uint8Array;
  key: KeyObject;
}

function partsOf(response: Uint8Array): Parts {
  const resp = pkijs.TimeStampResp.fromBER(new Uint8Array(response));
  const signedData = new pkijs.SignedData({ schema: resp.timeStampToken!.content });
  const signer = signedData.certificates![0] as pkijs.Certificate;
  return {
    signedData,
    signerInfoDer: new Uint8Array(signedData.signerInfos[0]!.toSchema().toBER(false)),
    eContent: new Uint8Array(signedData.encapContentInfo.eContent!.getValue()),
    key: createPublicKey({ key: Buffer.from(signer.subjectPublicKeyInfo.toSchema().toBER(false)), format: 'der', type: 'spki' }),
  };
}

const token = (signer: TsaSigner, options: Partial<IssueOptions> = {}) =>
  issueTimestampResponse(buildTimestampRequest(DIGEST, 9n), signer, { genTime: '2024-05-01T08:31:00Z', ...options });

async function pkijsSignatureVerified(signedData: pkijs.SignedData, eContent: Uint8Array): Promise<boolean> {
  const view = new pkijs.SignedData({
    version: signedData.version,
    digestAlgorithms: signedData.digestAlgorithms,
    encapContentInfo: new pkijs.EncapsulatedContentInfo({
      eContentType: '1.2.840.113549.1.7.1',
      eContent: new asn1js.OctetString({ valueHex: eContent }),
    }),
    certificates: signedData.certificates!,
    signerInfos: signedData.signerInfos,
  });
  try {
    return (await view.verify({ signer: 0, checkChain: false, extendedMode: true })).signatureVerified === true;
  } catch {
    return false;
  }
}

describe('agrees with pkijs SignedData.verify on real tokens', () => {
  const good: [string, () => Promise<Uint8Array>][] = [
    ['pkijs TSA, ECDSA P-256 with SHA-256', () => token(tsa)],
    ['pkijs TSA, ECDSA with SHA-384', () => token(tsa, { signatureHash: 'SHA-384' })],
    ['pkijs TSA, ECDSA with SHA-512', () => token(tsa, { signatureHash: 'SHA-512' })],
    ['pkijs TSA, RSA PKCS#1 v1.5 with SHA-256', () => token(rsaTsa)],
    ['openssl ts -reply', () => openssl.reply(buildTimestampRequest(DIGEST, 9n))],
  ];
  for (const [name, make] of good) {
    it(name, async () => {
      const { signedData, signerInfoDer, eContent, key } = partsOf(await make());
      const info = decodeSignerInfo(signerInfoDer)!;
      expect(info).toBeDefined();
      expect(await pkijsSignatureVerified(signedData, eContent)).toBe(true);
      expect(signerInfoSignatureValid(info, eContent, TST_INFO, key)).toBe(true);
      // and both refuse the same signature once a byte of it is flipped
      const flipped = { ...info, signature: info.signature.map((b, i) => (i === 10 ? b ^ 1 : b)) };
      expect(signerInfoSignatureValid(flipped, eContent, TST_INFO, key)).toBe(false);
    });
  }
});

describe('each rule fails on its own', () => {
  let base: { info: SignerInfo; eContent: Uint8Array; key: KeyObject };
  beforeAll(async () => {
    const { signerInfoDer, eContent, key } = partsOf(await token(tsa));
    base = { info: decodeSignerInfo(signerInfoDer)!, eContent, key };
    expect(signerInfoSignatureValid(base.info, base.eContent, TST_INFO, base.key)).toBe(true);
  });
  const attrs = () => base.info.signedAttrs!;
  const without = (type: string): SignerInfo => ({
    ...base.info,
    signedAttrs: { ...attrs(), attributes: attrs().attributes.filter((a) => a.type !== type) },
  });
  const twice = (type: string): SignerInfo => ({
    ...base.info,
    signedAttrs: { ...attrs(), attributes: [...attrs().attributes, attrs().attributes.find((a) => a.type === type)!] },
  });

  const cases: [string, () => Parameters<typeof signerInfoSignatureValid>][] = [
    ['no signed attributes', () => [{ ...base.info, signedAttrs: undefined }, base.eContent, TST_INFO, base.key]],
    ['no content-type attribute', () => [without('1.2.840.113549.1.9.3'), base.eContent, TST_INFO, base.key]],
    ['two content-type attributes', () => [twice('1.2.840.113549.1.9.3'), base.eContent, TST_INFO, base.key]],
    ['content type other than expected', () => [base.info, base.eContent, '1.2.840.113549.1.7.1', base.key]],
    ['no message-digest attribute', () => [without('1.2.840.113549.1.9.4'), base.eContent, TST_INFO, base.key]],
    ['two message-digest attributes', () => [twice('1.2.840.113549.1.9.4'), base.eContent, TST_INFO, base.key]],
    [
      'eContent other than digested',
      () => [base.info, Uint8Array.from([...base.eContent.subarray(0, -1), base.eContent.at(-1)! ^ 1]), TST_INFO, base.key],
    ],
    [
      'digest algorithm SHA-1 (not accepted)',
      () => [{ ...base.info, digestAlgorithm: '1.3.14.3.2.26' }, base.eContent, TST_INFO, base.key],
    ],
    [
      'signature algorithm RSASSA-PSS (not accepted)',
      () => [{ ...base.info, signatureAlgorithm: '1.2.840.113549.1.1.10' }, base.eContent, TST_INFO, base.key],
    ],
    [
      'signature algorithm RSA while the key is EC',
      () => [{ ...base.info, signatureAlgorithm: '1.2.840.113549.1.1.11' }, base.eContent, TST_INFO, base.key],
    ],
    ['another EC key', () => [base.info, base.eContent, TST_INFO, otherEcKey()]],
    [
      'a signed attribute byte changed after signing',
      () => {
        const der = attrs().der.slice();
        der[der.length - 3]! ^= 1;
        return [{ ...base.info, signedAttrs: { ...attrs(), der } }, base.eContent, TST_INFO, base.key];
      },
    ],
    [
      'a signature that is not DER for ECDSA',
      () => [{ ...base.info, signature: Uint8Array.from([1, 2, 3]) }, base.eContent, TST_INFO, base.key],
    ],
  ];
  for (const [name, args] of cases) {
    it(name, () => expect(signerInfoSignatureValid(...args())).toBe(false));
  }
});

/** The public key of the no-EKU TSA: EC on the same curve as the signer's, another key. */
function otherEcKey(): KeyObject {
  return createPublicKey(readFileSync(testPkiPaths('tsa-no-eku').cert, 'utf8'));
}

describe('through verifyTimestampToken: tokens a TSA signed but with broken signed attributes', () => {
  const trust = () => loadTsaTrust([readFileSync(testPkiPaths('tsa-root').cert, 'utf8')]);

  it('signed without a message-digest attribute → TSA_SIGNATURE_INVALID only', async () => {
    const response = await token(tsa, { editSignedAttributes: (a, oid) => a.filter((x) => x.type !== oid.messageDigest) });
    const result = await verifyTimestampToken(response, DIGEST, trust());
    expect(result.reason_codes).toEqual(['TSA_SIGNATURE_INVALID']);
  });

  it('signed with the content type id-data → TSA_SIGNATURE_INVALID only', async () => {
    const response = await token(tsa, {
      editSignedAttributes: (a, oid) =>
        a.map((x) =>
          x.type === oid.contentType
            ? new pkijs.Attribute({ type: oid.contentType, values: [new asn1js.ObjectIdentifier({ value: '1.2.840.113549.1.7.1' })] })
            : x,
        ),
    });
    const result = await verifyTimestampToken(response, DIGEST, trust());
    expect(result.reason_codes).toEqual(['TSA_SIGNATURE_INVALID']);
  });
});
