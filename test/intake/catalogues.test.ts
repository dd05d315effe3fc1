// The intake verifier's two catalogues decide which findings fail: the log's (every code fails
// the intake rail, and so does a file that cannot be read) and a receipt's (against the operator:
// the audit fails; proves nothing against it: a note in the audit, a failure of the participant's
// own check; informational: neither). Each code's place is written out here, so a wrong status
// in the catalogue fails this test.
import { describe, expect, it } from 'vitest';
import { codesOf } from '../../pipeline/evidence/check-catalogue.ts';
import {
  againstOperator,
  failsIntake,
  INTAKE_LOG_CATALOGUE,
  INTAKE_RECEIPT_CATALOGUE,
  receiptFailures,
  type IntakeReceiptCode,
  type ReceiptCheck,
} from '../../pipeline/intake/verify-log.ts';
import { EXIT, exitCodeOf } from '../../pipeline/reasons.ts';

const receipt = (...codes: IntakeReceiptCode[]): ReceiptCheck => ({
  file: 'r.receipt.json',
  seq: 0,
  entry_digest: null,
  sealed: true,
  findings: codes.map((code) => ({ code, file: 'r.receipt.json', message: code })),
});

describe("a receipt's findings", () => {
  it.each([
    // code, fails the audit's intake rail, fails the participant's check
    ['INTAKE_RECEIPT_NOT_SEALED', true, true],
    ['INTAKE_RECEIPT_EQUIVOCATION', true, true],
    ['INTAKE_KEY_UNCERTIFIED', false, true],
    ['SEAL_INVALID', true, true],
    ['INTAKE_RECEIPT_SIGNATURE_INVALID', false, true],
    ['INTAKE_RECEIPT_INVALID', false, true],
    ['INTAKE_TOKEN_INVALID', false, true],
    ['INTAKE_RECEIPT_SUPERSEDED', false, false],
  ] as const)("%s: against the operator %s, fails the participant's check %s", (code, against, fails) => {
    const c = receipt(code);
    expect(againstOperator(c.findings[0]!)).toBe(against);
    expect(receiptFailures(c).map((f) => f.code)).toEqual(fails ? [code] : []);
  });

  it('lists every code checkReceipts reports', () => {
    expect(codesOf(INTAKE_RECEIPT_CATALOGUE).sort()).toEqual([
      'INTAKE_KEY_UNCERTIFIED',
      'INTAKE_RECEIPT_EQUIVOCATION',
      'INTAKE_RECEIPT_INVALID',
      'INTAKE_RECEIPT_NOT_SEALED',
      'INTAKE_RECEIPT_SIGNATURE_INVALID',
      'INTAKE_RECEIPT_SUPERSEDED',
      'INTAKE_TOKEN_INVALID',
      'SEAL_INVALID',
    ]);
  });

  it("a participant's check that fails exits 3 when the receipt or the log cannot be checked, else 1 (the codes' exits)", () => {
    const blocked = codesOf(INTAKE_RECEIPT_CATALOGUE).filter(
      (c) => receiptFailures(receipt(c)).length > 0 && exitCodeOf(c) === EXIT.blocked,
    );
    const failures = codesOf(INTAKE_RECEIPT_CATALOGUE).filter(
      (c) => receiptFailures(receipt(c)).length > 0 && exitCodeOf(c) === EXIT.failures,
    );
    // An uncertified key: the receipt cannot be traced to the operator's identity at all.
    expect(blocked.sort()).toEqual(['INTAKE_KEY_UNCERTIFIED', 'INTAKE_RECEIPT_INVALID', 'SEAL_INVALID']);
    expect(failures.sort()).toEqual([
      'INTAKE_RECEIPT_EQUIVOCATION',
      'INTAKE_RECEIPT_NOT_SEALED',
      'INTAKE_RECEIPT_SIGNATURE_INVALID',
      'INTAKE_TOKEN_INVALID',
    ]);
  });
});

describe("the log's findings", () => {
  it('every code the log and seal report fails the intake', () => {
    for (const code of codesOf(INTAKE_LOG_CATALOGUE)) expect(failsIntake(code), code).toBe(true);
    expect(codesOf(INTAKE_LOG_CATALOGUE)).toEqual(
      expect.arrayContaining(['INTAKE_TOKEN_INVALID', 'SEAL_INVALID', 'INTAKE_DRIFT', 'INTAKE_SIGNATURE_INVALID']),
    );
  });

  it("a file that cannot be read fails it too, with its refusal's own code", () => {
    expect(failsIntake('FILE_NOT_FOUND')).toBe(true);
    expect(failsIntake('JSON_SYNTAX')).toBe(true);
  });
});
