// A BER/DER walker that finds elements' byte ranges without decoding them: asn1js decodes every
// element it meets (≈ 0.5 ms per kilobyte here), so a caller that needs a few parts of a large
// structure — an RFC 3161 token, whose carried certificates are the same bytes in every token —
// walks to them with this and hands only those parts to asn1js.
//
// Accepts what asn1js's fromBER accepts for the structure: definite lengths in short or long
// form (non-minimal too) and indefinite lengths closed by end-of-contents; tag numbers in high
// form. Anything else (truncated, overlong, a length past the input) is undefined.

export interface DerElement {
  /** 0 universal, 1 application, 2 context-specific, 3 private (the two high bits of the tag). */
  tagClass: number;
  constructed: boolean;
  tagNumber: number;
  /** Offsets in the input: the whole element (header included) and its contents. */
  start: number;
  end: number;
  contentStart: number;
  contentEnd: number;
}

/** Deeper nesting than any certificate or token has: refuses crafted inputs that recurse. */
const MAX_DEPTH = 64;

/** The element starting at `offset`, or undefined when the bytes there are not one. */
export function readElement(bytes: Uint8Array, offset = 0, depth = 0): DerElement | undefined {
  if (depth > MAX_DEPTH) return undefined;
  let i = offset;
  if (i >= bytes.length) return undefined;
  const first = bytes[i++]!;
  const tagClass = first >> 6;
  const constructed = (first & 0x20) !== 0;
  let tagNumber = first & 0x1f;
  if (tagNumber === 0x1f) {
    tagNumber = 0;
    for (let n = 0; ; n++) {
      if (i >= bytes.length || n === 4) return undefined;
      const b = bytes[i++]!;
      tagNumber = tagNumber * 128 + (b & 0x7f);
      if ((b & 0x80) === 0) break;
    }
  }
  if (i >= bytes.length) return undefined;
  const lengthByte = bytes[i++]!;
  if (lengthByte === 0x80) {
    // Indefinite length (constructed only): the contents run to the end-of-contents octets 00 00.
    if (!constructed) return undefined;
    const contentStart = i;
    for (;;) {
      if (i + 1 < bytes.length && bytes[i] === 0 && bytes[i + 1] === 0) {
        return { tagClass, constructed, tagNumber, start: offset, end: i + 2, contentStart, contentEnd: i };
      }
      const child = readElement(bytes, i, depth + 1);
      if (!child) return undefined;
      i = child.end;
    }
  }
  let length = lengthByte;
  if (lengthByte & 0x80) {
    const count = lengthByte & 0x7f;
    if (count > 4 || count === 0x7f) return undefined;
    length = 0;
    for (let n = 0; n < count; n++) {
      if (i >= bytes.length) return undefined;
      length = length * 256 + bytes[i++]!;
    }
  }
  const end = i + length;
  if (end > bytes.length) return undefined;
  return { tagClass, constructed, tagNumber, start: offset, end, contentStart: i, contentEnd: end };
}

/** The one element that fills `bytes` exactly, or undefined. */
export function readWhole(bytes: Uint8Array): DerElement | undefined {
  const element = readElement(bytes);
  return element && element.end === bytes.length ? element : undefined;
}

/** The elements inside a constructed element, in order; undefined when they do not fill it exactly. */
export function children(bytes: Uint8Array, parent: DerElement): DerElement[] | undefined {
  if (!parent.constructed) return undefined;
  const out: DerElement[] = [];
  for (let i = parent.contentStart; i < parent.contentEnd; ) {
    const child = readElement(bytes.subarray(0, parent.contentEnd), i);
    if (!child) return undefined;
    out.push(child);
    i = child.end;
  }
  return out;
}

/** The bytes of an element, header included (a view, not a copy). */
export function elementBytes(bytes: Uint8Array, element: DerElement): Uint8Array {
  return bytes.subarray(element.start, element.end);
}

/** Universal tag numbers the callers test for. */
export const TAG = { boolean: 1, integer: 2, octetString: 4, oid: 6, sequence: 16, set: 17, generalizedTime: 24 } as const;

export function isUniversal(element: DerElement | undefined, tagNumber: number, constructed: boolean): element is DerElement {
  return element !== undefined && element.tagClass === 0 && element.tagNumber === tagNumber && element.constructed === constructed;
}

export function isContext(element: DerElement | undefined, tagNumber: number): element is DerElement {
  return element !== undefined && element.tagClass === 2 && element.tagNumber === tagNumber && element.constructed;
}

/** The contents of an element (a view). */
export function contents(bytes: Uint8Array, element: DerElement): Uint8Array {
  return bytes.subarray(element.contentStart, element.contentEnd);
}

/**
 * OBJECT IDENTIFIER contents in dotted form, or undefined when they are not one (X.690 §8.19).
 * Arcs are numbers while they stay exact (below 2^52), BigInt beyond: every token carries a dozen
 * OIDs, and BigInt arithmetic per byte was the largest part of decoding one.
 */
export function decodeOid(content: Uint8Array): string | undefined {
  if (content.length === 0 || (content[content.length - 1]! & 0x80) !== 0) return undefined;
  // The dotted text built as the arcs end (no array of arcs joined: a token's dozen OIDs are read
  // before this code is optimised).
  let out = '';
  let value = 0;
  let big: bigint | null = null;
  for (let i = 0; i < content.length; i++) {
    const byte = content[i]!;
    if (big === null && value < 2 ** 45) value = value * 128 + (byte & 0x7f);
    else big = ((big ?? BigInt(value)) << 7n) | BigInt(byte & 0x7f);
    if ((byte & 0x80) === 0) {
      const arc = big ?? value;
      if (out === '')
        out =
          arc < 40
            ? `0.${arc}`
            : arc < 80
              ? `1.${typeof arc === 'bigint' ? arc - 40n : arc - 40}`
              : `2.${typeof arc === 'bigint' ? arc - 80n : arc - 80}`;
      else out += `.${arc}`;
      value = 0;
      big = null;
    }
  }
  return out;
}

/** INTEGER contents as a two's-complement big-endian number (X.690 §8.3), or undefined when empty. */
export function decodeInteger(content: Uint8Array): bigint | undefined {
  if (content.length === 0) return undefined;
  // Up to 6 bytes as a number (exact below 2^53); longer ones (serial numbers) as one BigInt of
  // their hex, not a BigInt operation per byte.
  let value: bigint;
  if (content.length <= 6) {
    let n = 0;
    for (let i = 0; i < content.length; i++) n = n * 256 + content[i]!;
    value = BigInt(n);
  } else {
    value = BigInt(`0x${Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('hex')}`);
  }
  return (content[0]! & 0x80) !== 0 ? value - (1n << BigInt(8 * content.length)) : value;
}

/** AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }: the OID. */
export function algorithmIdentifierOid(der: Uint8Array, element: DerElement | undefined): string | undefined {
  if (!isUniversal(element, TAG.sequence, true)) return undefined;
  const parts = children(der, element);
  if (!parts || parts.length < 1 || parts.length > 2 || !isUniversal(parts[0], TAG.oid, false)) return undefined;
  return decodeOid(contents(der, parts[0]));
}
