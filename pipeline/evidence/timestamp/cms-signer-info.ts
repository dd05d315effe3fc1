// The CMS SignerInfo of an RFC 3161 token (RFC 5652 §5.3), decoded by hand from its DER, and its
// signature checked with node:crypto (RFC 5652 §5.4, §5.6). Every proof of a study carries a
// token: pkijs's SignerInfo parser and SignedData.verify (asn1js underneath, the key imported and
// the signed attributes re-encoded per call) cost ≈ 0.6 ms of the ≈ 1 ms a token took here.
//
// SignerInfo ::= SEQUENCE { version CMSVersion, sid SignerIdentifier, digestAlgorithm,
//   signedAttrs [0] IMPLICIT SignedAttributes OPTIONAL, signatureAlgorithm, signature OCTET STRING,
//   unsignedAttrs [1] IMPLICIT UnsignedAttributes OPTIONAL }
// SignerIdentifier ::= CHOICE { issuerAndSerialNumber SEQUENCE { issuer Name, serialNumber INTEGER },
//   subjectKeyIdentifier [0] IMPLICIT OCTET STRING }
// Attribute ::= SEQUENCE { attrType OBJECT IDENTIFIER, attrValues SET OF ANY }
//
// Signature algorithms accepted: ECDSA with SHA-256/384/512, RSA PKCS#1 v1.5 with SHA-256/384/512
// (also given as rsaEncryption / id-ecPublicKey with the digest algorithm's hash), Ed25519. One
// that hashes with SHA-1 or MD5 is weak (signerInfoHashWeak; rfc3161.ts reports TSA_HASH_WEAK and
// does not check it); any other (RSASSA-PSS, …) fails the signature check (docs/proofs.md).
import { hash, type KeyObject } from 'node:crypto';
import { checkOnThisThread, type SignatureCheck } from '../signature-check.ts';
import { HASH_ALGORITHMS, isSha2 } from '../../formats/hash-algorithms.ts';
import {
  algorithmIdentifierOid,
  children,
  contents,
  decodeOid,
  elementBytes,
  isContext,
  isUniversal,
  readWhole,
  TAG,
  type DerElement,
} from '../../formats/der.ts';

export interface CmsAttribute {
  type: string;
  /** Each value's DER. */
  values: Uint8Array[];
}

export type SignerIdentifier =
  | { kind: 'issuerAndSerialNumber' /** DER of the issuer Name. */; issuer: Uint8Array /** INTEGER contents. */; serial: Uint8Array }
  | { kind: 'subjectKeyIdentifier'; keyId: Uint8Array };

export interface SignerInfo {
  sid: SignerIdentifier;
  digestAlgorithm: string;
  /** The signed attributes: the [0] element as carried, and its attributes in order. */
  signedAttrs?: { der: Uint8Array; attributes: CmsAttribute[] };
  signatureAlgorithm: string;
  signature: Uint8Array;
}

export const CMS_OID = {
  contentType: '1.2.840.113549.1.9.3',
  messageDigest: '1.2.840.113549.1.9.4',
} as const;

export function decodeSignerInfo(der: Uint8Array): SignerInfo | undefined {
  const root = readWhole(der);
  const fields = root && isUniversal(root, TAG.sequence, true) ? children(der, root) : undefined;
  if (!fields) return undefined;
  const [version, sidElement, digestAlgorithm] = fields;
  if (!isUniversal(version, TAG.integer, false) || !sidElement) return undefined;
  const sid = signerIdentifier(der, sidElement);
  const digest = algorithmIdentifierOid(der, digestAlgorithm);
  if (!sid || digest === undefined) return undefined;
  let i = 3;
  let signedAttrs: SignerInfo['signedAttrs'];
  if (isContext(fields[i], 0)) {
    const attributes = attributeSet(der, fields[i]!);
    if (!attributes) return undefined;
    signedAttrs = { der: elementBytes(der, fields[i]!), attributes };
    i++;
  }
  const signatureAlgorithm = algorithmIdentifierOid(der, fields[i++]);
  const signature = fields[i++];
  if (signatureAlgorithm === undefined || !isUniversal(signature, TAG.octetString, false)) return undefined;
  if (isContext(fields[i], 1)) i++;
  if (i !== fields.length) return undefined;
  return {
    sid,
    digestAlgorithm: digest,
    ...(signedAttrs ? { signedAttrs } : {}),
    signatureAlgorithm,
    signature: contents(der, signature),
  };
}

function signerIdentifier(der: Uint8Array, element: DerElement): SignerIdentifier | undefined {
  if (element.tagClass === 0) {
    const parts = isUniversal(element, TAG.sequence, true) ? children(der, element) : undefined;
    if (!parts || parts.length !== 2 || !isUniversal(parts[0], TAG.sequence, true) || !isUniversal(parts[1], TAG.integer, false))
      return undefined;
    return { kind: 'issuerAndSerialNumber', issuer: elementBytes(der, parts[0]), serial: contents(der, parts[1]) };
  }
  if (element.tagClass === 2 && element.tagNumber === 0) {
    if (!element.constructed) return { kind: 'subjectKeyIdentifier', keyId: contents(der, element) };
    // BER allows the OCTET STRING constructed: one primitive segment is what a signer writes.
    const inner = children(der, element);
    if (inner?.length === 1 && isUniversal(inner[0], TAG.octetString, false))
      return { kind: 'subjectKeyIdentifier', keyId: contents(der, inner[0]) };
  }
  return undefined;
}

