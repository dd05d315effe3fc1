// The one shape of a verifier's catalogue of checks: its checks in the order they are recorded,
// and every reason code it reports with the check that reports it and the status the code implies.
// The code lists, the check a code belongs to, a result's status, the code a failed check reports
// and the check_* columns of a table are read from a catalogue, never written out again. Pure.
import type { ReasonCode } from '../reasons.ts';
import type { CheckOutcome } from './check-outcome.ts';

/**
 * One code: the check that reports it, or the checks when one code stands for several (every
 * malformed member of an AER-1 receipt is RECEIPT_MALFORMED), null: the input as a whole; and the
 * status it implies (null: informational, never changing the status).
 */
export interface CodeEntry<Check extends string = string, Status extends string = string> {
  readonly check: Check | readonly Check[] | null;
  readonly status: Status | null;
}

/** The checks an entry names, as a list. */
function checksOf(e: CodeEntry): readonly string[] {
  return e.check === null ? [] : typeof e.check === 'string' ? [e.check] : e.check;
}

/** The checks an entry's type names, as a union. */
type ChecksOf<E> = E extends { readonly check: infer C } ? (C extends readonly (infer X)[] ? X : C) : never;

export interface CheckCatalogue<
  Check extends string = string,
  Status extends string = string,
  Codes extends { readonly [C in ReasonCode]?: CodeEntry<Check, Status> } = { readonly [C in ReasonCode]?: CodeEntry<Check, Status> },
> {
  /** The checks, in the order they are recorded. */
  readonly checks: readonly Check[];
  /** The statuses a code can imply, the one that wins first: a result takes the first its codes imply. */
  readonly statuses: readonly Status[];
  /** Every code, in the order listed, with its check and status. */
  readonly codes: Codes;
}

/**
 * A catalogue, checked once when its module loads: every code names one of the checks (or null)
 * and one of the statuses (or null), and every check reports at least one code.
 */
export function checkCatalogue<
  const Check extends string,
  const Status extends string,
  const Codes extends { readonly [C in ReasonCode]?: CodeEntry<NoInfer<Check>, NoInfer<Status>> },
>(checks: readonly Check[], statuses: readonly Status[], codes: Codes): CheckCatalogue<Check, Status, Codes> {
  const entries = Object.entries(codes) as Array<[string, CodeEntry]>;
  for (const [code, e] of entries) {
    for (const check of checksOf(e))
      if (!(checks as readonly string[]).includes(check)) throw new TypeError(`catalogue: ${code} names the unknown check ${check}`);
    if (e.status !== null && !(statuses as readonly string[]).includes(e.status))
      throw new TypeError(`catalogue: ${code} names the unknown status ${e.status}`);
  }
  for (const check of checks) {
    if (!entries.some(([, e]) => checksOf(e).includes(check))) throw new TypeError(`catalogue: the check ${check} reports no code`);
  }
  return { checks, statuses, codes };
}

/** The catalogue's codes, in the order listed. */
export type CodeOf<K extends CheckCatalogue> = keyof K['codes'] & ReasonCode;

export function codesOf<K extends CheckCatalogue>(catalogue: K): Array<CodeOf<K>> {
  return Object.keys(catalogue.codes) as Array<CodeOf<K>>;
}

/** Whether the catalogue lists `code` (a verifier may also pass on a refusal of its own, e.g. a file that cannot be read). */
export function isCodeOf<K extends CheckCatalogue>(catalogue: K, code: ReasonCode): code is CodeOf<K> {
  return Object.hasOwn(catalogue.codes, code);
}

/** The status `code` implies (null: informational). */
export function statusOf<K extends CheckCatalogue>(catalogue: K, code: CodeOf<K>): K['statuses'][number] | null {
  return (catalogue.codes as Record<string, CodeEntry>)[code]!.status;
}

/** The status the codes imply: the first of the catalogue's statuses any of them implies, else `none`. Informational codes do not count. */
export function worstStatus<K extends CheckCatalogue, None extends string>(
  catalogue: K,
  codes: readonly CodeOf<K>[],
  none: None,
): K['statuses'][number] | None {
  let rank = catalogue.statuses.length;
  for (const code of codes) {
    const status = statusOf(catalogue, code);
    if (status !== null) rank = Math.min(rank, catalogue.statuses.indexOf(status));
  }
  return catalogue.statuses[rank] ?? none;
}

/** The code each failed check reports: the first code listed for it. */
export function codeOfCheck<const Check extends string, const Codes extends { readonly [C in ReasonCode]?: CodeEntry<Check, string> }>(
  catalogue: CheckCatalogue<Check, string, Codes>,
): { readonly [C in Check]: { [K in keyof Codes]: C extends ChecksOf<Codes[K]> ? K : never }[keyof Codes] & ReasonCode } {
  const byCheck: Record<string, string> = {};
  for (const [code, e] of Object.entries(catalogue.codes) as Array<[string, CodeEntry]>) {
    for (const check of checksOf(e)) if (!(check in byCheck)) byCheck[check] = code;
  }
  return byCheck as never;
}

/** The check_* column of each check (or `prefix`_*), in the order of `order` (the table's own, which must hold every check once). */
export function checkColumns<const Check extends string, const Prefix extends string = 'check_'>(
  catalogue: CheckCatalogue<Check>,
  order: readonly Check[] = catalogue.checks,
  prefix: Prefix = 'check_' as Prefix,
): Array<`${Prefix}${Check}`> {
  if (order.length !== catalogue.checks.length || catalogue.checks.some((c) => !order.includes(c))) {
    throw new TypeError(`checkColumns: ${order.join(', ')} is not an order of the checks ${catalogue.checks.join(', ')}`);
  }
  return order.map((c) => `${prefix}${c}` as const);
}

/** A result's outcomes as the cells of its check_* columns. */
export function checkCells<const Check extends string>(
  catalogue: CheckCatalogue<Check>,
  outcomes: Readonly<Record<Check, CheckOutcome>>,
): { [C in Check as `check_${C}`]: CheckOutcome } {
  return Object.fromEntries(catalogue.checks.map((c) => [`check_${c}`, outcomes[c]])) as never;
}
