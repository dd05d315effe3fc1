// The two signatures over manifest.json (SPEC §7), both going back to the one operator key pinned
// in preregistration/trust/ (policy.json operator_public_key):
//
// - manifest.sig: raw 64-byte Ed25519 (RFC 8032) signature over the exact manifest.json bytes,
//   made with the operator key itself; `openssl pkeyutl -verify -rawin` checks it.
// - manifest.p7s: detached CMS SignedData (RFC 5652), DER, built with pkijs, signed by an RSA key
//   whose certificate the operator key issued. OpenSSL 3.0 cannot sign or verify CMS with Ed25519
//   signers and pkijs has no Ed25519 either, so the CMS signer is RSA (PKCS#1 v1.5, SHA-256:
//   deterministic, so two emits give identical bytes), and its certificate — checked here to be
//   signed by the pinned key — binds it to the operator. Signed attributes are contentType and
//   messageDigest only: no signingTime, as no clock enters the outputs.
import {
  createPrivateKey,
  createPublicKey,
  sign as cryptoSign,
  verify as cryptoVerify,
  createHash,
  X509Certificate,
  type KeyObject,
} from 'node:crypto';
import { asn1js, pkijs } from '../vendor/pki.ts';
import { PreregError } from '../reasons.ts';
import type { PinnedOperatorKey } from '../study/operator-key.ts';

const OID_DATA = '1.2.840.113549.1.7.1';
const OID_CONTENT_TYPE = '1.2.840.113549.1.9.3';
const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';

/** The PEM texts of the operator's keys, as the stage read them. */
export interface OperatorKeyPems {
  /** Ed25519 private key (PKCS#8 PEM): signs manifest.sig. */
  operatorKey: string;
  /** RSA private key (PEM): signs manifest.p7s. */
  cmsKey: string;
  /** The CMS signer's certificate (PEM), optionally followed by its chain (embedded in manifest.p7s). */
  cmsCert: string;
}

export interface OperatorKeys {
  ed25519: KeyObject;
  cmsKey: KeyObject;
  /** DER certificates: the signer first. */
  cmsCerts: Buffer[];
}

function spki(key: KeyObject): Buffer {
  return key.export({ format: 'der', type: 'spki' });
}

function pemCertificates(pem: string): Buffer[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]*?)-----END CERTIFICATE-----/g)].map((m) =>
    Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64'),
  );
}

function cmsInvalid(message: string): PreregError {
  return new PreregError('OPERATOR_CMS_INVALID', message);
}

/** Parses the keys; the checks against the pinned key are checkOperatorKeys'. */
export function loadOperatorKeys(pems: OperatorKeyPems): OperatorKeys {
  let ed25519: KeyObject;
  try {
    ed25519 = createPrivateKey(pems.operatorKey);
  } catch {
    throw new PreregError('OPERATOR_KEY_INVALID', 'the operator key is not a PEM private key');
  }
  if (ed25519.asymmetricKeyType !== 'ed25519') {
    throw new PreregError('OPERATOR_KEY_INVALID', `the operator key is ${ed25519.asymmetricKeyType ?? 'unknown'}, not Ed25519`);
  }
  let cmsKey: KeyObject;
  try {
    cmsKey = createPrivateKey(pems.cmsKey);
  } catch {
    throw cmsInvalid('the CMS key is not a PEM private key');
  }
  if (cmsKey.asymmetricKeyType !== 'rsa') {
    throw cmsInvalid(
      `the CMS key is ${cmsKey.asymmetricKeyType ?? 'unknown'}; it must be RSA (PKCS#1 v1.5 signatures are deterministic, so outputs stay byte-identical)`,
    );
  }
  const cmsCerts = pemCertificates(pems.cmsCert);
  if (cmsCerts.length === 0) throw cmsInvalid('the CMS certificate file holds no PEM certificate');
  return { ed25519, cmsKey, cmsCerts };
}

/**
 * Refuses before anything is written: the operator key must be the pinned one
 * (OPERATOR_KEY_MISMATCH), the CMS certificate must carry the CMS key and be issued by the pinned
 * key (OPERATOR_CMS_INVALID).
 */
