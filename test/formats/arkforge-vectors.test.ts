// ArkForge proof-spec v2.1.0 official test vectors (vendored in test/fixtures/real/arkforge-proof-spec, CC BY 4.0).
// Vectors 1–7: legacy chain hash (string concatenation); 8–9: canonical-JSON chain hash.
// The chain helpers here are the spec's formulas written out for the test only; the proof
// verifier proper lives in pipeline/evidence/.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JsonNumber, canonicalJson, parseJson, type JsonObject, type JsonValue } from '../../pipeline/formats/canonical-json.ts';
import { sha256Hex } from '../../pipeline/formats/hash.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const vectorsPath = path.resolve(projectRoot, 'test/fixtures/real/arkforge-proof-spec/test-vectors.json');

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}
function obj(v: JsonValue | undefined, what: string): JsonObject {
  if (!isObject(v)) throw new Error(`${what} is not an object`);
  return v;
}
function str(o: JsonObject, key: string): string {
  const v = o[key];
  if (typeof v !== 'string') throw new Error(`${key} is not a string`);
  return v;
}
function optStr(o: JsonObject, key: string): string | undefined {
  const v = o[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}
const stripPrefix = (h: string) => (h.startsWith('sha256:') ? h.slice('sha256:'.length) : h);

interface ChainInput {
  requestHash: string;
  responseHash: string;
  transactionId: string;
  timestamp: string;
  buyerFingerprint: string;
  seller: string;
  upstreamTimestamp?: string | undefined;
  receiptContentHash?: string | undefined;
}

/** proof-spec §2, spec_version 1.1 / 2.0 / absent. */
function legacyChainHash(c: ChainInput): string {
  let input = c.requestHash + c.responseHash + c.transactionId + c.timestamp + c.buyerFingerprint + c.seller;
  if (c.upstreamTimestamp) input += c.upstreamTimestamp;
  if (c.receiptContentHash) input += stripPrefix(c.receiptContentHash);
  return sha256Hex(input);
}

/** proof-spec §2, spec_version 1.2 / 2.1: the canonical JSON of chain_data. */
function canonicalChainData(c: ChainInput): string {
  const data: Record<string, string> = {
    buyer_fingerprint: c.buyerFingerprint,
    request_hash: c.requestHash,
    response_hash: c.responseHash,
    seller: c.seller,
    timestamp: c.timestamp,
    transaction_id: c.transactionId,
  };
  if (c.upstreamTimestamp) data.upstream_timestamp = c.upstreamTimestamp;
  if (c.receiptContentHash) data.receipt_content_hash = stripPrefix(c.receiptContentHash);
  return canonicalJson(data);
}

const file = obj(parseJson(readFileSync(vectorsPath, 'utf8')), 'test-vectors.json');
const vectors = file.vectors;
if (!Array.isArray(vectors)) throw new Error('vectors is not an array');

describe('ArkForge proof-spec v2.1.0 test vectors', () => {
  it('has the nine official vectors', () => {
    expect(vectors).toHaveLength(9);
  });

  it.each(vectors.map((v, i) => [i + 1, str(obj(v, 'vector'), 'name'), obj(v, 'vector')] as const))(
    'vector %i: %s',
    (index, _name, vector) => {
      const input = obj(vector.input, 'input');
      const expected = obj(vector.expected, 'expected');

      const canonicalRequest = canonicalJson(input.request);
      const canonicalResponse = canonicalJson(input.response);
      expect(canonicalRequest).toBe(str(expected, 'canonical_request'));
      expect(canonicalResponse).toBe(str(expected, 'canonical_response'));

      const requestHash = sha256Hex(canonicalRequest);
      const responseHash = sha256Hex(canonicalResponse);
      expect(requestHash).toBe(str(expected, 'request_hash'));
      expect(responseHash).toBe(str(expected, 'response_hash'));

      const buyerFingerprint = sha256Hex(str(input, 'api_key'));
      expect(buyerFingerprint).toBe(str(expected, 'buyer_fingerprint'));

      const chain: ChainInput = {
        requestHash,
        responseHash,
        transactionId: str(input, 'payment_intent_id'), // the vectors' historical name
        timestamp: str(input, 'timestamp'),
        buyerFingerprint,
        seller: str(input, 'seller'),
        upstreamTimestamp: optStr(input, 'upstream_timestamp'),
        receiptContentHash: optStr(input, 'receipt_content_hash'),
      };
      const canonicalAlgorithm = vector.algorithm === 'canonical_json';
      // The file's note: vectors 1–7 legacy, 8–9 canonical JSON; spec_version agrees.
      expect(canonicalAlgorithm).toBe(index >= 8);
      if (canonicalAlgorithm) {
        expect(['1.2', '2.1']).toContain(vector.spec_version);
        const chainData = canonicalChainData(chain);
        expect(chainData).toBe(str(expected, 'canonical_chain_data'));
        expect(sha256Hex(chainData)).toBe(str(expected, 'chain_hash'));
      } else {
        expect(vector.spec_version).toBeUndefined();
        expect(legacyChainHash(chain)).toBe(str(expected, 'chain_hash'));
      }
    },
  );

  it('chain hashes of the same inputs differ between the two algorithms', () => {
    const hashes = vectors.map((v) => str(obj(obj(v, 'vector').expected, 'expected'), 'chain_hash'));
    expect(new Set(hashes).size).toBe(9);
  });

  it('spec §3 examples', () => {
    const rows: [string, string][] = [
      ['{"b": 1, "a": 2}', '{"a":2,"b":1}'],
      ['{"key": "value"}', '{"key":"value"}'],
      ['{}', '{}'],
      ['{"x": [1, 2]}', '{"x":[1,2]}'],
      ['{"café": true}', '{"caf\\u00e9":true}'],
    ];
    for (const [input, expected] of rows) expect(canonicalJson(parseJson(input))).toBe(expected);
  });

  it('spec §4 buyer fingerprint example', () => {
    expect(sha256Hex('mcp_test_example_key')).toBe('7c8f263e06d5ce4681f750ad64ede882a4ebd87de60f9ae0e6b06f0300645a11');
  });
});