function attributeSet(der: Uint8Array, set: DerElement): CmsAttribute[] | undefined {
  const elements = children(der, set);
  if (!elements) return undefined;
  const out: CmsAttribute[] = [];
  for (const attribute of elements) {
    const parts = isUniversal(attribute, TAG.sequence, true) ? children(der, attribute) : undefined;
    if (!parts || parts.length !== 2 || !isUniversal(parts[0], TAG.oid, false) || !isUniversal(parts[1], TAG.set, true)) return undefined;
    const type = decodeOid(contents(der, parts[0]));
    const values = children(der, parts[1]);
    if (type === undefined || !values) return undefined;
    out.push({ type, values: values.map((v) => elementBytes(der, v)) });
  }
  return out;
}

/** Digest algorithms accepted for the message digest, by OID, as node:crypto names them: SHA-2 only. */
const DIGESTS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(HASH_ALGORITHMS).flatMap(([oid, h]) => (isSha2(h.node) ? [[oid, h.node]] : [])),
);

/** Signature algorithms: the key type they need and their hash ('digest': the digestAlgorithm's; null: none). */
const SIGNATURES: Readonly<Record<string, { keyType: 'ec' | 'rsa' | 'ed25519'; hash: string | 'digest' | null }>> = {
  '1.2.840.10045.4.3.2': { keyType: 'ec', hash: 'sha256' },
  '1.2.840.10045.4.3.3': { keyType: 'ec', hash: 'sha384' },
  '1.2.840.10045.4.3.4': { keyType: 'ec', hash: 'sha512' },
  '1.2.840.10045.2.1': { keyType: 'ec', hash: 'digest' },
  '1.2.840.113549.1.1.11': { keyType: 'rsa', hash: 'sha256' },
  '1.2.840.113549.1.1.12': { keyType: 'rsa', hash: 'sha384' },
  '1.2.840.113549.1.1.13': { keyType: 'rsa', hash: 'sha512' },
  '1.2.840.113549.1.1.1': { keyType: 'rsa', hash: 'digest' },
  '1.3.101.112': { keyType: 'ed25519', hash: null },
};

/**
 * Signature algorithms that hash with SHA-1 or MD5 (RFC 3279, RFC 8017): a signature over a hash
 * that admits collisions can be carried over to another TSTInfo, so the token binds nothing.
 */
const WEAK_SIGNATURES: ReadonlySet<string> = new Set([
  '1.2.840.113549.1.1.4', // md5WithRSAEncryption
  '1.2.840.113549.1.1.5', // sha1WithRSAEncryption
  '1.3.14.3.2.29', // sha1WithRSAEncryption (OIW)
  '1.2.840.10045.4.1', // ecdsa-with-SHA1
  '1.2.840.10040.4.3', // dsa-with-sha1
]);
const WEAK_DIGESTS: ReadonlySet<string> = new Set(['1.3.14.3.2.26' /* SHA-1 */, '1.2.840.113549.2.5' /* MD5 */]);

/** Whether the SignerInfo's digest or signature algorithm hashes with SHA-1 or MD5 (TSA_HASH_WEAK, not a failed signature). */
export function signerInfoHashWeak(info: SignerInfo): boolean {
  return WEAK_DIGESTS.has(info.digestAlgorithm) || WEAK_SIGNATURES.has(info.signatureAlgorithm);
}

/** The single value of the single attribute of `type`, or undefined (absent, repeated or multi-valued). */
export function singleAttributeValue(attributes: readonly CmsAttribute[], type: string): Uint8Array | undefined {
  const found = attributes.filter((a) => a.type === type);
  return found.length === 1 && found[0]!.values.length === 1 ? found[0]!.values[0] : undefined;
}

/**
 * RFC 5652 §5.4/§5.6: signed attributes present, one content-type attribute naming
 * `contentType`, one message-digest attribute equal to the digest of `eContent`, and the
 * signature over the DER of the signed attributes (their [0] IMPLICIT tag read as SET OF) by
 * `key`. The attributes are taken as carried: RFC 5652 requires them DER-encoded, so a token
 * whose signed attributes are not DER fails here (a re-encoding verifier might accept it).
 */
export function signerInfoSignatureValid(
  info: SignerInfo,
  eContent: Uint8Array,
  contentType: string,
  key: KeyObject,
  signatures: SignatureCheck = checkOnThisThread,
): boolean | Promise<boolean> {
  const attrs = info.signedAttrs;
  if (!attrs) return false;
  const type = readValue(singleAttributeValue(attrs.attributes, CMS_OID.contentType));
  if (!type || !isUniversal(type.element, TAG.oid, false) || decodeOid(contents(type.bytes, type.element)) !== contentType) return false;
  const digest = readValue(singleAttributeValue(attrs.attributes, CMS_OID.messageDigest));
  if (!digest || !isUniversal(digest.element, TAG.octetString, false)) return false;
  const digestName = DIGESTS[info.digestAlgorithm];
  if (!digestName || !bytesEqual(hash(digestName, eContent, 'buffer'), contents(digest.bytes, digest.element))) return false;
  const algorithm = SIGNATURES[info.signatureAlgorithm];
  if (!algorithm || key.asymmetricKeyType !== algorithm.keyType) return false;
  const signed = Buffer.from(attrs.der);
  if (signed[0] !== 0xa0) return false;
  signed[0] = 0x31; // [0] IMPLICIT (constructed) → SET OF, X.690 tag of the same length
  // A signature that is not even well-formed for the key (e.g. bad ECDSA DER) is false.
  return signatures(algorithm.hash === 'digest' ? digestName : algorithm.hash, signed, key, info.signature);
}

function readValue(bytes: Uint8Array | undefined): { bytes: Uint8Array; element: DerElement } | undefined {
  const element = bytes && readWhole(bytes);
  return bytes && element ? { bytes, element } : undefined;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}
