// The operator's key material for a new study (docs/outputs.md, "Signatures"): an Ed25519 key
// whose public half the trust policy pins (manifest.sig), and, because OpenSSL 3.0 and pkijs cannot
// do CMS with an Ed25519 signer, an RSA key for manifest.p7s with a certificate issued by the
// Ed25519 key, followed by the Ed25519 key's self-signed certificate (the CA `openssl cms -verify
// -CAfile` trusts). Certificates are built with pkijs and signed with node:crypto's Ed25519.
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { asn1js, pkijs } from '../vendor/pki.ts';

const OID_ED25519 = '1.3.101.112';
const OID_CN = '2.5.4.3';
const OID_BASIC_CONSTRAINTS = '2.5.29.19';
const OID_KEY_USAGE = '2.5.29.15';
const OID_EXT_KEY_USAGE = '2.5.29.37';
const OID_EMAIL_PROTECTION = '1.3.6.1.5.5.7.3.4';

export interface OperatorKeyFiles {
  /** Ed25519 private key, PKCS#8 PEM: signs manifest.sig. Private: never in the study. */
  operatorKey: string;
  /** Its public half, SPKI PEM: what preregistration/trust/ pins. */
  operatorPublicKey: string;
  /** RSA-2048 private key, PKCS#8 PEM: signs manifest.p7s. Private. */
  cmsKey: string;
  /** The CMS signer's certificate (issued by the operator key), then the operator's self-signed certificate. */
  cmsCert: string;
}

const pem = (label: string, der: Uint8Array) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der).toString('base64').replace(/.{1,64}/g, '$&\n')}-----END ${label}-----\n`;

function name(cn: string): pkijs.RelativeDistinguishedNames {
  return new pkijs.RelativeDistinguishedNames({ typesAndValues: [new pkijs.AttributeTypeAndValue({ type: OID_CN, value: new asn1js.Utf8String({ value: cn }) })] });
}

function extension(extnID: string, value: asn1js.BaseBlock): pkijs.Extension {
  return new pkijs.Extension({ extnID, critical: true, extnValue: value.toBER(false) });
}

/** KeyUsage bits (RFC 5280 §4.2.1.3) as a DER BIT STRING: one byte, unused bits counted. */
function keyUsage(bits: number[]): asn1js.BitString {
  const byte = bits.reduce((b, bit) => b | (0x80 >> bit), 0);
  const unused = 7 - Math.max(...bits);
  return new asn1js.BitString({ valueHex: new Uint8Array([byte]).buffer, unusedBits: unused });
}

function certificate(subject: string, issuer: string, subjectKey: KeyObject, issuerKey: KeyObject, ca: boolean): Uint8Array {
  const cert = new pkijs.Certificate();
  cert.version = 2;
  const serial = randomBytes(12);
  // A positive INTEGER in minimal DER: a first byte in 1..127 (0x00 followed by a byte below 0x80
  // is not DER, and a verifier that re-encodes the certificate would then reject its signature).
  serial[0] = 1 + (serial[0]! % 127);
  cert.serialNumber = new asn1js.Integer({ valueHex: serial.buffer.slice(serial.byteOffset, serial.byteOffset + serial.length) });
  cert.subject = name(subject);
  cert.issuer = name(issuer);
  cert.notBefore = new pkijs.Time({ type: 0, value: new Date(Date.UTC(2020, 0, 1)) });
  // After 2049 a validity date must be a GeneralizedTime (RFC 5280 §4.1.2.5).
  cert.notAfter = new pkijs.Time({ type: 1, value: new Date(Date.UTC(2099, 11, 31, 23, 59, 59)) });
  const spki = subjectKey.export({ format: 'der', type: 'spki' });
  cert.subjectPublicKeyInfo = pkijs.PublicKeyInfo.fromBER(new Uint8Array(spki));
  const constraints = new pkijs.BasicConstraints(ca ? { cA: true, pathLenConstraint: 0 } : { cA: false });
  cert.extensions = [
    extension(OID_BASIC_CONSTRAINTS, constraints.toSchema()),
    // CA: keyCertSign + digitalSignature; signer: digitalSignature + nonRepudiation.
    extension(OID_KEY_USAGE, keyUsage(ca ? [0, 5] : [0, 1])),
    ...(ca ? [] : [new pkijs.Extension({ extnID: OID_EXT_KEY_USAGE, critical: false, extnValue: new pkijs.ExtKeyUsage({ keyPurposes: [OID_EMAIL_PROTECTION] }).toSchema().toBER(false) })]),
  ];
  const algorithm = new pkijs.AlgorithmIdentifier({ algorithmId: OID_ED25519 });
  cert.signature = algorithm;
  cert.signatureAlgorithm = algorithm;
  const tbs = new Uint8Array(cert.encodeTBS().toBER(false));
  cert.tbsView = tbs;
  const signature = sign(null, tbs, issuerKey);
  cert.signatureValue = new asn1js.BitString({ valueHex: signature.buffer.slice(signature.byteOffset, signature.byteOffset + signature.length) });
  return new Uint8Array(cert.toSchema(true).toBER(false));
}

/** Fresh keys and certificates for the operator of `studyId`. */
export function generateOperatorKeys(studyId: string): OperatorKeyFiles {
  const operator = generateKeyPairSync('ed25519');
  const cms = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const operatorName = `${studyId} operator`;
  const operatorCert = certificate(operatorName, operatorName, operator.publicKey, operator.privateKey, true);
  const cmsCert = certificate(`${studyId} operator CMS signer`, operatorName, cms.publicKey, operator.privateKey, false);
  return {
    operatorKey: operator.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    operatorPublicKey: operator.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    cmsKey: cms.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    cmsCert: pem('CERTIFICATE', cmsCert) + pem('CERTIFICATE', operatorCert),
  };
}
