// A real RFC 3161 TSA built on pkijs/asn1js (the same ASN.1 library the verifier uses, but the
// signing side): answers a DER TimeStampReq with a signed DER TimeStampResp. TEST-ONLY: the
// rehearsal's `prereg dev tsa` and `dev issue` (docs/getting-started.md), the tests and the script that
// rebuilds the example study sign with it; no study ever trusts it implicitly.
//
// genTime is CHOSEN by the caller (exactly, to the fraction), so tokens can be minted for a study
// window that is consistent. Options produce the bad tokens the tests need (no ESSCertIDv2,
// another certificate's hash, …); a token signed with the no-EKU certificate needs only another signer.
import { createHash, randomBytes } from 'node:crypto';
import { asn1js, pkijs } from '../../vendor/pki.ts';

const OID = {
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signingCertificate: '1.2.840.113549.1.9.16.2.12',
  signingCertificateV2: '1.2.840.113549.1.9.16.2.47',
  rsaEncryption: '1.2.840.113549.1.1.1',
  ecPublicKey: '1.2.840.10045.2.1',
} as const;

const HASH_BY_OID: Readonly<Record<string, string>> = {
  '2.16.840.1.101.3.4.2.1': 'SHA-256',
  '2.16.840.1.101.3.4.2.2': 'SHA-384',
  '2.16.840.1.101.3.4.2.3': 'SHA-512',
};

const CURVES: Readonly<Record<string, string>> = {
  '1.2.840.10045.3.1.7': 'P-256',
  '1.3.132.0.34': 'P-384',
  '1.3.132.0.35': 'P-521',
};

/** Policy OID the test TSAs use (an arbitrary test arc, as in OpenSSL's examples). */
export const TEST_TSA_POLICY = '1.2.3.4.1';

export interface TsaSigner {
  certificate: pkijs.Certificate;
  certificateDer: Uint8Array;
  /** Further certificates to embed after the signer's (intermediates); the root is never needed. */
  chain: pkijs.Certificate[];
  privateKey: CryptoKey;
}

/** A signer from PEM texts: a certificate and its unencrypted PKCS#8 key (RSA or EC). */
export async function loadTsaSigner(certPem: string, keyPem: string, chainPems: string[] = []): Promise<TsaSigner> {
  const certificateDer = pemBlocks(certPem, 'CERTIFICATE')[0];
  const keyDer = pemBlocks(keyPem, 'PRIVATE KEY')[0];
  if (!certificateDer || !keyDer) throw new Error('loadTsaSigner: need a CERTIFICATE and a PRIVATE KEY (PKCS#8) PEM');
  const certificate = pkijs.Certificate.fromBER(certificateDer);
  const spki = certificate.subjectPublicKeyInfo.algorithm;
  let algorithm: RsaHashedImportParams | EcKeyImportParams;
  if (spki.algorithmId === OID.rsaEncryption) {
    algorithm = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  } else if (spki.algorithmId === OID.ecPublicKey) {
    const curveOid = spki.algorithmParams instanceof asn1js.ObjectIdentifier ? spki.algorithmParams.valueBlock.toString() : '';
    const namedCurve = CURVES[curveOid];
    if (!namedCurve) throw new Error(`loadTsaSigner: unsupported EC curve ${curveOid}`);
    algorithm = { name: 'ECDSA', namedCurve };
  } else {
    throw new Error(`loadTsaSigner: unsupported key algorithm ${spki.algorithmId}`);
  }
  const privateKey = await globalThis.crypto.subtle.importKey('pkcs8', keyDer, algorithm, false, ['sign']);
  const chain = chainPems.flatMap((pem) => pemBlocks(pem, 'CERTIFICATE').map((der) => pkijs.Certificate.fromBER(der)));
  return { certificate, certificateDer, chain, privateKey };
}

