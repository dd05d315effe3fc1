// Shared by the ArkForge proof tests (test/evidence/arkforge/arkforge-proof*.test.ts): the TEST-ONLY signing
// key as pinned, the trust policy proofs are verified under, the study window, the times proofs
// are minted at, and (for spec 3.x) the bodies and issue options.
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseJson } from '../../pipeline/formats/canonical-json.ts';
import type { TrustPolicy } from '../../pipeline/formats/trust-policy.ts';
import type { IssueProofV3Options } from './arkforge-issuer-v3.ts';
import { testPkiPaths, type TsaSigner } from './tsa/pkijs-tsa.ts';

const KEYS = new URL('../fixtures/keys/', import.meta.url);
export const testKey = (name: string) => readFileSync(new URL(name, KEYS), 'utf8');

/** A public key PEM in the policy's pinned form, ed25519:<base64url of the 32 bytes>. */
export const pinnedEd25519 = (pem: string) => `ed25519:${createPublicKey(pem).export({ format: 'jwk' }).x}`;

export const KEY_2026 = testKey('TEST-ONLY-arkforge-2026.key.pem');
export const PUB_2026 = pinnedEd25519(testKey('TEST-ONLY-arkforge-2026.pub.pem'));
export const KEY_ENTRY_2026 = {
  key_id: 'arkforge-2026',
  public_key: PUB_2026,
  valid_from: '2026-01-01T00:00:00Z',
  valid_until: '2027-01-01T00:00:00Z',
};
export const TSA_ROOT = readFileSync(testPkiPaths('tsa-root').cert, 'utf8');

/** The test trust policy: the 2026 key, the test TSA root, tokens required; `over` replaces fields. */
export function testTrustPolicy(over: Partial<TrustPolicy> = {}): TrustPolicy {
  return {
    format: 'prereg.trust/1',
    arkforge_keys: [KEY_ENTRY_2026],
    tsa_roots: ['TEST-ONLY-tsa-root.cert.pem'],
    require_tsa_token: true,
    max_skew_seconds: 300,
    batch_max_skew_seconds: 900,
    require_receipts: false,
    ...over,
  };
}

export const WINDOW = { opens_at: '2026-03-01T00:00:00Z', closes_at: '2026-04-01T00:00:00Z' };
/** The proofs' timestamp, and their tokens' genTime a few seconds later. */
export const TS = '2026-03-10T12:00:00Z';
export const GEN = '2026-03-10T12:00:07Z';
/** `iso` moved by `seconds`, in the service's format (no milliseconds). */
export const at = (iso: string, seconds: number) => new Date(Date.parse(iso) + seconds * 1000).toISOString().replace('.000Z', 'Z');

export const V3_REQUEST_TEXT = '{"target":"https://api.example.com/search","payload":{"q":"R2152-2","k":3},"amount":0.1}';
export const V3_RESPONSE_TEXT = '{"passages":[{"ref":"R2152-2","text":"Le délai est de 30 jours.","score":0.875}]}';

/** Options of a spec 3.1 proof over the V3 bodies, anchored by `tsa`, the n-th of a run; `over` replaces fields. */
export function v3MintOptions(tsa: TsaSigner, over: Partial<IssueProofV3Options> = {}, n = 0): IssueProofV3Options {
  return {
    request: parseJson(V3_REQUEST_TEXT),
    response: parseJson(V3_RESPONSE_TEXT),
    timestamp: TS,
    seller: 'api.example.com',
    buyerApiKey: 'mcp_test_example_key',
    transactionId: `crd_20260310_120000_${String(n).padStart(6, '0')}`,
    specVersion: '3.1',
    signingKeyPem: KEY_2026,
    tsa: { signer: tsa, genTime: GEN },
    ...over,
  };
}
