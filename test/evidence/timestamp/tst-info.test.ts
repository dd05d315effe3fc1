// decodeTstInfo against pkijs's own TSTInfo parser on real tokens (pkijs TSA and `openssl ts
// -reply`), and every way a TSTInfo can be out of shape.
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTstInfo, parseGeneralizedTime } from '../../../pipeline/evidence/timestamp/tst-info.ts';
import { buildTimestampRequest } from '../../../pipeline/formats/timestamp-request.ts';
import { createOpensslTsa, type OpensslTsa } from '../../support/tsa/openssl-tsa.ts';
import { issueTimestampResponse, loadTestSigner, testPkiPaths, type TsaSigner } from '../../support/tsa/pkijs-tsa.ts';

const DIGEST = createHash('sha256').update('prereg tst-info test').digest();

let tsa: TsaSigner;
let openssl: OpensslTsa;

beforeAll(async () => {
  tsa = await loadTestSigner('tsa');
  const paths = testPkiPaths('tsa');
  openssl = await createOpensslTsa({ certPath: paths.cert, keyPath: paths.key });
});

afterAll(async () => {
  await openssl?.close();
});

/** The eContent (TSTInfo DER) of a TimeStampResp. */
function tstInfoDer(response: Uint8Array): Uint8Array {
  const resp = pkijs.TimeStampResp.fromBER(new Uint8Array(response));
  const signed = new pkijs.SignedData({ schema: resp.timeStampToken!.content });
  return new Uint8Array(signed.encapContentInfo.eContent!.getValue());
}

function expectSameAsPkijs(der: Uint8Array): void {
  const ours = decodeTstInfo(der)!;
  expect(ours).toBeDefined();
  const theirs = new pkijs.TSTInfo({ schema: asn1js.fromBER(der.slice()).result });
  expect(ours.version).toBe(BigInt(theirs.version));
  expect(ours.policy).toBe(theirs.policy);
  expect(ours.imprintAlgorithm).toBe(theirs.messageImprint.hashAlgorithm.algorithmId);
  expect(Buffer.from(ours.hashedMessage)).toEqual(Buffer.from(theirs.messageImprint.hashedMessage.valueBlock.valueHexView));
  expect(ours.serialNumber).toBe(theirs.serialNumber.toBigInt());
  expect(ours.nonce).toBe(theirs.nonce?.toBigInt());
  expect(ours.genDate.getTime()).toBe(theirs.genTime.getTime());
  expect(ours.tsaName === undefined).toBe(theirs.tsa === undefined);
}

describe('decodeTstInfo agrees with pkijs', () => {
  it('on pkijs TSA tokens: large and small serials, a fractional genTime', async () => {
    for (const [serialNumber, genTime] of [
      [123456789n, '2024-05-01T08:31:00Z'],
      [1n, '2024-05-01T08:31:00.123456Z'],
      [2n ** 63n + 5n, '2030-12-31T23:59:59Z'],
    ] as const) {
      const der = tstInfoDer(await issueTimestampResponse(buildTimestampRequest(DIGEST, 42n), tsa, { genTime, serialNumber }));
      expectSameAsPkijs(der);
      expect(decodeTstInfo(der)!.genTime).toBe(genTime);
      expect(decodeTstInfo(der)!.serialNumber).toBe(serialNumber);
    }
  });

  it('on an openssl ts -reply token (accuracy, ordering, tsa name as it writes them)', async () => {
    const der = tstInfoDer(await openssl.reply(buildTimestampRequest(DIGEST, 7n)));
    expectSameAsPkijs(der);
    expect(decodeTstInfo(der)!.nonce).toBe(7n);
  });
});