export interface IssueOptions {
  /**
   * The genTime written into TSTInfo, exactly: an ISO-8601 UTC string ('2024-05-01T08:31:00Z',
   * fractions kept as given, e.g. '…:00.25Z') or a Date (milliseconds kept unless zero).
   */
  genTime: string | Date;
  /** TSTInfo serialNumber; default 64 random bits. */
  serialNumber?: bigint;
  /** TSA policy OID; default the request's reqPolicy, else TEST_TSA_POLICY. */
  policy?: string;
  /** Signing-certificate attribute(s) to include: ESSCertIDv2 (default), ESSCertID, both, or none. */
  essCertId?: 'v2' | 'v1' | 'both' | 'none';
  /** Hash this DER in the ESSCertID(v2) instead of the signer's certificate (an unbound token). */
  essCertIdCertificateDer?: Uint8Array;
  /** Put this serial number in the ESSCertID(v2) issuerSerial instead of the signer's. */
  essCertIdSerialNumber?: bigint;
  /** Embed the signer certificate (and chain); default: as the request's certReq asks. */
  includeCertificates?: boolean;
  /** Digest of the CMS signature; default SHA-256. */
  signatureHash?: 'SHA-256' | 'SHA-384' | 'SHA-512';
  /** Changes the signed attributes before signing (a token a real TSA would not issue), by OID. */
  editSignedAttributes?: (attributes: pkijs.Attribute[], oids: { contentType: string; messageDigest: string }) => pkijs.Attribute[];
  /** TSTInfo tsa field = the signer's subject; default true. */
  tsaName?: boolean;
  accuracy?: { seconds?: number; millis?: number; micros?: number };
  /** Answer an imprint under any hash algorithm (SHA-1, MD5…), as an old or careless TSA would; default false. */
  anyImprintAlgorithm?: boolean;
}

/** PKIFailureInfo bits, RFC 3161 §2.4.2. */
export const FAILURE_INFO = {
  badAlg: 0,
  badRequest: 2,
  badDataFormat: 5,
  timeNotAvailable: 14,
  unacceptedPolicy: 15,
  unacceptedExtension: 16,
  addInfoNotAvailable: 17,
  systemFailure: 25,
} as const;
export type FailureInfo = keyof typeof FAILURE_INFO;

/**
 * Answer a DER TimeStampReq with a DER TimeStampResp (RFC 3161 §2.4.2): status granted and a
 * token whose TSTInfo echoes the imprint and nonce, signed by `signer`. A request that does not
 * parse, or uses a hash other than SHA-256/384/512, gets a rejection response, as a TSA would.
 */
export async function issueTimestampResponse(request: Uint8Array, signer: TsaSigner, options: IssueOptions): Promise<Uint8Array> {
  let req: pkijs.TimeStampReq;
  try {
    req = pkijs.TimeStampReq.fromBER(new Uint8Array(request));
  } catch {
    return rejectionResponse('badDataFormat', 'request is not a DER TimeStampReq');
  }
  if (!options.anyImprintAlgorithm && !HASH_BY_OID[req.messageImprint.hashAlgorithm.algorithmId]) {
    return rejectionResponse('badAlg', `unsupported hash ${req.messageImprint.hashAlgorithm.algorithmId}`);
  }
  const token = await issueToken(req, signer, options);
  const response = new pkijs.TimeStampResp({
    status: new pkijs.PKIStatusInfo({ status: pkijs.PKIStatus.granted }),
    timeStampToken: token,
  });
  return new Uint8Array(response.toSchema().toBER(false));
}

/** A TimeStampResp with PKIStatus rejection (2) or another non-granted status, and no token. */
export function rejectionResponse(failInfo: FailureInfo, text: string, status = 2): Uint8Array {
  const bit = FAILURE_INFO[failInfo];
  const bits = new Uint8Array((bit >> 3) + 1);
  bits[bit >> 3] = 0x80 >> (bit & 7);
  const statusInfo = new pkijs.PKIStatusInfo({
    status,
    statusStrings: [new asn1js.Utf8String({ value: text })],
    failInfo: new asn1js.BitString({ valueHex: bits, unusedBits: 7 - (bit & 7) }),
  });
  return new Uint8Array(new pkijs.TimeStampResp({ status: statusInfo }).toSchema().toBER(false));
}

