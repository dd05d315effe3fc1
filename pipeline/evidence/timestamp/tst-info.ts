// TSTInfo (RFC 3161 §2.4.2), decoded by hand from its DER: it is decoded for every proof token,
// and pkijs's TSTInfo parser (asn1js underneath) cost ≈ a third of a token's verification here.
//
// TSTInfo ::= SEQUENCE {
//   version INTEGER, policy TSAPolicyId, messageImprint MessageImprint, serialNumber INTEGER,
//   genTime GeneralizedTime, accuracy Accuracy OPTIONAL, ordering BOOLEAN DEFAULT FALSE,
//   nonce INTEGER OPTIONAL, tsa [0] GeneralName OPTIONAL, extensions [1] IMPLICIT Extensions OPTIONAL }
// MessageImprint ::= SEQUENCE { hashAlgorithm AlgorithmIdentifier, hashedMessage OCTET STRING }
//
// Every field is type-checked in its place; anything out of order, of another type, or left over
// makes the TSTInfo malformed (undefined). The tsa name is returned as the DER of its GeneralName,
// for the caller to decode (once per distinct name).
import {
  algorithmIdentifierOid,
  children,
  contents,
  decodeInteger,
  decodeOid,
  elementBytes,
  isContext,
  isUniversal,
  readWhole,
  TAG,
} from '../../formats/der.ts';

export interface TstInfo {
  version: bigint;
  policy: string;
  imprintAlgorithm: string;
  hashedMessage: Uint8Array;
  serialNumber: bigint;
  genTime: string;
  genDate: Date;
  nonce?: bigint;
  /** DER of the GeneralName inside tsa [0]. */
  tsaName?: Uint8Array;
}

export function decodeTstInfo(der: Uint8Array): TstInfo | undefined {
  const root = readWhole(der);
  const fields = root && isUniversal(root, TAG.sequence, true) ? children(der, root) : undefined;
  if (!fields) return undefined;
  const [version, policy, imprint, serial, time] = fields;
  if (!isUniversal(version, TAG.integer, false) || !isUniversal(policy, TAG.oid, false)) return undefined;
  if (!isUniversal(imprint, TAG.sequence, true) || !isUniversal(serial, TAG.integer, false)) return undefined;
  if (!isUniversal(time, TAG.generalizedTime, false)) return undefined;
  const imprintParts = children(der, imprint);
  if (!imprintParts || imprintParts.length !== 2) return undefined;
  const [algorithm, hashed] = imprintParts;
  const imprintAlgorithm = algorithmIdentifierOid(der, algorithm);
  if (imprintAlgorithm === undefined || !isUniversal(hashed, TAG.octetString, false)) return undefined;

  let i = 5;
  if (isUniversal(fields[i], TAG.sequence, true)) i++; // accuracy
  if (isUniversal(fields[i], TAG.boolean, false)) i++; // ordering
  let nonce: bigint | undefined;
  if (isUniversal(fields[i], TAG.integer, false)) nonce = decodeInteger(contents(der, fields[i++]!));
  let tsaName: Uint8Array | undefined;
  if (isContext(fields[i], 0)) {
    const inner = children(der, fields[i++]!);
    if (!inner || inner.length !== 1) return undefined;
    tsaName = elementBytes(der, inner[0]!);
  }
  if (isContext(fields[i], 1)) i++; // extensions
  if (i !== fields.length) return undefined;

  const versionNumber = decodeInteger(contents(der, version));
  const policyOid = decodeOid(contents(der, policy));
  const serialNumber = decodeInteger(contents(der, serial));
  const genTime = parseGeneralizedTime(contents(der, time));
  if (versionNumber === undefined || policyOid === undefined || serialNumber === undefined || genTime === undefined) return undefined;
  return {
    version: versionNumber,
    policy: policyOid,
    imprintAlgorithm,
    hashedMessage: contents(der, hashed).slice(),
    serialNumber,
    genTime: genTime.iso,
    genDate: genTime.date,
    ...(nonce === undefined ? {} : { nonce }),
    ...(tsaName === undefined ? {} : { tsaName }),
  };
}

/**
 * genTime from its raw GeneralizedTime text, every digit kept (a Date would drop those below the
 * millisecond). RFC 3161 §2.4.2: UTC ('Z'), seconds always present, optional fraction: the text
 * is YYYYMMDDHHMMSS, then '.' and one or more digits or nothing, then 'Z' (the regular expression
 * /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d+))?Z$/ read digit by digit: every token of a
 * study goes through here, and the expression with its captures cost ≈ 16 µs a token before its
 * code was optimised).
 */
export function parseGeneralizedTime(text: Uint8Array): { iso: string; date: Date } | undefined {
  const n = text.length;
  if (n < 15 || text[n - 1] !== 0x5a /* Z */) return undefined;
  for (let i = 0; i < 14; i++) if (!isDigit(text[i]!)) return undefined;
  let ms = 0;
  if (n > 15) {
    // '.' then at least one digit before the 'Z'.
    if (text[14] !== 0x2e || n < 17) return undefined;
    for (let i = 15; i < n - 1; i++) if (!isDigit(text[i]!)) return undefined;
    // The first three digits of the fraction, padded with zeros: milliseconds.
    for (let i = 15; i < 18; i++) ms = ms * 10 + (i < n - 1 ? text[i]! - 0x30 : 0);
  }
  const digits = (from: number, count: number) => {
    let v = 0;
    for (let i = from; i < from + count; i++) v = v * 10 + (text[i]! - 0x30);
    return v;
  };
  const [y, mo, d, h, mi, s] = [digits(0, 4), digits(4, 2), digits(6, 2), digits(8, 2), digits(10, 2), digits(12, 2)];
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
  // Reject out-of-range fields (month 13, 31 February, …), which Date.UTC would roll over, and
  // years 0000–0099, which it reads as 1900–1999.
  if (
    date.getUTCFullYear() !== y ||
    date.getUTCMonth() !== mo - 1 ||
    date.getUTCDate() !== d ||
    date.getUTCHours() !== h ||
    date.getUTCMinutes() !== mi ||
    date.getUTCSeconds() !== s
  )
    return undefined;
  // Only ASCII digits, '.' and 'Z' are left: latin1 is the text as written.
  const t = Buffer.from(text.buffer, text.byteOffset, n).toString('latin1');
  return {
    iso: `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(8, 10)}:${t.slice(10, 12)}:${t.slice(12, 14)}${t.slice(14, n - 1)}Z`,
    date,
  };
}

const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
