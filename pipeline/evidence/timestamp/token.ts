// Reading an RFC 3161 token (a TimeStampResp or a bare TimeStampToken ContentInfo) into the parts
// rfc3161.ts checks. asn1js decodes ≈ 2 KB/ms here and every proof of a study carries a token, so
// the token is walked by byte range (formats/der.ts): the TSTInfo (tst-info.ts) and the SignerInfo
// (cms-signer-info.ts) are decoded by hand, and the carried certificates (the same bytes in every
// token of a TSA) by pkijs once per TsaMemo, keyed by the SHA-256 of their DER. The walker reads
// BER as leniently as asn1js (e.g. indefinite or non-minimal lengths of the unsigned envelope):
// what is verified is always what was parsed, so this allows re-encodings of unsigned parts, never
// other content.
import type { KeyObject } from 'node:crypto';
import { asn1js, pkijs } from '../../vendor/pki.ts';
import { sha256Hex } from '../../formats/hash.ts';
import { children, contents, decodeOid, elementBytes, isContext, isUniversal, readWhole, TAG, type DerElement } from '../../formats/der.ts';
import { decodeSignerInfo, type SignerInfo } from './cms-signer-info.ts';
import { decodeTstInfo, type TstInfo } from './tst-info.ts';

export const TOKEN_OID = {
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4', // id-ct-TSTInfo, RFC 3161 §2.4.2
} as const;
const OID = TOKEN_OID;

/**
 * Work reused across the tokens of one set of pinned roots — parsed certificates by SHA-256 of their
 * DER, validated certificate paths by signer + intermediates, and the rest below. Derived data
 * only: results are the same without it.
 */
export interface TsaMemo {
  certificates: Map<string, pkijs.Certificate>;
  /** Validated paths (a path being validated is remembered while it runs; see rfc3161.ts). */
  chains: Map<string, Promise<pkijs.Certificate[] | null>>;
  /** PKIStatusInfo of TimeStampResps (DER, as bytesKey) as decoded. */
  statuses: Map<string, { status: number; text?: string }>;
  /** TSTInfo tsa names ('name/' + GeneralName DER as bytesKey) as formatted; signer subjects ('subject/' + certificate SHA-256). */
  names: Map<string, string>;
  /** Signer public keys by certificate digest (null: Node cannot import it). */
  keys: Map<string, KeyObject | null>;
  /**
   * Yes/no outcomes that depend only on the bytes their key names: whether a sid's issuer names a
   * certificate, whether an ESSCertID(v2) attribute binds a signer certificate.
   */
  decisions: Map<string, boolean>;
}

/** Bound on each memo map; a map that reaches it is cleared (TSAs are few, so it rarely is). */
export const MEMO_LIMIT = 4096;

export function newMemo(): TsaMemo {
  return { certificates: new Map(), chains: new Map(), statuses: new Map(), names: new Map(), keys: new Map(), decisions: new Map() };
}

// --- parsing ---------------------------------------------------------------------------------

/** An X.509 certificate carried in the token, with the exact DER it was carried as. */
export interface CarriedCertificate {
  der: Uint8Array;
  sha256: string;
  cert: pkijs.Certificate;
}

export type ParsedToken =
  | { kind: 'malformed' }
  | { kind: 'rejected'; pkiStatus: number; statusText?: string }
  | {
      kind: 'token';
      pkiStatus?: number;
      statusText?: string;
      /** The eContent octets: the DER of the TSTInfo (eContentType id-ct-TSTInfo checked when parsing). */
      eContent: Uint8Array;
      signerInfo: SignerInfo;
      certificates: CarriedCertificate[];
      tstInfo: TstInfo;
      /** The TSTInfo's tsa name, formatted. */
      tsaName?: string;
    };

export function parseToken(token: Uint8Array, memo: TsaMemo): ParsedToken {
  try {
    return parseTokenOrThrow(token, memo);
  } catch {
    // asn1js/pkijs throw for structures that do not match their schemas: that is a malformed token.
    return { kind: 'malformed' };
  }
}

