// The pure rules of a deviation entry (pipeline/evidence/deviations/check.ts), one row per rule:
// not before the freeze's earliest anchor, "after the submissions were seen" from closes_at, and
// the intake position it names being one of the intake log's.
import { describe, expect, it } from 'vitest';
import { afterSubmissions, deviationTimeFinding, intakePositionProblem } from '../../../pipeline/evidence/deviations/check.ts';

const ZERO = '0'.repeat(64);
const [A, B] = ['a'.repeat(64), 'b'.repeat(64)];

describe('deviation time rules', () => {
  it.each([
    [
      '2026-11-01T08:59:59Z',
      '2026-11-01T09:00:00Z',
      "dated 2026-11-01T08:59:59Z, before the freeze's earliest anchor (2026-11-01T09:00:00Z)",
    ],
    ['2026-11-01T09:00:00Z', '2026-11-01T09:00:00Z', null],
    ['2026-11-20T00:00:00Z', '2026-11-01T09:00:00Z', null],
    ['2020-01-01T00:00:00Z', null, null], // no anchor verifies: the anchors' own finding, not this rule's
  ])('dated %s, frozen at %s → %s', (genTime, frozenAt, expected) => {
    expect(deviationTimeFinding(genTime, frozenAt)).toBe(expected);
  });

  it.each([
    ['2026-11-15T23:59:59Z', false],
    ['2026-11-16T00:00:00Z', true],
    ['2026-11-16T00:05:00.5Z', true],
  ])('dated %s against closes_at 2026-11-16T00:00:00Z: after the submissions were seen = %s', (genTime, expected) => {
    expect(afterSubmissions(genTime, '2026-11-16T00:00:00Z')).toBe(expected);
  });
});

describe('the intake position a deviation names', () => {
  it.each([
    [{ entries: 0, head: ZERO }, [], null],
    [{ entries: 0, head: ZERO }, [A, B], null],
    [{ entries: 2, head: B }, [A, B], null],
    [{ entries: 1, head: A }, [A, B], null],
    [{ entries: 1, head: B }, [A, B], `names intake head ${B} after 1 entry; inputs/intake.jsonl has ${A} there`],
    [{ entries: 0, head: A }, [A], `names intake head ${A} after 0 entries; inputs/intake.jsonl has ${ZERO} there`],
    [{ entries: 3, head: B }, [A, B], 'names intake entry 2, but inputs/intake.jsonl holds 2 entries'],
  ])('%j in a log of %j → %s', (position, digests, expected) => {
    expect(intakePositionProblem(position, digests)).toBe(expected);
  });
});
