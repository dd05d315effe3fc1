// RFC 3339 date-times as AER-1 writes them (receipts' created_at, commitments' published_at):
// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, a real Gregorian calendar date (2023-02-29 and
// 1900-02-29 are not, 2024-02-29 is), years 0001–9999, no leap second, any number of fraction
// digits (RFC 3339 §5.6 `time-secfrac = "." 1*DIGIT`). Instants are compared exactly: whole
// seconds since the epoch plus the fraction's digits, never a rounded double.

const RFC3339 = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(?:Z|([+-])([0-9]{2}):([0-9]{2}))$/;
const TRAILING_ZEROS = /0+$/;

/** An instant: whole UTC seconds since 1970-01-01 (negative before) and the fraction's digits. */
export interface Rfc3339Instant {
  seconds: number;
  /** Digits after the decimal point, trailing zeros removed ("" for a whole second). */
  fraction: string;
}

/** The instant `text` names, or null when it is not an RFC 3339 date-time with a real date. */
export function parseRfc3339(text: string): Rfc3339Instant | null {
  const m = RFC3339.exec(text);
  if (m === null) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
  if (h > 23 || mi > 59 || s > 59) return null;
  let offset = 0;
  if (m[8] !== undefined) {
    const oh = Number(m[9]),
      om = Number(m[10]);
    if (oh > 23 || om > 59) return null;
    offset = (m[8] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  return { seconds: daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset, fraction: (m[7] ?? '').replace(TRAILING_ZEROS, '') };
}

/** Negative when a is earlier than b, 0 when they are the same instant, positive when later. */
export function compareInstants(a: Rfc3339Instant, b: Rfc3339Instant): number {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  const width = Math.max(a.fraction.length, b.fraction.length);
  const fa = a.fraction.padEnd(width, '0'),
    fb = b.fraction.padEnd(width, '0');
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}

function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, mo: number): number {
  return mo === 2 ? (isLeapYear(y) ? 29 : 28) : [31, 0, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]!;
}

/** Days from 1970-01-01 to y-mo-d in the proleptic Gregorian calendar (H. Hinnant's algorithm). */
function daysFromCivil(y: number, mo: number, d: number): number {
  const yy = mo <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
