// RFC 3161 §2.4.1 TimeStampReq, as `anchor` sends it to a TSA over HTTP (RFC 3161 §3.4).
//
// The message we timestamp is the 32 bytes of a SHA-256 digest (freeze_digest, a proof's chain
// hash, a batch root), so the message imprint we ask for is SHA-256 over those 32 bytes (SPEC §4.4).
// rfc3161.ts accepts that, or SHA-384/512 over the same bytes (a token obtained elsewhere, SPEC §12.7).
import { createHash } from 'node:crypto';
import { asn1js, pkijs } from '../vendor/pki.ts';
import { algorithmIdentifierOid, children, contents, decodeInteger, decodeOid, isContext, isUniversal, readWhole, TAG } from './der.ts';

/** id-sha256, RFC 5754 §2.2. */
export const OID_SHA256 = '2.16.840.1.101.3.4.2.1';

/**
 * DER TimeStampReq { version v1, messageImprint { sha256, SHA-256(digest32) }, nonce, certReq TRUE }.
 * The hash AlgorithmIdentifier has absent parameters, as RFC 5754 §2 says to generate (and as
 * `openssl ts -query` does). No reqPolicy: the TSA applies its default policy.
 *
 * `nonce` is a positive integer: a bigint, or its unsigned big-endian bytes (e.g. 8 random bytes).
 * Throws TypeError for a digest that is not 32 bytes or a nonce that is not positive (caller bugs).
 */
export function buildTimestampRequest(digest32: Uint8Array, nonce: bigint | Uint8Array): Uint8Array<ArrayBuffer> {
  if (!(digest32 instanceof Uint8Array) || digest32.length !== 32) {
    throw new TypeError(`buildTimestampRequest: digest must be 32 bytes, got ${describeLength(digest32)}`);
  }
  const hashedMessage = createHash('sha256').update(digest32).digest();
  const request = new pkijs.TimeStampReq({
    version: 1,
    messageImprint: new pkijs.MessageImprint({
      hashAlgorithm: new pkijs.AlgorithmIdentifier({ algorithmId: OID_SHA256 }),
      hashedMessage: new asn1js.OctetString({ valueHex: toArrayBuffer(hashedMessage) }),
    }),
    nonce: new asn1js.Integer({ valueHex: toArrayBuffer(integerContent(nonce)) }),
    certReq: true,
  });
  return new Uint8Array(request.toSchema().toBER(false));
}

/** DER content octets of a positive INTEGER (X.690 §8.3: minimal, leading 0x00 when the top bit is set). */
function integerContent(nonce: bigint | Uint8Array): Uint8Array {
  let bytes: Uint8Array;
  if (typeof nonce === 'bigint') {
    if (nonce <= 0n) throw new TypeError('buildTimestampRequest: nonce must be a positive integer');
    let hex = nonce.toString(16);
    if (hex.length % 2 === 1) hex = `0${hex}`;
    bytes = Buffer.from(hex, 'hex');
  } else if (nonce instanceof Uint8Array) {
    let start = 0;
    while (start < nonce.length && nonce[start] === 0) start++;
    if (start === nonce.length) throw new TypeError('buildTimestampRequest: nonce must be a positive integer');
    bytes = nonce.subarray(start);
  } else {
    throw new TypeError('buildTimestampRequest: nonce must be a bigint or a Uint8Array');
  }
  if ((bytes[0]! & 0x80) !== 0) {
    const padded = new Uint8Array(bytes.length + 1);
    padded.set(bytes, 1);
    return padded;
  }
  return bytes;
}

function toArrayBuffer(bytes: Uint8Array): ArrayBuffer {
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

function describeLength(value: unknown): string {
  return value instanceof Uint8Array ? `${value.length} bytes` : typeof value;
}

/** What a TimeStampReq asks, as the reply is compared with it (RFC 3161 §2.4.1). */
export interface TimestampRequest {
  /** OID of the message imprint's hash algorithm. */
  imprintAlgorithm: string;
  hashedMessage: Uint8Array;
  /** reqPolicy, when the request names one. */
  policy?: string;
  nonce?: bigint;
  certReq: boolean;
}

/**
 * Decode a DER TimeStampReq ::= SEQUENCE { version INTEGER (v1), messageImprint MessageImprint,
 * reqPolicy TSAPolicyId OPTIONAL, nonce INTEGER OPTIONAL, certReq BOOLEAN DEFAULT FALSE,
 * extensions [0] IMPLICIT Extensions OPTIONAL }: undefined when it is not one (every field
 * type-checked in its place, nothing left over).
 */
export function readTimestampRequest(der: Uint8Array): TimestampRequest | undefined {
  const root = readWhole(der);
  const fields = root && isUniversal(root, TAG.sequence, true) ? children(der, root) : undefined;
  if (!fields) return undefined;
  const [version, imprint] = fields;
  if (!isUniversal(version, TAG.integer, false) || decodeInteger(contents(der, version)) !== 1n) return undefined;
  const imprintParts = isUniversal(imprint, TAG.sequence, true) ? children(der, imprint) : undefined;
  if (!imprintParts || imprintParts.length !== 2) return undefined;
  const imprintAlgorithm = algorithmIdentifierOid(der, imprintParts[0]);
  if (imprintAlgorithm === undefined || !isUniversal(imprintParts[1], TAG.octetString, false)) return undefined;
  const request: TimestampRequest = { imprintAlgorithm, hashedMessage: contents(der, imprintParts[1]).slice(), certReq: false };
  let i = 2;
  if (isUniversal(fields[i], TAG.oid, false)) {
    const policy = decodeOid(contents(der, fields[i++]!));
    if (policy === undefined) return undefined;
    request.policy = policy;
  }
  if (isUniversal(fields[i], TAG.integer, false)) {
    const nonce = decodeInteger(contents(der, fields[i++]!));
    if (nonce === undefined) return undefined;
    request.nonce = nonce;
  }
  if (isUniversal(fields[i], TAG.boolean, false)) {
    const value = contents(der, fields[i++]!);
    if (value.length !== 1) return undefined;
    request.certReq = value[0] !== 0;
  }
  if (isContext(fields[i], 0)) i++; // extensions: none is understood, none changes what is compared
  return i === fields.length ? request : undefined;
}
