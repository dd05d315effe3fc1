// The CLI layer's options that several commands share, declared once, and their parsers: each
// command spreads the declaration it takes, so a flag means the same thing wherever it is given.
import type { OptionSpec } from './command.ts';
import { PreregError } from './reasons.ts';

/** The key options, for every command that emits (`emit`, and `run`, which ends with emit). */
export const KEY_OPTIONS = {
  'operator-key': { type: 'string' },
  'cms-key': { type: 'string' },
  'cms-cert': { type: 'string' },
} as const satisfies OptionSpec;

/**
 * The flags by which an auditor brings its own trust for the freeze's anchors, declared once for
 * every command that judges them (check-anchors, audit): the same names, types and repetition.
 */
export const ANCHOR_AUDITOR_OPTIONS = {
  'tsa-root': { type: 'string', multiple: true },
  'expect-freeze': { type: 'string' },
  'min-witnesses': { type: 'string' },
} as const satisfies OptionSpec;

export function parseTsaOverrides(values: unknown): Array<{ name: string; url: string }> | null {
  if (!Array.isArray(values) || values.length === 0) return null;
  return values.map((v: string) => {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new PreregError('USAGE', `--tsa expects NAME=URL, got ${v}`);
    return { name: v.slice(0, eq), url: v.slice(eq + 1) };
  });
}

export function positiveInt(value: unknown, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new PreregError('USAGE', `${flag} expects a non-negative integer`);
  return n;
}