/** The bare TimeStampToken (ContentInfo DER) inside a granted TimeStampResp. */
export function timeStampTokenOf(response: Uint8Array): Uint8Array {
  const resp = pkijs.TimeStampResp.fromBER(new Uint8Array(response));
  if (!resp.timeStampToken) throw new Error('timeStampTokenOf: the response carries no token');
  return new Uint8Array(resp.timeStampToken.toSchema().toBER(false));
}

async function issueToken(req: pkijs.TimeStampReq, signer: TsaSigner, options: IssueOptions): Promise<pkijs.ContentInfo> {
  const hash = options.signatureHash ?? 'SHA-256';
  const genTime = generalizedTimeText(options.genTime);
  const tstInfo = new pkijs.TSTInfo({
    version: 1,
    policy: options.policy ?? req.reqPolicy ?? TEST_TSA_POLICY,
    messageImprint: req.messageImprint,
    serialNumber: asn1js.Integer.fromBigInt(options.serialNumber ?? BigInt(`0x${randomBytes(8).toString('hex')}`) + 1n),
    genTime: new Date(0), // replaced below by the exact text
    ...(options.accuracy ? { accuracy: new pkijs.Accuracy(options.accuracy) } : {}),
    ...(req.nonce ? { nonce: req.nonce } : {}),
    ...(options.tsaName === false ? {} : { tsa: new pkijs.GeneralName({ type: 4, value: signer.certificate.subject }) }),
  });
  const tstSchema = tstInfo.toSchema();
  // pkijs writes genTime from a Date (milliseconds at most, always three digits): write the text.
  tstSchema.valueBlock.value[4] = new asn1js.GeneralizedTime({ value: genTime });
  const tstDer = new Uint8Array(tstSchema.toBER(false));

  const attributes = [
    new pkijs.Attribute({ type: OID.contentType, values: [new asn1js.ObjectIdentifier({ value: OID.tstInfo })] }),
    new pkijs.Attribute({
      type: OID.messageDigest,
      values: [new asn1js.OctetString({ valueHex: nodeHash(hash, tstDer) })],
    }),
    new pkijs.Attribute({ type: OID.signingTime, values: [signingTime(generalizedTimeDate(genTime))] }),
  ];
  const essMode = options.essCertId ?? 'v2';
  const boundDer = options.essCertIdCertificateDer ?? signer.certificateDer;
  if (essMode === 'v2' || essMode === 'both') {
    attributes.push(new pkijs.Attribute({ type: OID.signingCertificateV2, values: [essCertIds(boundDer, signer, 'v2', options)] }));
  }
  if (essMode === 'v1' || essMode === 'both') {
    attributes.push(new pkijs.Attribute({ type: OID.signingCertificate, values: [essCertIds(boundDer, signer, 'v1', options)] }));
  }
  if (options.editSignedAttributes) {
    attributes.splice(
      0,
      attributes.length,
      ...options.editSignedAttributes(attributes, { contentType: OID.contentType, messageDigest: OID.messageDigest }),
    );
  }
  // DER SET OF: elements sorted by their encodings (X.690 §11.6), so verifiers that re-encode
  // the signed attributes (OpenSSL does) hash the same bytes that were signed.
  attributes.sort((a, b) => Buffer.compare(derOf(a.toSchema()), derOf(b.toSchema())));

  const includeCertificates = options.includeCertificates ?? req.certReq === true;
  const encapContentInfo = new pkijs.EncapsulatedContentInfo({ eContentType: OID.tstInfo });
  // Set after construction: pkijs's constructor turns a primitive eContent into a constructed
  // (BER) OCTET STRING; real TSAs send the DER primitive one.
  encapContentInfo.eContent = new asn1js.OctetString({ valueHex: tstDer });
  const signedData = new pkijs.SignedData({
    version: 3,
    encapContentInfo,
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({
          issuer: signer.certificate.issuer,
          serialNumber: signer.certificate.serialNumber,
        }),
        signedAttrs: new pkijs.SignedAndUnsignedAttributes({ type: 0, attributes }),
      }),
    ],
    ...(includeCertificates ? { certificates: [signer.certificate, ...signer.chain] } : {}),
  });
  await signedData.sign(signer.privateKey, 0, hash);
  return new pkijs.ContentInfo({ contentType: OID.signedData, content: signedData.toSchema(true) });
}