function parseTokenOrThrow(token: Uint8Array, memo: TsaMemo): ParsedToken {
  const outer = readWhole(token);
  const parts = outer && isUniversal(outer, TAG.sequence, true) ? children(token, outer) : undefined;
  if (!outer || !parts || parts.length === 0) return { kind: 'malformed' };
  // A ContentInfo starts with its contentType OID; a TimeStampResp with its PKIStatusInfo SEQUENCE.
  let contentInfo: DerElement;
  let pkiStatus: number | undefined;
  let statusText: string | undefined;
  if (isUniversal(parts[0], TAG.oid, false)) {
    contentInfo = outer;
  } else {
    // TimeStampResp ::= SEQUENCE { status PKIStatusInfo, timeStampToken TimeStampToken OPTIONAL }
    if (parts.length > 2) return { kind: 'malformed' };
    const status = memoStatus(memo, elementBytes(token, parts[0]!));
    pkiStatus = status.status;
    statusText = status.text;
    if (pkiStatus !== 0 && pkiStatus !== 1) {
      return statusText === undefined ? { kind: 'rejected', pkiStatus } : { kind: 'rejected', pkiStatus, statusText };
    }
    if (!isUniversal(parts[1], TAG.sequence, true)) return { kind: 'malformed' };
    contentInfo = parts[1];
  }
  // ContentInfo ::= SEQUENCE { contentType OBJECT IDENTIFIER, content [0] EXPLICIT ANY }
  const info = children(token, contentInfo);
  if (!info || info.length !== 2 || !isUniversal(info[0], TAG.oid, false) || !isContext(info[1], 0)) return { kind: 'malformed' };
  if (decodeOid(contents(token, info[0])) !== OID.signedData) return { kind: 'malformed' };
  const content = children(token, info[1]);
  if (!content || content.length !== 1 || !isUniversal(content[0], TAG.sequence, true)) return { kind: 'malformed' };
  const split = splitSignedData(token, content[0]);
  // RFC 3161 §2.4.2: the token MUST NOT contain any signature other than the TSA's.
  if (!split || split.signerInfos.length !== 1) return { kind: 'malformed' };
  const signerInfo = decodeSignerInfo(split.signerInfos[0]!);
  const eContent = tstInfoContent(token, split.encapContentInfo);
  const tstInfo = eContent && decodeTstInfo(eContent);
  if (!signerInfo || !eContent || !tstInfo) return { kind: 'malformed' };
  const tsaName = tstInfo.tsaName === undefined ? undefined : memoGeneralName(memo, tstInfo.tsaName);
  const certificates: CarriedCertificate[] = [];
  for (const der of split.certificates) {
    const sha256 = sha256Hex(der);
    certificates.push({ der, sha256, cert: memoCertificate(memo, sha256, der) });
  }
  return {
    kind: 'token',
    ...(pkiStatus === undefined ? {} : { pkiStatus }),
    ...(statusText === undefined ? {} : { statusText }),
    eContent,
    signerInfo,
    certificates,
    tstInfo,
    ...(tsaName === undefined ? {} : { tsaName }),
  };
}

/**
 * SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo, certificates [0]
 * IMPLICIT OPTIONAL, crls [1] IMPLICIT OPTIONAL, signerInfos SET } (RFC 5652 §5.1), walked by
 * byte range: asn1js decoding the carried certificates of every token (the same bytes each time)
 * was most of the cost of a verification. Each part goes through asn1js/pkijs on its own bytes;
 * certificates only the first time their digest is seen. Only plain X.509 certificates (a
 * SEQUENCE among the CertificateChoices) can sign: attribute and other certificates are ignored.
 */
function splitSignedData(
  bytes: Uint8Array,
  seq: DerElement,
): { encapContentInfo: DerElement; certificates: Uint8Array[]; signerInfos: Uint8Array[] } | undefined {
  const elements = children(bytes, seq);
  if (!elements) return undefined;
  let i = 0;
  const version = elements[i++];
  const digestAlgorithms = elements[i++];
  const encapContentInfo = elements[i++];
  if (!isUniversal(version, TAG.integer, false) || !isUniversal(digestAlgorithms, TAG.set, true)) return undefined;
  if (!isUniversal(encapContentInfo, TAG.sequence, true)) return undefined;
  let certificates: DerElement[] = [];
  if (isContext(elements[i], 0)) {
    const carried = children(bytes, elements[i]!);
    if (!carried) return undefined;
    certificates = carried.filter((c) => isUniversal(c, TAG.sequence, true));
    i++;
  }
  // Revocation data is not used (see the file comment), but its place is checked.
  if (isContext(elements[i], 1)) i++;
  const signerInfos = elements[i++];
  if (!isUniversal(signerInfos, TAG.set, true) || i !== elements.length) return undefined;
  // The SignedData version and digestAlgorithms are not used (the SignerInfo names its digest): only their places are checked.
  const signers = children(bytes, signerInfos);
  if (!children(bytes, digestAlgorithms) || !signers) return undefined;
  return {
    encapContentInfo,
    certificates: certificates.map((e) => elementBytes(bytes, e)),
    signerInfos: signers.map((e) => elementBytes(bytes, e)),
  };
}

/**
 * EncapsulatedContentInfo ::= SEQUENCE { eContentType OBJECT IDENTIFIER, eContent [0] EXPLICIT
 * OCTET STRING OPTIONAL } (RFC 5652 §5.2): the eContent when eContentType is id-ct-TSTInfo and
 * it is present, else undefined. Walked by hand: asn1js decodes an OCTET STRING's contents when
 * they parse, so decoding the whole structure would decode the TSTInfo twice.
 */