export function checkOperatorKeys(keys: OperatorKeys, pinned: PinnedOperatorKey): void {
  if (!spki(createPublicKey(keys.ed25519)).equals(spki(pinned.key))) {
    throw new PreregError('OPERATOR_KEY_MISMATCH', `the operator key's public half is not the one pinned in ${pinned.file}`);
  }
  let signer: X509Certificate;
  try {
    signer = new X509Certificate(keys.cmsCerts[0]!);
  } catch {
    throw cmsInvalid('the first certificate of the CMS certificate file does not parse');
  }
  if (!spki(signer.publicKey).equals(spki(createPublicKey(keys.cmsKey)))) {
    throw cmsInvalid(`the CMS certificate (${signer.subject.replaceAll('\n', ', ')}) does not carry the CMS key`);
  }
  if (!signer.verify(pinned.key)) {
    throw cmsInvalid(
      `the CMS certificate (${signer.subject.replaceAll('\n', ', ')}) was not issued by the operator key pinned in ${pinned.file}`,
    );
  }
}

/** manifest.sig: 64 raw bytes, Ed25519 over the exact bytes given. */
export function signEd25519(keys: OperatorKeys, data: Uint8Array): Buffer {
  const signature = cryptoSign(null, data, keys.ed25519);
  // Checked at once: a signature that does not verify must never be published.
  if (!cryptoVerify(null, data, createPublicKey(keys.ed25519), signature)) throw new Error('Ed25519 signature does not verify');
  return signature;
}

const OID_SHA256 = '2.16.840.1.101.3.4.2.1';
const OID_SHA256_WITH_RSA = '1.2.840.113549.1.1.11';

/** An AlgorithmIdentifier: with NULL parameters for the digest, none for the signature (as pkijs wrote them). */
function algorithm(oid: string, nullParameters: boolean): pkijs.AlgorithmIdentifier {
  return new pkijs.AlgorithmIdentifier(nullParameters ? { algorithmId: oid, algorithmParams: new asn1js.Null() } : { algorithmId: oid });
}

/** The signed attributes over `data`: contentType id-data and messageDigest SHA-256(data), DER. */
function signedAttributes(data: Uint8Array): pkijs.SignedAndUnsignedAttributes {
  const digest = createHash('sha256').update(data).digest();
  return new pkijs.SignedAndUnsignedAttributes({
    type: 0,
    // DER orders a SET OF by encoding: contentType (shorter) before messageDigest.
    attributes: [
      new pkijs.Attribute({ type: OID_CONTENT_TYPE, values: [new asn1js.ObjectIdentifier({ value: OID_DATA })] }),
      new pkijs.Attribute({ type: OID_MESSAGE_DIGEST, values: [new asn1js.OctetString({ valueHex: digest })] }),
    ],
  });
}

/** What the RSA signature covers (RFC 5652 §5.4): the signed attributes encoded as an explicit SET. */
export function cmsSignedBytes(data: Uint8Array): Buffer {
  const der = Buffer.from(signedAttributes(data).toSchema().toBER(false));
  der[0] = 0x31; // [0] IMPLICIT in SignerInfo, SET OF when signed
  return der;
}

/**
 * The one DER encoding of manifest.p7s for these certificates (the signer first), content and
 * signature value: emit writes it, and the audit rebuilds it from the file's certificates and
 * signature to compare byte for byte, so no byte of the file escapes a check.
 */
export function assembleCmsDetached(certificateDers: readonly Uint8Array[], data: Uint8Array, signature: Uint8Array): Buffer {
  const certificates = certificateDers.map((der) => pkijs.Certificate.fromBER(new Uint8Array(der)));
  const signer = certificates[0]!;
  const signedData = new pkijs.SignedData({
    version: 1,
    digestAlgorithms: [algorithm(OID_SHA256, true)],
    encapContentInfo: new pkijs.EncapsulatedContentInfo({ eContentType: OID_DATA }),
    signerInfos: [
      new pkijs.SignerInfo({
        version: 1,
        sid: new pkijs.IssuerAndSerialNumber({ issuer: signer.issuer, serialNumber: signer.serialNumber }),
        digestAlgorithm: algorithm(OID_SHA256, true),
        signedAttrs: signedAttributes(data),
        signatureAlgorithm: algorithm(OID_SHA256_WITH_RSA, false),
        signature: new asn1js.OctetString({ valueHex: new Uint8Array(signature) }),
      }),
    ],
    certificates,
  });
  const contentInfo = new pkijs.ContentInfo({ contentType: pkijs.ContentInfo.SIGNED_DATA, content: signedData.toSchema(true) });
  return Buffer.from(contentInfo.toSchema().toBER(false));
}

/** manifest.p7s: detached CMS SignedData over the exact bytes given, DER (RSA PKCS#1 v1.5, SHA-256). */
export async function signCmsDetached(keys: OperatorKeys, data: Uint8Array): Promise<Buffer> {
  const signature = cryptoSign('sha256', cmsSignedBytes(data), keys.cmsKey);
  return assembleCmsDetached(keys.cmsCerts, data, signature);
}
