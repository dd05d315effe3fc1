// The one shape of every verifier's catalogue: each check with its codes and the status each
// implies, from which code lists, statuses, the code of a failed check and check_* columns come.
import { describe, expect, it } from 'vitest';
import { PROOF_CATALOGUE, proofStatus } from '../../pipeline/evidence/arkforge/index.ts';
import {
  RECEIPT_CATALOGUE,
  RECEIPT_CHECK_CODES,
  RECEIPT_CHECKS,
  TIMELINE_CATALOGUE,
  TIMELINE_CHECK_CODES,
  verifyReceipt,
} from '../../pipeline/evidence/aer1/index.ts';
import {
  checkCatalogue,
  checkCells,
  checkColumns,
  codeOfCheck,
  codesOf,
  statusOf,
  worstStatus,
} from '../../pipeline/evidence/check-catalogue.ts';
import { TIMESTAMP_CATALOGUE } from '../../pipeline/evidence/timestamp/index.ts';
import { TLOG_CATALOGUE } from '../../pipeline/evidence/tlog/index.ts';
import { RAIL_CATALOGUE } from '../../pipeline/audit/rails.ts';
import { INTAKE_LOG_CATALOGUE, INTAKE_RECEIPT_CATALOGUE } from '../../pipeline/intake/verify-log.ts';
import { REASONS } from '../../pipeline/reasons.ts';

const toy = checkCatalogue(['a', 'b'], ['BAD', 'WEAK'], {
  USAGE: { check: 'a', status: 'BAD' },
  FILE_NOT_FOUND: { check: 'b', status: 'WEAK' },
  JSON_SYNTAX: { check: 'b', status: null },
});

describe('a check catalogue', () => {
  it("derives the codes, each code's status, the worst status and the code each check reports", () => {
    expect(codesOf(toy)).toEqual(['USAGE', 'FILE_NOT_FOUND', 'JSON_SYNTAX']);
    expect(statusOf(toy, 'FILE_NOT_FOUND')).toBe('WEAK');
    expect(worstStatus(toy, ['FILE_NOT_FOUND', 'USAGE'], 'OK')).toBe('BAD');
    expect(worstStatus(toy, ['JSON_SYNTAX'], 'OK')).toBe('OK');
    expect(worstStatus(toy, [], 'OK')).toBe('OK');
    expect(codeOfCheck(toy)).toEqual({ a: 'USAGE', b: 'FILE_NOT_FOUND' });
    expect(checkColumns(toy)).toEqual(['check_a', 'check_b']);
    expect(checkColumns(toy, ['b', 'a'])).toEqual(['check_b', 'check_a']);
    expect(checkCells(toy, { a: 'pass', b: 'fail' })).toEqual({ check_a: 'pass', check_b: 'fail' });
  });

  it('one code may stand for several checks: each failed one reports it', () => {
    const several = checkCatalogue(['a', 'b', 'c'], ['BAD'], {
      USAGE: { check: ['a', 'b'], status: 'BAD' },
      FILE_NOT_FOUND: { check: 'c', status: 'BAD' },
    });
    expect(codeOfCheck(several)).toEqual({ a: 'USAGE', b: 'USAGE', c: 'FILE_NOT_FOUND' });
    // @ts-expect-error the check is not the catalogue's
    expect(() => checkCatalogue(['a'], ['BAD'], { USAGE: { check: ['a', 'z'], status: 'BAD' } })).toThrow(
      'catalogue: USAGE names the unknown check z',
    );
  });

  it('refuses a code on an unknown check or status, a check without a code, a column order that is not of the checks', () => {
    // @ts-expect-error the check is not the catalogue's
    expect(() => checkCatalogue(['a'], ['BAD'], { USAGE: { check: 'z', status: 'BAD' } })).toThrow(
      'catalogue: USAGE names the unknown check z',
    );
    // @ts-expect-error the status is not the catalogue's
    expect(() => checkCatalogue(['a'], ['BAD'], { USAGE: { check: 'a', status: 'WORSE' } })).toThrow(
      'catalogue: USAGE names the unknown status WORSE',
    );
    expect(() => checkCatalogue(['a', 'b'], ['BAD'], { USAGE: { check: 'a', status: 'BAD' } })).toThrow(
      'catalogue: the check b reports no code',
    );
    expect(() => checkColumns(toy, ['a'])).toThrow('checkColumns: a is not an order of the checks a, b');
  });

  it.each([
    ['proof', PROOF_CATALOGUE],
    ['tlog', TLOG_CATALOGUE],
    ['timeline', TIMELINE_CATALOGUE],
    ['timestamp', TIMESTAMP_CATALOGUE],
    ['rails', RAIL_CATALOGUE],
    ['AER-1 receipt', RECEIPT_CATALOGUE],
    ['intake log', INTAKE_LOG_CATALOGUE],
    ['intake receipt', INTAKE_RECEIPT_CATALOGUE],
  ] as const)('%s: every code is in the reasons catalogue', (_name, catalogue) => {
    for (const code of codesOf(catalogue)) expect(REASONS, code).toHaveProperty(code);
  });

  it("a tlog code's status is decided once: the proof catalogue reads the log's", () => {
    for (const code of codesOf(TLOG_CATALOGUE))
      expect(PROOF_CATALOGUE.codes[code]).toEqual({ check: 'tlog', status: TLOG_CATALOGUE.codes[code].status });
    expect(proofStatus(['PROOF_TLOG_SET'])).toBe('UNTRUSTED');
  });

  it('a timeline is BROKEN by the status its codes imply, not by their names', () => {
    expect(codesOf(TIMELINE_CATALOGUE).filter((c) => statusOf(TIMELINE_CATALOGUE, c) === 'BROKEN')).toEqual(
      codesOf(TIMELINE_CATALOGUE).filter((c) => c.startsWith('CHAIN_')),
    );
    expect(TIMELINE_CHECK_CODES.structure).toBe('CHAIN_MALFORMED');
    expect(statusOf(TIMELINE_CATALOGUE, 'COMMITMENT_FOREIGN')).toBeNull();
  });

  it("an AER-1 receipt is NONCONFORMANT by its codes' status: every shape check is RECEIPT_MALFORMED, the hash against the bytes RECEIPT_OUTPUT_HASH_MISMATCH", () => {
    expect(RECEIPT_CHECKS.filter((c) => RECEIPT_CHECK_CODES[c] === 'RECEIPT_MALFORMED')).toEqual(
      RECEIPT_CHECKS.filter((c) => c !== 'output_commitment'),
    );
    expect(RECEIPT_CHECK_CODES.output_commitment).toBe('RECEIPT_OUTPUT_HASH_MISMATCH');
    for (const code of codesOf(RECEIPT_CATALOGUE)) expect(worstStatus(RECEIPT_CATALOGUE, [code], 'CONFORMANT'), code).toBe('NONCONFORMANT');
    expect(verifyReceipt(null)).toMatchObject({ status: 'NONCONFORMANT', reason_codes: ['RECEIPT_MALFORMED'] });
  });
});
