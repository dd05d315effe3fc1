// Byte surgery on real RFC 3161 tokens, for the derived copies the tests refuse: a flipped
// signature byte, the certificate bag emptied, other certificates injected. Only the unsigned
// envelope is re-encoded (asn1js writes back the DER it read: a no-op edit gives the same bytes),
// so what stays signed stays byte for byte as the TSA signed it.
import * as asn1js from 'asn1js';

/** The SignedData SEQUENCE inside a TimeStampResp or a bare TimeStampToken ContentInfo. */
function signedDataIn(root: asn1js.Sequence): asn1js.Sequence {
  const parts = root.valueBlock.value;
  // A ContentInfo starts with its contentType OID; a TimeStampResp with its PKIStatusInfo.
  const contentInfo = parts[0] instanceof asn1js.ObjectIdentifier ? root : (parts[1] as asn1js.Sequence);
  return (contentInfo.valueBlock.value[1] as asn1js.Constructed).valueBlock.value[0] as asn1js.Sequence;
}

function parseWhole(token: Uint8Array): asn1js.Sequence {
  const parsed = asn1js.fromBER(token.slice());
  if (parsed.offset !== token.length || !(parsed.result instanceof asn1js.Sequence)) throw new Error('token-surgery: not one DER SEQUENCE');
  return parsed.result;
}

/**
 * Re-encodes the token after `edit` changed the elements of its SignedData (version,
 * digestAlgorithms, encapContentInfo, certificates [0]?, crls [1]?, signerInfos).
 */
export function editSignedData(token: Uint8Array, edit: (parts: asn1js.AsnType[]) => void): Uint8Array {
  const root = parseWhole(token);
  edit(signedDataIn(root).valueBlock.value);
  return new Uint8Array(root.toBER(false));
}

/** Index of the certificates [0] element among the SignedData's parts, or -1. */
function certificatesIndex(parts: asn1js.AsnType[]): number {
  return parts.findIndex((p, i) => i >= 3 && p.idBlock.tagClass === 3 && p.idBlock.tagNumber === 0);
}

/** The DER of each certificate the token carries, in order. */
export function carriedCertificates(token: Uint8Array): Uint8Array[] {
  const parts = signedDataIn(parseWhole(token)).valueBlock.value;
  const at = certificatesIndex(parts);
  return at === -1 ? [] : (parts[at] as asn1js.Constructed).valueBlock.value.map((c) => new Uint8Array(c.toBER(false)));
}

/** The same token with its certificate bag replaced by `certificates` (DER), or removed when empty. */
export function withCertificates(token: Uint8Array, certificates: readonly Uint8Array[]): Uint8Array {
  return editSignedData(token, (parts) => {
    const at = certificatesIndex(parts);
    if (at !== -1) parts.splice(at, 1);
    if (certificates.length === 0) return;
    const bag = new asn1js.Constructed({
      idBlock: { tagClass: 3, tagNumber: 0 },
      value: certificates.map((der) => asn1js.fromBER(der.slice()).result),
    });
    parts.splice(3, 0, bag);
  });
}

/** The same token with the last byte of its SignerInfo's signature flipped (an ECDSA or RSA signature stays well-formed DER). */
export function flipSignatureByte(token: Uint8Array): Uint8Array {
  const parts = signedDataIn(parseWhole(token)).valueBlock.value;
  const signerInfo = (parts.at(-1) as asn1js.Set).valueBlock.value[0] as asn1js.Sequence;
  const signature = signerInfo.valueBlock.value.filter((e) => e instanceof asn1js.OctetString).at(-1) as asn1js.OctetString;
  const bytes = signature.valueBlock.valueHexView;
  const at = Buffer.from(token).indexOf(Buffer.from(bytes));
  if (at < 0 || Buffer.from(token).indexOf(Buffer.from(bytes), at + 1) !== -1)
    throw new Error('token-surgery: the signature is not found exactly once');
  const out = Uint8Array.from(token);
  out[at + bytes.length - 1]! ^= 0x01;
  return out;
}

/** DER of every certificate in a PEM text, in order. */
export function pemCertificates(pem: string): Uint8Array[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----([\s\S]*?)-----END CERTIFICATE-----/g)].map(
    (m) => new Uint8Array(Buffer.from(m[1]!.replace(/\s+/g, ''), 'base64')),
  );
}

/** A PEM text of DER certificates. */
export function certificatesPem(ders: readonly Uint8Array[]): string {
  return ders
    .map(
      (der) =>
        `-----BEGIN CERTIFICATE-----\n${Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`,
    )
    .join('');
}
