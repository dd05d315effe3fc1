// Whether an answer refuses (SPEC §13.1), judged from the answer as written, the same way in both
// columns: the columns differ only in what "served" means. A boilerplate phrase must not buy a
// refusal: a refusal formula followed by an answer, an amount, a citation of anything the record
// was not served, or a cut answer is an answer. Pure: the classify stage feeds it each record.
import type { RefusalRule } from '../study/study.ts';

/** What the judgement reads of one record, once its assertions are extracted. */
export interface RefusalFacts {
  /** The refusal pattern's verdict on the text (refusalByText); null without a pattern. */
  byText: boolean | null;
  /** The submission's `refused` flag: its declaration, never the judgement. */
  flag: boolean;
  truncated: boolean;
  /** The answer carries an amount. */
  hasAmount: boolean;
  /** The identifiers the answer cites (stubs of a cut answer excluded), in the vocabulary or not. */
  cited: readonly string[];
}

/** What the judgement reads of an answer's extracted assertions: whether it carries an amount, and what it cites (stubs excluded). */
export function assertionFacts(
  assertions: ReadonlyArray<{ kind: string; stub: boolean; ref: string | null }>,
): Pick<RefusalFacts, 'hasAmount' | 'cited'> {
  return {
    hasAmount: assertions.some((a) => a.kind === 'amount'),
    cited: assertions.filter((a) => a.kind === 'citation' && !a.stub && a.ref !== null).map((a) => a.ref!),
  };
}

/** The refusal pattern's verdict on the text alone: it matches, and at most maxTailChars code points lie outside the match. */
export function refusalByText(text: string, rule: RefusalRule): boolean | null {
  if (rule.pattern === null) return null;
  const trimmed = text.trim();
  const match = rule.pattern.exec(trimmed);
  if (match === null) return false;
  // Code points, as a reader counts characters; the match's own length in code points too.
  return [...trimmed].length - [...match[0]].length <= rule.maxTailChars;
}

/**
 * The judgement in one column: `served` says whether a reference was served to the record in that
 * column. Without a pattern (a weakened mode) the flag stands in for the text; a cut answer is never
 * a refusal (SPEC §13.1: it is TRUNCATED).
 */
export function judgeRefusal(facts: RefusalFacts, served: (ref: string) => boolean): boolean {
  if (facts.truncated) return false;
  if (facts.byText === null) return facts.flag;
  return facts.byText && !facts.hasAmount && facts.cited.every(served);
}
