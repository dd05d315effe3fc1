// Expected tools (SPEC §13.3): does a timeline log the protocol's expected actions, in order? A
// second object beside the timeline's verification: it never changes the anchoring status, and
// whoever reads it decides what a missing action costs (with require_receipts: every proven
// credit of the record). Pure: the logged tools and the names to look for come in as arguments.
import { checkCatalogue, type CodeOf } from '../check-catalogue.ts';
import type { CheckOutcome } from '../check-outcome.ts';
import type { TimelineVerification } from './timeline.ts';

/** One check, 'tools', whose one code changes no status: the timeline's anchoring is another object. */
export const TOOLS_CATALOGUE = checkCatalogue(['tools'], [], {
  EXPECTED_TOOL_MISSING: { check: 'tools', status: null },
});

/** An expected tool: the protocol's name and the name the system logs it under. */
export interface ExpectedTool {
  tool: string;
  logged_as: string;
}

export interface ToolReconciliation {
  /** tools — 'pass': every expected tool is logged, in order; 'fail': one is not; 'skipped': the entries could not be read. */
  checks: Record<'tools', CheckOutcome>;
  /** The protocol's names of the expected tools not found in order (the first unmatched and those the rest of the timeline cannot place). */
  missing: string[];
  /** Tools the timeline logs that are none of the expected ones (under the system's names), distinct, sorted. */
  unexpected: string[];
  reason_codes: Array<CodeOf<typeof TOOLS_CATALOGUE>>;
}

/**
 * A verified timeline reconciled: the tools its entries log, in order (an entry that logs none
 * left out), read only when the verification listed its entries (every entry well-formed, seq in
 * order; an empty timeline logs nothing), else nothing is decided.
 */
export function reconcileTimeline(
  v: Pick<TimelineVerification, 'entries' | 'entry_count'>,
  expected: readonly ExpectedTool[],
): ToolReconciliation & { logged: string[] } {
  const listed = v.entries.length > 0 || v.entry_count === 0 ? v.entries.map((e) => e.tool) : null;
  return { ...reconcileTools(listed, expected), logged: (listed ?? []).filter((t): t is string => t !== null) };
}

/**
 * Whether `expected` is a subsequence of `logged` (each entry's tool in order; null for an entry
 * that logs none, as a -06 entry may). Read greedily, left to right: each expected tool is
 * matched at its first occurrence after the previous match, which decides a subsequence exactly;
 * a tool not found is missing and the next is looked for from the same place. `logged` null
 * (entries that could not be read) decides nothing.
 */
export function reconcileTools(logged: ReadonlyArray<string | null> | null, expected: readonly ExpectedTool[]): ToolReconciliation {
  if (logged === null) return { checks: { tools: 'skipped' }, missing: [], unexpected: [], reason_codes: [] };
  const missing: string[] = [];
  let from = 0;
  for (const e of expected) {
    const at = logged.indexOf(e.logged_as, from);
    if (at === -1) missing.push(e.tool);
    else from = at + 1;
  }
  const names = new Set(expected.map((e) => e.logged_as));
  const unexpected = [...new Set(logged.filter((t): t is string => t !== null && !names.has(t)))].sort();
  return missing.length === 0
    ? { checks: { tools: 'pass' }, missing, unexpected, reason_codes: [] }
    : { checks: { tools: 'fail' }, missing, unexpected, reason_codes: ['EXPECTED_TOOL_MISSING'] };
}
