// ISO-8601 UTC instants as the trust policy, proofs and tokens write them (SPEC §5.4: windows are
// half-open and compared to the microsecond). Shared by the trust material and the verifiers.

import { parseRfc3339 } from './rfc3339.ts';

/** The UTC designators these texts may end with (RFC 3339's parser also takes other offsets). */
const UTC_SUFFIX = /(?:Z|\+00:00)$/;

/**
 * Epoch milliseconds of an ISO-8601 UTC instant (date, 'T', time with seconds, optional fraction,
 * 'Z' or '+00:00'), with the digits below the millisecond kept as a fraction (a double near today
 * resolves ≈0.24 µs, so a skew limit holds to the microsecond); undefined for any other text or
 * an impossible date (month 13, 30 February, hour 24, leap second). Parsed by formats/rfc3339.ts,
 * the one date-time parser; years before 0100 stay refused, as they always were here.
 */
export function utcMillis(text: string): number | undefined {
  if (!UTC_SUFFIX.test(text)) return undefined;
  const instant = parseRfc3339(text);
  if (instant === null || Number(text.slice(0, 4)) < 100) return undefined;
  const whole = instant.seconds * 1000;
  return instant.fraction === '' ? whole : whole + Number(`0.${instant.fraction}`) * 1000;
}

/** An ISO-8601 UTC instant written with 'Z' (as the trust policy's key windows must be). */
export function isUtcInstantZ(text: unknown): text is string {
  return typeof text === 'string' && text.endsWith('Z') && utcMillis(text) !== undefined;
}

/** A half-open window [from_ms, until_ms) of epoch milliseconds; an absent end is no end (SPEC §5.4). */
export interface InstantWindow {
  readonly from_ms?: number;
  readonly until_ms?: number;
}

export function inWindow(w: InstantWindow, ms: number): boolean {
  return (w.from_ms === undefined || w.from_ms <= ms) && (w.until_ms === undefined || ms < w.until_ms);
}

/** "[2026-01-01T00:00:00.000Z, no end)", for messages. */
export function windowText(w: InstantWindow): string {
  return `[${w.from_ms === undefined ? 'no start' : new Date(w.from_ms).toISOString()}, ${w.until_ms === undefined ? 'no end' : new Date(w.until_ms).toISOString()})`;
}
