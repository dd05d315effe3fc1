// Shared by the AER-1 tests: commitments read the way the verify stage reads them (a JSON-lines
// text through the canonical parser), and the study's closes_at.
import { indexCommitments, readCommitmentsJsonl, type CommitmentIndex } from '../../../pipeline/evidence/aer1/index.ts';
import { canonicalJson } from '../../../pipeline/formats/canonical-json.ts';

export const CLOSES_AT = '2026-11-16T00:00:00Z';
export const COMMITMENTS_FILE = 'inputs/commitments.jsonl';

/** The commitments file made of these lines (objects written as canonical JSON, or raw text). */
export function commitmentsText(...lines: unknown[]): string {
  return lines.map((l) => (typeof l === 'string' ? l : canonicalJson(l))).map((l) => `${l}\n`).join('');
}

/** The index of these commitment lines, read from their file text. */
export function commitmentIndex(...lines: unknown[]): CommitmentIndex {
  return indexCommitments(readCommitmentsJsonl(commitmentsText(...lines), COMMITMENTS_FILE));
}
