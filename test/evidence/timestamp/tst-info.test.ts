// decodeTstInfo against pkijs's own TSTInfo parser on real tokens (pkijs TSA and `openssl ts
// -reply`), and every way a TSTInfo can be out of shape.
import { createHash } from 'node:crypto';
import * as asn1js from 'asn1js';
import * as pkijs from 'pkijs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeTstInfo } from '../../../pipeline/evidence/timestamp/tst-info.ts';
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
    for (const [serialNumber, genTime] of [[123456789n, '2024-05-01T08:31:00Z'], [1n, '2024-05-01T08:31:00.123456Z'], [2n ** 63n + 5n, '2030-12-31T23:59:59Z']] as const) {
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
    ['messageImprint with a third element', (f) => [f[0]!, f[1]!, new asn1js.Sequence({ value: [...(f[2] as asn1js.Sequence).valueBlock.value, new asn1js.Null()] }), ...f.slice(3)]],
    ['hashedMessage not an OCTET STRING', (f) => [f[0]!, f[1]!, new asn1js.Sequence({ value: [(f[2] as asn1js.Sequence).valueBlock.value[0]!, new asn1js.Integer({ value: 1 })] }), ...f.slice(3)]],
    ['serialNumber not an INTEGER', (f) => [...f.slice(0, 3), new asn1js.OctetString({ valueHex: new Uint8Array([1]) }), ...f.slice(4)]],
    ['genTime a UTCTime', (f) => [...f.slice(0, 4), new asn1js.UTCTime({ valueDate: new Date(Date.UTC(2024, 4, 1)) }), ...f.slice(5)]],
    ['genTime without seconds', (f) => [...f.slice(0, 4), new asn1js.GeneralizedTime({ value: '202405010831Z' }), ...f.slice(5)]],
    ['genTime on 31 February', (f) => [...f.slice(0, 4), new asn1js.GeneralizedTime({ value: '20240231083100Z' }), ...f.slice(5)]],
    ['genTime not in UTC', (f) => [...f.slice(0, 4), new asn1js.GeneralizedTime({ value: '20240501083100+0100' }), ...f.slice(5)]],
    ['nonce after the tsa name', (f) => [...f.slice(0, 5), f[6]!, f[5]!]],
    ['an element left over at the end', (f) => [...f, new asn1js.Null()]],
    ['tsa [0] holding two names', (f) => [...f.slice(0, 6), new asn1js.Constructed({ idBlock: { tagClass: 3, tagNumber: 0 }, value: [...(f[6] as asn1js.Constructed).valueBlock.value, ...(f[6] as asn1js.Constructed).valueBlock.value] })]],
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
