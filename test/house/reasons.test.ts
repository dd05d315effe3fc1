// The catalogue gives every code its exit code (SPEC §10); a PreregError takes it from there.
import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeOf, PreregError, REASONS, type ReasonCode } from '../../pipeline/reasons.ts';

describe('exit codes come from the catalogue', () => {
  it.each([
    ['USAGE', EXIT.usage],
    ['INTERNAL_ERROR', EXIT.internal],
    ['FREEZE_EXISTS', EXIT.conflict],
    ['CORPUS_PATH_UNSAFE', EXIT.conflict],
    ['INIT_TARGET_EXISTS', EXIT.conflict],
    ['TSA_UNAVAILABLE', EXIT.blocked], // no valid token, whether no TSA is configured or none answers
    ['AUDIT_NOT_REPRODUCED', EXIT.failures],
    ['TRUST_DRIFT', EXIT.blocked],
    ['FILE_NOT_FOUND', EXIT.blocked],
  ] as const)('%s exits %i', (code, exit) => {
    expect(exitCodeOf(code)).toBe(exit);
    expect(new PreregError(code, 'm').exitCode).toBe(exit);
  });

  it("every entry's exit is one of SPEC §10's, and a stage may still say otherwise", () => {
    const exits = new Set<number>(Object.values(EXIT));
    for (const code of Object.keys(REASONS) as ReasonCode[]) expect(exits.has(exitCodeOf(code))).toBe(true);
    const e = new PreregError('FILE_NOT_FOUND', 'x does not exist', { path: 'x' }, EXIT.usage);
    expect([e.code, e.exitCode, e.details]).toEqual(['FILE_NOT_FOUND', EXIT.usage, { path: 'x' }]);
  });
});