describe('decodeTstInfo refuses a TSTInfo out of shape', () => {
  let fields: asn1js.AsnType[];
  beforeAll(async () => {
    const der = tstInfoDer(await issueTimestampResponse(buildTimestampRequest(DIGEST, 42n), tsa, { genTime: '2024-05-01T08:31:00Z' }));
    fields = (asn1js.fromBER(der.slice()).result as asn1js.Sequence).valueBlock.value;
    // version, policy, messageImprint, serialNumber, genTime, nonce, tsa [0] (as the pkijs TSA writes it)
    expect(fields.map((f) => f.idBlock.tagNumber)).toEqual([2, 6, 16, 2, 24, 2, 0]);
  });
  const encode = (value: asn1js.AsnType[]) => new Uint8Array(new asn1js.Sequence({ value }).toBER(false));

  it('the unchanged fields re-encoded decode (so each case below tests its change)', () => {
    expect(decodeTstInfo(encode(fields))).toBeDefined();
  });

  const cases: [string, (f: asn1js.AsnType[]) => asn1js.AsnType[]][] = [
    ['version missing', (f) => f.slice(1)],
    ['policy not an OID', (f) => [f[0]!, new asn1js.Utf8String({ value: '1.2.3' }), ...f.slice(2)]],
    [
      'messageImprint with a third element',
      (f) => [
        f[0]!,
        f[1]!,
        new asn1js.Sequence({ value: [...(f[2] as asn1js.Sequence).valueBlock.value, new asn1js.Null()] }),
        ...f.slice(3),
      ],
    ],
    [
      'hashedMessage not an OCTET STRING',
      (f) => [
        f[0]!,
        f[1]!,
        new asn1js.Sequence({ value: [(f[2] as asn1js.Sequence).valueBlock.value[0]!, new asn1js.Integer({ value: 1 })] }),
        ...f.slice(3),
      ],
    ],
    ['serialNumber not an INTEGER', (f) => [...f.slice(0, 3), new asn1js.OctetString({ valueHex: new Uint8Array([1]) }), ...f.slice(4)]],
    ['genTime a UTCTime', (f) => [...f.slice(0, 4), new asn1js.UTCTime({ valueDate: new Date(Date.UTC(2024, 4, 1)) }), ...f.slice(5)]],
    ['genTime without seconds', (f) => [...f.slice(0, 4), new asn1js.GeneralizedTime({ value: '202405010831Z' }), ...f.slice(5)]],
    ['genTime on 31 February', (f) => [...f.slice(0, 4), new asn1js.GeneralizedTime({ value: '20240231083100Z' }), ...f.slice(5)]],
    ['genTime not in UTC', (f) => [...f.slice(0, 4), new asn1js.GeneralizedTime({ value: '20240501083100+0100' }), ...f.slice(5)]],
    ['nonce after the tsa name', (f) => [...f.slice(0, 5), f[6]!, f[5]!]],
    ['an element left over at the end', (f) => [...f, new asn1js.Null()]],
    [
      'tsa [0] holding two names',
      (f) => [
        ...f.slice(0, 6),
        new asn1js.Constructed({
          idBlock: { tagClass: 3, tagNumber: 0 },
          value: [...(f[6] as asn1js.Constructed).valueBlock.value, ...(f[6] as asn1js.Constructed).valueBlock.value],
        }),
      ],
    ],
    ['empty', () => []],
  ];
  for (const [name, change] of cases) {
    it(name, () => expect(decodeTstInfo(encode(change(fields)))).toBeUndefined());
  }

  it('bytes that are not one DER element', () => {
    const der = encode(fields);
    expect(decodeTstInfo(der.subarray(0, der.length - 1))).toBeUndefined();
    expect(decodeTstInfo(Uint8Array.from([...der, 0]))).toBeUndefined();
  });
});

describe('parseGeneralizedTime reads what the regular expression it replaced read', () => {
  // The reading before it was written digit by digit: the same verdict, text and instant.
  const reference = (text: Uint8Array): { iso: string; date: Date } | undefined => {
    const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d+))?Z$/.exec(String.fromCharCode(...text));
    if (!m) return undefined;
    const [, y, mo, d, h, mi, s, frac] = m as unknown as [string, string, string, string, string, string, string, string?];
    const ms = frac ? Number(frac.slice(0, 3).padEnd(3, '0')) : 0;
    const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms));
    if (date.toISOString().slice(0, 19) !== `${y}-${mo}-${d}T${h}:${mi}:${s}`) return undefined;
    return { iso: `${y}-${mo}-${d}T${h}:${mi}:${s}${frac === undefined ? '' : `.${frac}`}Z`, date };
  };
  const same = (text: string | Uint8Array) => {
    const bytes = typeof text === 'string' ? new Uint8Array(Buffer.from(text, 'latin1')) : text;
    const ours = parseGeneralizedTime(bytes);
    const theirs = reference(bytes);
    expect(ours === undefined, String.fromCharCode(...bytes)).toBe(theirs === undefined);
    if (ours && theirs) {
      expect(ours.iso).toBe(theirs.iso);
      expect(ours.date.getTime()).toBe(theirs.date.getTime());
    }
  };

  it('on chosen texts: fractions, rollovers, years 0000–0099, other characters', () => {
    for (const t of [
      '20240501083100Z',
      '20240501083100.1Z',
      '20240501083100.123456789Z',
      '20240501083100.Z',
      '20240501083100.12',
      '20240231083100Z',
      '20241301083100Z',
      '20240501246000Z',
      '20240501083160Z',
      '20240229000000Z',
      '20230229000000Z',
      '00990101000000Z',
      '00000101000000Z',
      '01000101000000Z',
      '99991231235959.999Z',
      '202405010831Z',
      '20240501083100+0100',
      '20240501083100ZZ',
      '2024050108310Z',
      '',
      'Z',
      '20240501083100z',
      '２0240501083100Z',
      '20240501083100.1.2Z',
      ' 20240501083100Z',
    ])
      same(t);
  });

  it('on generated texts over the characters that matter', () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const alphabet = '0123456789.Z+-z ';
    for (let i = 0; i < 5000; i++) {
      const base = `${String(next() % 10000).padStart(4, '0')}${String(next() % 14).padStart(2, '0')}${String(next() % 33).padStart(2, '0')}${String(next() % 26).padStart(2, '0')}${String(next() % 62).padStart(2, '0')}${String(next() % 62).padStart(2, '0')}`;
      const frac = next() % 3 === 0 ? '' : `.${String(next()).slice(0, next() % 8)}`;
      let text = `${base}${frac}Z`;
      if (next() % 4 === 0) {
        const at = next() % (text.length + 1);
        text = text.slice(0, at) + alphabet[next() % alphabet.length] + text.slice(at + (next() % 2));
      }
      same(text);
      if (next() % 10 === 0)
        same(Uint8Array.from([...Buffer.from(text, 'latin1')].map((b, j) => (j === next() % text.length ? b | 0x80 : b))));
    }
  });
});
