// The BER/DER walker: element ranges agree with asn1js on real structures, every length form
// asn1js accepts is read, and everything else is refused.
import { readFileSync } from 'node:fs';
import * as asn1js from 'asn1js';
import { describe, expect, it } from 'vitest';
import {
  children,
  contents,
  decodeInteger,
  decodeOid,
  elementBytes,
  isContext,
  isUniversal,
  readElement,
  readWhole,
  TAG,
  type DerElement,
} from '../../pipeline/formats/der.ts';
import { testPkiPaths } from '../support/tsa/pkijs-tsa.ts';

const bytes = (...b: number[]) => Uint8Array.from(b);

/** Every element of the tree, depth first, as asn1js sees it: its exact bytes and whether it is constructed. */
function asn1Tree(block: asn1js.AsnType): { der: string; constructed: boolean }[] {
  const out = [{ der: Buffer.from(block.valueBeforeDecodeView).toString('hex'), constructed: block.idBlock.isConstructed }];
  if (block.idBlock.isConstructed) for (const child of (block as asn1js.Constructed).valueBlock.value) out.push(...asn1Tree(child));
  return out;
}

function walkTree(input: Uint8Array, element: DerElement): { der: string; constructed: boolean }[] {
  const out = [{ der: Buffer.from(elementBytes(input, element)).toString('hex'), constructed: element.constructed }];
  if (element.constructed) for (const child of children(input, element)!) out.push(...walkTree(input, child));
  return out;
}

