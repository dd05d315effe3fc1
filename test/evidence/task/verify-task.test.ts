import { describe, expect, it } from 'vitest';
import { buildVerifyContext, runVerifyTask } from '../../../pipeline/evidence/task/index.ts';
import { UNBOUNDED_WINDOW, verifyContextInputs } from '../../../pipeline/verify/inputs.ts';
import { PROJECT_ROOT } from '../../support/cli.ts';

const ctx = buildVerifyContext(verifyContextInputs(`${PROJECT_ROOT}/preregistration/trust`, UNBOUNDED_WINDOW, []));

describe('runVerifyTask on text that does not parse', () => {
  it.each([
    ['{"a": 1, "a": 2}', ['JSON_DUPLICATE_KEY']],
    ['{"n": 1e400}', ['JSON_NUMBER_INVALID']],
    ['{"a": ', ['PROOF_MALFORMED']],
  ])('%s is MALFORMED with %j, structure failed and nothing else checked', async (proof, reason_codes) => {
    const out = await runVerifyTask(
      { kind: 'evidence', key: 'k', proof, request: null, response: null, disclosure: null, transparency_log_entry: null },
      ctx,
    );
    expect(out.kind).toBe('evidence');
    if (out.kind !== 'evidence') return;
    expect(out.result.status).toBe('MALFORMED');
    expect(out.result.reason_codes).toEqual(reason_codes);
    expect(out.result.checks.structure).toBe('fail');
    expect(Object.entries(out.result.checks).filter(([c, o]) => c !== 'structure' && o !== 'skipped')).toEqual([]);
    expect(out.result.independent_witnesses).toBe(0);
  });

  it('a timeline that does not parse is BROKEN (CHAIN_MALFORMED)', async () => {
    const out = await runVerifyTask({ kind: 'chain', key: 'c', chain: '[{"seq": 1,' }, ctx);
    expect(out.kind === 'chain' && [out.result.status, out.result.reason_codes]).toEqual(['BROKEN', ['CHAIN_MALFORMED']]);
  });

  it('a receipt that does not parse is NONCONFORMANT (RECEIPT_MALFORMED)', async () => {
    const out = await runVerifyTask({ kind: 'receipt', key: 'r', receipt: '{"receipt_schema_version": "0.3",' }, ctx);
    expect(out.kind === 'receipt' && [out.result.status, out.result.reason_codes]).toEqual(['NONCONFORMANT', ['RECEIPT_MALFORMED']]);
  });
});
