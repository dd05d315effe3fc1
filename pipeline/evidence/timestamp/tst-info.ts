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
import { algorithmIdentifierOid, children, contents, decodeInteger, decodeOid, elementBytes, isContext, isUniversal, readWhole, TAG } from '../../formats/der.ts';

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

const GENERALIZED_TIME = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d+))?Z$/;

/**
 * genTime from its raw GeneralizedTime text, every digit kept (a Date would drop those below the
 * millisecond). RFC 3161 §2.4.2: UTC ('Z'), seconds always present, optional fraction.
 */
function parseGeneralizedTime(text: Uint8Array): { iso: string; date: Date } | undefined {
  const m = GENERALIZED_TIME.exec(String.fromCharCode(...text));
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac] = m as unknown as [string, string, string, string, string, string, string, string?];
  const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms));
  // Reject out-of-range fields (month 13, 31 February, …), which Date.UTC would roll over.
  if (date.toISOString().slice(0, 19) !== `${y}-${mo}-${d}T${h}:${mi}:${s}`) return undefined;
  return { iso: `${y}-${mo}-${d}T${h}:${mi}:${s}${frac === undefined ? '' : `.${frac}`}Z`, date };
}