describe('readElement', () => {
  it('agrees with asn1js on every element of a real certificate', () => {
    const pem = readFileSync(testPkiPaths('tsa').cert, 'utf8');
    const der = new Uint8Array(Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64'));
    const root = readWhole(der)!;
    expect(isUniversal(root, TAG.sequence, true)).toBe(true);
    const walked = walkTree(der, root);
    expect(walked.length).toBeGreaterThan(40);
    expect(walked).toEqual(asn1Tree(asn1js.fromBER(der.slice()).result));
  });

  it('reads short, long and non-minimal long length forms', () => {
    expect(readWhole(bytes(0x04, 0x02, 0xaa, 0xbb))).toMatchObject({ tagNumber: 4, contentStart: 2, contentEnd: 4, constructed: false });
    expect(readWhole(bytes(0x04, 0x81, 0x02, 0xaa, 0xbb))).toMatchObject({ contentStart: 3, contentEnd: 5 });
    expect(readWhole(bytes(0x04, 0x82, 0x00, 0x02, 0xaa, 0xbb))).toMatchObject({ contentStart: 4, contentEnd: 6 });
    const long = new Uint8Array(4 + 300);
    long.set([0x04, 0x82, 0x01, 0x2c]);
    expect(readWhole(long)).toMatchObject({ contentStart: 4, contentEnd: 304 });
  });

  it('reads high tag numbers and tag classes', () => {
    expect(readWhole(bytes(0x9f, 0x81, 0x00, 0x00))).toMatchObject({ tagClass: 2, tagNumber: 128, constructed: false, end: 4 });
    const ctx = readWhole(bytes(0xa0, 0x03, 0x02, 0x01, 0x05))!;
    expect(isContext(ctx, 0)).toBe(true);
    expect(isContext(ctx, 1)).toBe(false);
    expect(children(bytes(0xa0, 0x03, 0x02, 0x01, 0x05), ctx)!.map((c) => c.tagNumber)).toEqual([TAG.integer]);
  });

  it('reads indefinite lengths, nested, up to their end-of-contents octets', () => {
    // SEQUENCE (indefinite) { SEQUENCE (indefinite) { INTEGER 5 } , NULL }
    const input = bytes(0x30, 0x80, 0x30, 0x80, 0x02, 0x01, 0x05, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00);
    const outer = readWhole(input)!;
    expect(outer).toMatchObject({ contentStart: 2, contentEnd: 11, end: 13 });
    const [inner, nul] = children(input, outer)!;
    expect(inner).toMatchObject({ start: 2, end: 9, contentEnd: 7 });
    expect(nul).toMatchObject({ tagNumber: 5, start: 9, end: 11 });
    expect(asn1js.fromBER(input.slice()).offset).toBe(input.length); // asn1js reads it too
  });

  const refused: [string, Uint8Array][] = [
    ['empty input', bytes()],
    ['a tag without a length', bytes(0x30)],
    ['a length past the input', bytes(0x04, 0x05, 0x01)],
    ['a long form cut short', bytes(0x04, 0x82, 0x01)],
    ['more than four length octets', bytes(0x04, 0x85, 0, 0, 0, 0, 1, 0)],
    ['an indefinite length on a primitive', bytes(0x04, 0x80, 0x01, 0x00, 0x00)],
    ['an indefinite length never closed', bytes(0x30, 0x80, 0x02, 0x01, 0x05)],
    ['a high tag number never ended', bytes(0x1f, 0x81, 0x81)],
  ];
  for (const [name, input] of refused) {
    it(`refuses ${name}`, () => expect(readElement(input)).toBeUndefined());
  }

  it('refuses nesting deeper than any real structure', () => {
    const depth = 100;
    const input = new Uint8Array([...Array(depth).fill([0x30, 0x80]).flat(), ...Array(depth).fill([0, 0]).flat()]);
    expect(readElement(input)).toBeUndefined();
  });

  it('readWhole refuses trailing bytes; children refuses contents that do not fill the parent', () => {
    expect(readWhole(bytes(0x05, 0x00, 0x00))).toBeUndefined();
    // SEQUENCE of length 3 holding INTEGER (3 bytes) is fine; length 4 leaves one stray byte inside.
    const ok = bytes(0x30, 0x03, 0x02, 0x01, 0x05);
    expect(children(ok, readWhole(ok)!)).toHaveLength(1);
    const stray = bytes(0x30, 0x04, 0x02, 0x01, 0x05, 0x02);
    expect(children(stray, readWhole(stray)!)).toBeUndefined();
    // A child may not run past its parent even when the input goes on.
    const overrun = bytes(0x30, 0x02, 0x02, 0x01, 0x05);
    expect(readWhole(overrun)).toBeUndefined();
    expect(children(overrun, readElement(overrun)!)).toBeUndefined();
  });

  it('children of a primitive element is undefined', () => {
    const input = bytes(0x02, 0x01, 0x05);
    expect(children(input, readWhole(input)!)).toBeUndefined();
  });
});

describe('decodeOid and decodeInteger', () => {
  it('decode as asn1js does', () => {
    for (const oid of [
      '1.2.840.113549.1.9.16.1.4',
      '2.16.840.1.101.3.4.2.1',
      '0.9.2342.19200300.100.1.25',
      '2.999.18446744073709551617',
      '1.3.6.1.5.5.7.3.8',
      '1.2.35184372088831',
      '1.2.35184372088832',
      '2.39.0',
      '2.40.0',
      '1.39.4',
    ]) {
      const der = new Uint8Array(new asn1js.ObjectIdentifier({ value: oid }).toBER(false));
      const element = readWhole(der)!;
      expect(decodeOid(contents(der, element))).toBe(oid);
    }
    for (const n of [0n, 1n, 127n, 128n, 255n, 256n, -1n, -128n, -129n, 2n ** 64n + 3n, -(2n ** 70n)]) {
      const der = new Uint8Array(asn1js.Integer.fromBigInt(n).toBER(false));
      expect(decodeInteger(contents(der, readWhole(der)!))).toBe(n);
    }
  });

  it('read every arc exactly, small or beyond 2^53, as the BigInt reading of X.690 §8.19 does', () => {
    const reference = (content: Uint8Array): string => {
      const arcs: bigint[] = [];
      let value = 0n;
      for (const byte of content) {
        value = (value << 7n) | BigInt(byte & 0x7f);
        if ((byte & 0x80) === 0) {
          arcs.push(value);
          value = 0n;
        }
      }
      const first = arcs[0]!;
      const head = first < 40n ? [0n, first] : first < 80n ? [1n, first - 40n] : [2n, first - 80n];
      return [...head, ...arcs.slice(1)].join('.');
    };
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 2000; i++) {
      // Arcs of 1 to 12 bytes of 7 bits: up to 84 bits, across the 2^45 and 2^53 boundaries.
      const content: number[] = [];
      for (let arcs = 1 + (next() % 4); arcs > 0; arcs--) {
        const length = 1 + (next() % 12);
        for (let b = 0; b < length; b++) content.push((next() & 0x7f) | (b < length - 1 ? 0x80 : 0));
      }
      expect(decodeOid(Uint8Array.from(content))).toBe(reference(Uint8Array.from(content)));
    }
  });

  it('read every INTEGER length as the BigInt-per-byte reading of X.690 §8.3 does', () => {
    const reference = (content: Uint8Array): bigint => {
      let value = 0n;
      for (const byte of content) value = (value << 8n) | BigInt(byte);
      return (content[0]! & 0x80) !== 0 ? value - (1n << BigInt(8 * content.length)) : value;
    };
    let seed = 3;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    for (let i = 0; i < 3000; i++) {
      const content = Uint8Array.from({ length: 1 + (next() % 24) }, () =>
        next() % 5 === 0 ? [0, 0x7f, 0x80, 0xff][next() % 4]! : next() & 0xff,
      );
      expect(decodeInteger(content)).toBe(reference(content));
      // A view into a larger buffer reads only its own bytes.
      const wider = Uint8Array.from([0xaa, ...content, 0x55]);
      expect(decodeInteger(wider.subarray(1, 1 + content.length))).toBe(reference(content));
    }
  });

  it('refuse empty contents and an OID whose last arc is unfinished', () => {
    expect(decodeOid(bytes())).toBeUndefined();
    expect(decodeOid(bytes(0x2a, 0x86))).toBeUndefined();
    expect(decodeInteger(bytes())).toBeUndefined();
  });
});
