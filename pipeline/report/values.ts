// How the report writes values: cells as text, rates as exact fractions with a percentage rounded
// in integer arithmetic, metric names in words. Pure; formatting happens here and nowhere else.
import { canonicalJson, JsonNumber } from '../formats/canonical-json.ts';
import type { Cell, Row } from '../store/cells.ts';
import type { MetricLabel } from '../study/study.ts';

export function integer(c: Cell | undefined): bigint | null {
  if (typeof c === 'bigint') return c;
  if (c instanceof JsonNumber && /^-?\d+$/.test(c.lexeme)) return BigInt(c.lexeme);
  return null;
}

/** A cell as text: integers and doubles exactly as in results.json, NULL as an em dash. */
export function show(c: Cell | undefined): string {
  if (c === null || c === undefined) return '—';
  if (typeof c === 'bigint' || typeof c === 'boolean') return String(c);
  if (typeof c === 'string') return c;
  if (c instanceof JsonNumber) return c.lexeme;
  return canonicalJson(c);
}

/** A struct cell's fields (an empty object for any other cell): nested rows read from the store. */
export function fieldsOf(c: Cell | undefined): { readonly [key: string]: Cell } {
  return c !== null && c !== undefined && typeof c === 'object' && !Array.isArray(c) && !(c instanceof JsonNumber) ? c : {};
}

/** round(10 · 100 · n / d), half away from zero: a percentage in tenths. */
function tenthsOfPercent(n: bigint, d: bigint): bigint {
  const num = n * 1000n * (d < 0n ? -1n : 1n);
  const den = d < 0n ? -d : d;
  const q = (2n * (num < 0n ? -num : num) + den) / (2n * den);
  return num < 0n ? -q : q;
}

export function tenthsText(t: bigint): string {
  const neg = t < 0n;
  const a = neg ? -t : t;
  return `${neg ? '−' : ''}${a / 10n}.${a % 10n}`;
}

export interface Fraction {
  text: string;
  /** Tenths of a percent, or null when the denominator is 0 or missing. */
  tenths: bigint | null;
}

export function fraction(numerator: Cell | undefined, denominator: Cell | undefined): Fraction {
  const n = integer(numerator);
  const d = integer(denominator);
  if (n === null || d === null) return { text: `${show(numerator)}/${show(denominator)}`, tenths: null };
  if (d === 0n) return { text: `${n}/0 (n/a)`, tenths: null };
  const t = tenthsOfPercent(n, d);
  return { text: `${n}/${d} (${tenthsText(t)}%)`, tenths: t };
}

/** proven − declared, in tenths of percentage points, exact until the final rounding; null when undefined. */
export function gapTenths(row: Row): bigint | null {
  const [d, nd, p, np] = [integer(row.declared), integer(row.n_declared), integer(row.proven), integer(row.n_proven)];
  if (d === null || nd === null || p === null || np === null || nd === 0n || np === 0n) return null;
  return tenthsOfPercent(p * nd - d * np, np * nd);
}

export function gap(row: Row): string {
  const t = gapTenths(row);
  return t === null ? '—' : `${t > 0n ? '+' : ''}${tenthsText(t)} pts`;
}

/**
 * A decimal written in results.json (a threshold, an observed double) as a percentage: exact by
 * moving the decimal point when the lexeme is plain (`0.05` → `5%`), else rounded to one decimal
 * and marked `≈`. Never the raw double (`0.9791666666666666`).
 */
export function percentOf(c: Cell | undefined): string {
  if (c === null || c === undefined) return '—';
  const lexeme = c instanceof JsonNumber ? c.lexeme : typeof c === 'bigint' ? String(c) : null;
  if (lexeme === null) return show(c);
  const plain = /^(-?)(\d+)(?:\.(\d+))?$/.exec(lexeme);
  if (plain && (plain[3] ?? '').length <= 3) {
    const frac = (plain[3] ?? '').padEnd(2, '0');
    const digits = `${plain[2]}${frac.slice(0, 2)}`.replace(/^0+(?=\d)/, '');
    const rest = frac.slice(2);
    return `${plain[1] === '-' ? '−' : ''}${digits}${rest === '' ? '' : `.${rest}`}%`;
  }
  const x = Number(lexeme);
  return Number.isFinite(x) ? `≈ ${(x * 100).toFixed(1)}%` : lexeme;
}

/**
 * The observed value of a hypothesis: its exact fraction when section 5 gives one, and the system
 * it is (`observed_system`) when section 5 names one — "at least one system" is read of a system.
 */
export function observedOf(row: Row): string {
  const value =
    integer(row.observed_num) !== null && integer(row.observed_den) !== null
      ? fraction(row.observed_num, row.observed_den).text
      : percentOf(row.observed);
  return typeof row.observed_system === 'string' && row.observed_system !== '' ? `${value}, ${show(row.observed_system)}` : value;
}

export type MetricLabels = Readonly<Record<string, MetricLabel>>;

/**
 * A metric in words, with the better direction, from study.json's report.metrics; a constancy or
 * sign-test metric `name/declared` or `name/proven` is named after `name`, with its column. A
 * metric study.json does not name stays as section 5 wrote it.
 */
export function metricName(metric: string, labels: MetricLabels): string {
  const [base, column] = /^(.*)\/(declared|proven)$/.exec(metric)?.slice(1) ?? [metric, null];
  const label = labels[base!];
  if (label === undefined) return metric;
  return `${label.label}${column ? `, ${column}` : ''}${label.better ? ` (${label.better} is better)` : ''}`;
}

export function codePointOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** A double of results.json (an interval bound, a p-value) as a number, or null. */
function numberOf(c: Cell | undefined): number | null {
  if (c instanceof JsonNumber) return Number(c.lexeme);
  if (typeof c === 'bigint') return Number(c);
  return null;
}

/**
 * An exact interval of a rate as percentages to one decimal, widened outwards (the lower bound
 * rounded down, the upper up) so that what is shown always contains the interval: `[88.9%, 100.0%]`.
 */
export function intervalText(lower: Cell | undefined, upper: Cell | undefined): string {
  const [lo, hi] = [numberOf(lower), numberOf(upper)];
  if (lo === null || hi === null) return '—';
  const down = Math.max(0, Math.floor(lo * 1000 + 1e-9) / 10);
  const up = Math.min(100, Math.ceil(hi * 1000 - 1e-9) / 10);
  return `[${down.toFixed(1)}%, ${up.toFixed(1)}%]`;
}

/** The confidence level 1 − alpha as a percentage, exactly as alpha is written (0.05 → 95%). */
export function levelText(alpha: Cell | undefined): string {
  const a = percentOf(alpha);
  const m = /^(\d+)(?:\.(\d+))?%$/.exec(a);
  if (!m) return `1 − ${show(alpha)}`;
  const decimals = (m[2] ?? '').length;
  const scale = 10 ** decimals;
  const level = 100 * scale - Number(`${m[1]}${m[2] ?? ''}`);
  return `${(level / scale).toFixed(decimals)}%`;
}

/** A p-value as results.json writes it, shortened for reading: 4 significant digits. */
export function pValueText(c: Cell | undefined): string {
  const x = numberOf(c);
  if (x === null) return show(c);
  return x === 0 ? '0' : x >= 0.001 ? x.toPrecision(4).replace(/\.?0+$/, '') : x.toExponential(3);
}
