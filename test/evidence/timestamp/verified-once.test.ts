// A batch's proofs share one RFC 3161 token (proof-spec 3.x): it is verified once per distinct
// (token bytes, imprint) and its outcome reused, while each proof's own time check still runs and
// a copy whose token differs by one byte is verified afresh and refused. Real tokens from the
// TEST-ONLY TSA; the count is that of verifyTimestampToken calls actually made in this process.
import { beforeAll, describe, expect, it } from 'vitest';
import { verifyEvidenceItem, type ProofVerification } from '../../../pipeline/evidence/arkforge/index.ts';
import { timestampVerificationCount } from '../../../pipeline/evidence/timestamp/index.ts';
import { buildTrustMaterial, type TrustMaterial } from '../../../pipeline/evidence/trust/index.ts';
import { canonicalJson, parseJson } from '../../../pipeline/formats/canonical-json.ts';
import { anchorBatch, issueProofV3, ownerDisclosure } from '../../support/arkforge-issuer-v3.ts';
import { at, TS, TSA_ROOT, testTrustPolicy, v3MintOptions, WINDOW } from '../../support/proof-fixtures.ts';
import { loadTestSigner } from '../../support/tsa/pkijs-tsa.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- free-form edits of parsed proofs
type Plain = Record<string, any>;

let trust: TrustMaterial;
let batch: Plain[];

beforeAll(async () => {
  const tsa = await loadTestSigner('tsa');
  trust = buildTrustMaterial(testTrustPolicy(), [TSA_ROOT]);
  // Six proofs in one batch, its token made 420 s after TS; proof 5 claims a timestamp 600 s
  // after TS, so the shared token precedes it (a time failure of that proof alone).
  const issued = await Promise.all(
    Array.from({ length: 6 }, (_, n) =>
      issueProofV3(v3MintOptions(tsa, { tsa: undefined, ...(n === 5 ? { timestamp: at(TS, 600) } : {}) }, n)),
    ),
  );
  await anchorBatch(issued, { signer: tsa, genTime: at(TS, 420), batchId: 'batch_20260310_120700_001' });
  batch = issued.map(
    (i) => JSON.parse(canonicalJson({ proof: i.proof, request: i.request, response: i.response, disclosure: ownerDisclosure(i) })) as Plain,
  );
});

async function verifyCounting(item: Plain): Promise<{ result: ProofVerification; verified: number }> {
  const before = timestampVerificationCount();
  // Parsed as a file would be (number lexemes kept).
  const result = await verifyEvidenceItem(parseJson(canonicalJson(item as never)) as never, trust, WINDOW);
  return { result, verified: timestampVerificationCount() - before };
}

describe('a token shared by a batch', () => {
  it('is verified once for the whole batch, every proof VERIFIED', async () => {
    const runs = [];
    for (const item of batch.slice(0, 5)) runs.push(await verifyCounting(item));
    expect(runs.map((r) => [r.result.status, r.result.checks.tsa, r.result.checks.batch])).toEqual(
      Array(5).fill(['VERIFIED', 'pass', 'pass']),
    );
    expect(runs.map((r) => r.verified)).toEqual([1, 0, 0, 0, 0]);
  });

  it("still checks each proof's time: the proof the reused token precedes fails PROOF_TIME_OUTSIDE_WINDOW", async () => {
    const { result, verified } = await verifyCounting(batch[5]!);
    expect([result.status, result.reason_codes, result.checks.tsa, result.checks.time, verified]).toEqual([
      'UNTRUSTED',
      ['PROOF_TIME_OUTSIDE_WINDOW'],
      'pass',
      'fail',
      0,
    ]);
    expect(result.problems[0]).toContain('precedes timestamp');
  });

  it('verifies a copy whose token differs in its last byte afresh and refuses it; the untampered proofs still pass', async () => {
    const tampered = structuredClone(batch[2]!);
    const bytes = Buffer.from(tampered.proof.timestamp_authority.tsr_base64, 'base64');
    bytes[bytes.length - 1]! ^= 0x01; // inside the TSA's signature value
    tampered.proof.timestamp_authority.tsr_base64 = bytes.toString('base64');
    const bad = await verifyCounting(tampered);
    expect([bad.result.checks.tsa, bad.result.reason_codes, bad.verified]).toEqual(['fail', ['PROOF_TSA_INVALID'], 1]);
    const again = await verifyCounting(batch[2]!);
    expect([again.result.status, again.verified]).toEqual(['VERIFIED', 0]);
  });

  it('verifies the same token afresh over another imprint (a copy claiming another batch root) and refuses it', async () => {
    const moved = structuredClone(batch[1]!);
    const root = String(moved.proof.batch_anchor.root);
    moved.proof.batch_anchor.root = root.slice(0, -1) + (root.endsWith('0') ? '1' : '0');
    const r = await verifyCounting(moved);
    expect([r.result.status, r.result.checks.batch, r.result.checks.tsa, r.verified]).toEqual(['TAMPERED', 'fail', 'fail', 1]);
  });
});
