// ISO-8601 UTC instants as the trust policy, proofs and tokens write them (SPEC §5.4: windows are
// half-open and compared to the microsecond). Shared by the trust material and the verifiers.

// ISO-8601 UTC: date, 'T', time with seconds, optional fraction, 'Z' or '+00:00'.
const UTC_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|\+00:00)$/;

/**
 * Epoch milliseconds of an ISO-8601 UTC instant, with the digits below the millisecond kept as
 * a fraction (a double near today resolves ≈0.24 µs, so a skew limit holds to the microsecond);
 * undefined for any other text or an impossible date (month 13, 30 February, hour 24, leap second).
 */
export function utcMillis(text: string): number | undefined {
  const m = UTC_INSTANT.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac] = m as unknown as [string, string, string, string, string, string, string, string?];
  const whole = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  // Date.UTC rolls over out-of-range fields; a round trip catches them (years 0000–9999 only).
  if (!Number.isFinite(whole) || new Date(whole).toISOString().slice(0, 19) !== `${y}-${mo}-${d}T${h}:${mi}:${s}`) {
    return undefined;
  }
  return frac === undefined ? whole : whole + Number(`0.${frac}`) * 1000;
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
