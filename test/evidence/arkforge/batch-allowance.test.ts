// The batch allowance when the trust policy gives none (SPEC §6.1, §5.4): 900 s — a production
// batch token trails its proof by 604 s (test/fixtures/real/arkforge-production/, proof_proveit_gel).
// Spec 3.1 proofs minted in a batch by the test issuer, the root timestamped by the TEST-ONLY TSA.
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyEvidenceItem } from '../../../pipeline/evidence/arkforge/index.ts';
import type { EvidenceItem } from '../../../pipeline/evidence/arkforge/item.ts';
import { buildTrustMaterial, DEFAULT_BATCH_MAX_SKEW_SECONDS, type TrustMaterial } from '../../../pipeline/evidence/trust/index.ts';
import { canonicalJson, parseJson } from '../../../pipeline/formats/canonical-json.ts';
import type { TrustPolicy } from '../../../pipeline/formats/trust-policy.ts';
import { anchorBatch, issueProofV3, ownerDisclosure } from '../../support/arkforge-issuer-v3.ts';
import { at, TS, TSA_ROOT, testTrustPolicy, v3MintOptions, WINDOW } from '../../support/proof-fixtures.ts';
import { loadTestSigner, type TsaSigner } from '../../support/tsa/pkijs-tsa.ts';

let tsa: TsaSigner;
let withoutAllowance: TrustMaterial;

beforeAll(async () => {
  tsa = await loadTestSigner('tsa');
  const policy: TrustPolicy = testTrustPolicy();
  delete policy.batch_max_skew_seconds;
  withoutAllowance = buildTrustMaterial(policy, [TSA_ROOT]);
});

/** Proof 0 of a batch of 3 whose root was timestamped `trailing` seconds after the proofs' timestamp. */
async function batchProof(trailing: number, batch: number): Promise<EvidenceItem> {
  const issued = await Promise.all([0, 1, 2].map((n) => issueProofV3(v3MintOptions(tsa, { tsa: undefined }, 10 * batch + n))));
  await anchorBatch(issued, { signer: tsa, genTime: at(TS, trailing), batchId: `batch_20260310_12${String(batch).padStart(4, '0')}_001` });
  const chosen = issued[0]!;
  return parseJson(
    canonicalJson({ proof: chosen.proof, request: chosen.request, response: chosen.response, disclosure: ownerDisclosure(chosen) }),
  ) as unknown as EvidenceItem;
}

describe('batch_max_skew_seconds absent from the policy', () => {
  it('is 900 s', () => {
    expect(DEFAULT_BATCH_MAX_SKEW_SECONDS).toBe(900);
    expect(withoutAllowance.policy.batchMaxSkewSeconds).toBe(900);
  });

  it.each([
    [604, 'VERIFIED', []],
    [900, 'VERIFIED', []],
    [901, 'UNTRUSTED', ['PROOF_TIME_OUTSIDE_WINDOW']],
  ] as const)('a batch token trailing its proof by %i s → %s', async (trailing, status, reason_codes) => {
    const r = await verifyEvidenceItem(await batchProof(trailing, trailing), withoutAllowance, WINDOW);
    expect([r.status, r.reason_codes, r.checks.batch, r.checks.tsa]).toEqual([status, reason_codes, 'pass', 'pass']);
  });

  it('an explicit allowance still decides: 600 s refuses the 604 s token', async () => {
    const strict = buildTrustMaterial(testTrustPolicy({ batch_max_skew_seconds: 600 }), [TSA_ROOT]);
    const r = await verifyEvidenceItem(await batchProof(604, 1), strict, WINDOW);
    expect([r.status, r.reason_codes]).toEqual(['UNTRUSTED', ['PROOF_TIME_OUTSIDE_WINDOW']]);
  });
});
