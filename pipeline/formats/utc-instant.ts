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