/** SigningCertificate(V2) ::= SEQUENCE { certs SEQUENCE OF ESSCertID(v2) } with issuerSerial. */
function essCertIds(certDer: Uint8Array, signer: TsaSigner, version: 'v1' | 'v2', options: IssueOptions): asn1js.Sequence {
  const serialNumber =
    options.essCertIdSerialNumber === undefined
      ? new asn1js.Integer({ valueHex: signer.certificate.serialNumber.valueBlock.valueHexView })
      : asn1js.Integer.fromBigInt(options.essCertIdSerialNumber);
  const issuerSerial = new pkijs.IssuerSerial({
    issuer: new pkijs.GeneralNames({ names: [new pkijs.GeneralName({ type: 4, value: signer.certificate.issuer })] }),
    serialNumber,
  });
  // ESSCertIDv2's hashAlgorithm is DEFAULT id-sha256, so DER omits it.
  const certHash = new asn1js.OctetString({ valueHex: nodeHash(version === 'v2' ? 'SHA-256' : 'SHA-1', certDer) });
  return new asn1js.Sequence({
    value: [new asn1js.Sequence({ value: [new asn1js.Sequence({ value: [certHash, issuerSerial.toSchema()] })] })],
  });
}

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?Z$/;

/** '2024-05-01T08:31:00.250Z' → '20240501083100.25Z' (RFC 3161 §2.4.2: no trailing zeros in the fraction). */
function generalizedTimeText(genTime: string | Date): string {
  const iso = typeof genTime === 'string' ? genTime : genTime.toISOString();
  const m = ISO_UTC.exec(iso);
  if (!m) throw new Error(`genTime must be ISO-8601 UTC like 2024-05-01T08:31:00Z, got ${iso}`);
  const fraction = (m[7] ?? '').replace(/0+$/, '');
  return `${m[1]}${m[2]}${m[3]}${m[4]}${m[5]}${m[6]}${fraction ? `.${fraction}` : ''}Z`;
}

/** RFC 5652 §11.3: UTCTime for 1950–2049, GeneralizedTime otherwise. */
function signingTime(date: Date): asn1js.UTCTime | asn1js.GeneralizedTime {
  const year = date.getUTCFullYear();
  return year >= 1950 && year < 2050 ? new asn1js.UTCTime({ valueDate: date }) : new asn1js.GeneralizedTime({ valueDate: date });
}

function generalizedTimeDate(text: string): Date {
  const iso = `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}T${text.slice(8, 10)}:${text.slice(10, 12)}:${text.slice(12, 14)}Z`;
  return new Date(iso);
}

function nodeHash(name: string, data: Uint8Array): Uint8Array<ArrayBuffer> {
  return new Uint8Array(createHash(name.replace('-', '').toLowerCase()).update(data).digest());
}

function derOf(schema: asn1js.AsnType): Buffer {
  return Buffer.from(schema.toBER(false));
}

function pemBlocks(text: string, label: string): Uint8Array<ArrayBuffer>[] {
  const re = new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`, 'g');
  return [...text.matchAll(re)].map((m) => new Uint8Array(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')));
}