function tstInfoContent(bytes: Uint8Array, encapContentInfo: DerElement): Uint8Array | undefined {
  const parts = children(bytes, encapContentInfo);
  if (!parts || parts.length !== 2 || !isUniversal(parts[0], TAG.oid, false) || !isContext(parts[1], 0)) return undefined;
  if (decodeOid(contents(bytes, parts[0])) !== OID.tstInfo) return undefined;
  const inner = children(bytes, parts[1]);
  if (!inner || inner.length !== 1) return undefined;
  const octets = inner[0]!;
  if (isUniversal(octets, TAG.octetString, false)) return contents(bytes, octets);
  // A constructed (BER) OCTET STRING: asn1js joins its segments.
  const decoded = isUniversal(octets, TAG.octetString, true) ? fromDer(elementBytes(bytes, octets)) : undefined;
  return decoded instanceof asn1js.OctetString ? new Uint8Array(decoded.getValue()) : undefined;
}

/**
 * The value remembered in `map` under `key`, computed and remembered when absent. A map that
 * reaches MEMO_LIMIT is emptied first, so what a submission chooses cannot grow it. A `compute`
 * that throws remembers nothing.
 */
export function remembered<V>(map: Map<string, V>, key: string, compute: () => V): V {
  const known = map.get(key);
  if (known !== undefined) return known;
  const value = compute();
  if (map.size >= MEMO_LIMIT) map.clear();
  map.set(key, value);
  return value;
}

export const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/**
 * Bytes as a memo key: one character per byte (latin1), half the length of their hex and cheaper
 * to make; exact, so two keys are equal only for equal bytes.
 */
export const bytesKey = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');

/** A PKIStatusInfo (every granted response of a TSA carries the same bytes), decoded by pkijs once. */
function memoStatus(memo: TsaMemo, der: Uint8Array): { status: number; text?: string } {
  return remembered(memo.statuses, bytesKey(der), () => {
    const info = new pkijs.PKIStatusInfo({ schema: partSchema(der) });
    const texts = info.statusStrings?.map((s) => s.valueBlock.value) ?? [];
    return texts.length > 0 ? { status: info.status, text: texts.join('; ') } : { status: info.status };
  });
}

/** A TSTInfo tsa GeneralName, formatted; throws (malformed token) when pkijs cannot read it. */
function memoGeneralName(memo: TsaMemo, der: Uint8Array): string {
  return remembered(memo.names, `name/${bytesKey(der)}`, () => formatGeneralName(new pkijs.GeneralName({ schema: partSchema(der) })));
}

function memoCertificate(memo: TsaMemo, sha256: string, der: Uint8Array): pkijs.Certificate {
  return remembered(memo.certificates, sha256, () => parseCertificate(der));
}

/** One DER element filling the whole input, or undefined (asn1js signals garbage with offset -1). */
function fromDer(bytes: Uint8Array): asn1js.AsnType | undefined {
  const view = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const parsed = asn1js.fromBER(view);
  if (parsed.offset === -1 || parsed.offset !== bytes.byteLength || parsed.result.error) return undefined;
  return parsed.result;
}

/**
 * A part the walker delimited, decoded. pkijs given `schema: undefined` builds an empty default
 * object instead of failing, so a part asn1js cannot read throws here (parseToken: malformed).
 */
function partSchema(bytes: Uint8Array): asn1js.AsnType {
  const schema = fromDer(bytes);
  if (!schema) throw new Error('a part of the token is not one BER element');
  return schema;
}

export function parseCertificate(der: Uint8Array): pkijs.Certificate {
  const schema = fromDer(der);
  if (!schema) throw new Error('not one DER element');
  return new pkijs.Certificate({ schema });
}

// --- names and digests -----------------------------------------------------------------------------

const SHORT_NAMES: Readonly<Record<string, string>> = {
  '2.5.4.3': 'CN',
  '2.5.4.5': 'serialNumber',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '2.5.4.97': 'organizationIdentifier',
  '0.9.2342.19200300.100.1.25': 'DC',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

/** RFC 4514 string of a Name: last RDN first, special characters escaped. */
export function formatName(name: pkijs.RelativeDistinguishedNames): string {
  return [...name.typesAndValues]
    .reverse()
    .map((tv) => {
      const key = SHORT_NAMES[tv.type] ?? tv.type;
      const value: unknown = tv.value;
      const text =
        value instanceof asn1js.BaseStringBlock
          ? escapeDnValue(value.getValue())
          : `#${Buffer.from((value as asn1js.BaseBlock).toBER(false)).toString('hex')}`;
      return `${key}=${text}`;
    })
    .join(',');
}

function escapeDnValue(value: string): string {
  return value
    .replace(/[\\,+"<>;=]/g, (c) => `\\${c}`)
    .replace(/^[ #]/, (c) => `\\${c}`)
    .replace(/ $/, '\\ ');
}

function formatGeneralName(name: pkijs.GeneralName): string {
  if (name.type === 4 && name.value instanceof pkijs.RelativeDistinguishedNames) return formatName(name.value);
  if (typeof name.value === 'string') return name.value;
  return `GeneralName[${name.type}]`;
}
