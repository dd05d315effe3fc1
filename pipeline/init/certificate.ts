// X.509 certificates (RFC 5280) issued in-process with pkijs, signed with node:crypto: the
// operator's CMS chain (init/operator-keys.ts) and the rehearsal's TEST-ONLY TSA chain
// (dev/kit.ts). The issuer's key decides the signature: Ed25519, or ECDSA with SHA-256.
import { randomBytes, sign, type KeyObject } from 'node:crypto';
import { asn1js, pkijs } from '../vendor/pki.ts';

const OID_ED25519 = '1.3.101.112';
const OID_ECDSA_SHA256 = '1.2.840.10045.4.3.2';
const OID_CN = '2.5.4.3';
const OID_BASIC_CONSTRAINTS = '2.5.29.19';
const OID_KEY_USAGE = '2.5.29.15';
const OID_EXT_KEY_USAGE = '2.5.29.37';
export const OID_EMAIL_PROTECTION = '1.3.6.1.5.5.7.3.4';
/** id-kp-timeStamping (RFC 3161 §2.3: the TSA certificate carries it alone, critical). */
export const OID_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';

export const pem = (label: string, der: Uint8Array) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der)
    .toString('base64')
    .replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;

function name(cn: string): pkijs.RelativeDistinguishedNames {
  return new pkijs.RelativeDistinguishedNames({
    typesAndValues: [new pkijs.AttributeTypeAndValue({ type: OID_CN, value: new asn1js.Utf8String({ value: cn }) })],
  });
}

function extension(extnID: string, value: asn1js.BaseBlock, critical = true): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical, extnValue: value.toBER(false) });
}

/** KeyUsage bits (RFC 5280 §4.2.1.3) as a DER BIT STRING: one byte, unused bits counted. */
function keyUsage(bits: number[]): asn1js.BitString {
  const byte = bits.reduce((b, bit) => b | (0x80 >> bit), 0);
  const unused = 7 - Math.max(...bits);
  return new asn1js.BitString({ valueHex: new Uint8Array([byte]).buffer, unusedBits: unused });
}

export interface CertificateRequest {
  subject: string;
  issuer: string;
  subjectKey: KeyObject;
  /** The issuer's private key: Ed25519 or EC P-256. */
  issuerKey: KeyObject;
  ca: boolean;
  /** A leaf's extended key usage and whether it is critical. */
  extendedKeyUsage?: { purpose: string; critical: boolean };
}

/** A DER certificate valid from 2020-01-01 to 2099-12-31. */
export function issueCertificate(r: CertificateRequest): Uint8Array {
  const cert = new pkijs.Certificate();
  cert.version = 2;
  const serial = randomBytes(12);
  // A positive INTEGER in minimal DER: a first byte in 1..127 (0x00 followed by a byte below 0x80
  // is not DER, and a verifier that re-encodes the certificate would then reject its signature).
  serial[0] = 1 + (serial[0]! % 127);
  cert.serialNumber = new asn1js.Integer({ valueHex: serial.buffer.slice(serial.byteOffset, serial.byteOffset + serial.length) });
  cert.subject = name(r.subject);
  cert.issuer = name(r.issuer);
  cert.notBefore = new pkijs.Time({ type: 0, value: new Date(Date.UTC(2020, 0, 1)) });
  // After 2049 a validity date must be a GeneralizedTime (RFC 5280 §4.1.2.5).
  cert.notAfter = new pkijs.Time({ type: 1, value: new Date(Date.UTC(2099, 11, 31, 23, 59, 59)) });
  const spki = r.subjectKey.export({ format: 'der', type: 'spki' });
  cert.subjectPublicKeyInfo = pkijs.PublicKeyInfo.fromBER(new Uint8Array(spki));
  const constraints = new pkijs.BasicConstraints(r.ca ? { cA: true, pathLenConstraint: 0 } : { cA: false });
  cert.extensions = [
    extension(OID_BASIC_CONSTRAINTS, constraints.toSchema()),
    // CA: keyCertSign + digitalSignature; signer: digitalSignature + nonRepudiation.
    extension(OID_KEY_USAGE, keyUsage(r.ca ? [0, 5] : [0, 1])),
    ...(r.extendedKeyUsage
      ? [
          extension(
            OID_EXT_KEY_USAGE,
            new pkijs.ExtKeyUsage({ keyPurposes: [r.extendedKeyUsage.purpose] }).toSchema(),
            r.extendedKeyUsage.critical,
          ),
        ]
      : []),
  ];
  const ed25519 = r.issuerKey.asymmetricKeyType === 'ed25519';
  if (!ed25519 && r.issuerKey.asymmetricKeyType !== 'ec')
    throw new TypeError(`issueCertificate: an Ed25519 or EC issuer key, not ${r.issuerKey.asymmetricKeyType}`);
  const algorithm = new pkijs.AlgorithmIdentifier({ algorithmId: ed25519 ? OID_ED25519 : OID_ECDSA_SHA256 });
  cert.signature = algorithm;
  cert.signatureAlgorithm = algorithm;
  const tbs = new Uint8Array(cert.encodeTBS().toBER(false));
  cert.tbsView = tbs;
  // ECDSA: node:crypto writes the DER Ecdsa-Sig-Value X.509 expects.
  const signature = sign(ed25519 ? null : 'sha256', tbs, r.issuerKey);
  cert.signatureValue = new asn1js.BitString({
    valueHex: signature.buffer.slice(signature.byteOffset, signature.byteOffset + signature.length),
  });
  return new Uint8Array(cert.toSchema(true).toBER(false));
}
