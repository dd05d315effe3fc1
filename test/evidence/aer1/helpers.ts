// Shared by the AER-1 tests: commitment lines read the way the verify stage reads each line of
// its file (through the canonical parser, with its place), and the study's closes_at.
import { indexCommitments, readCommitmentText, type CommitmentIndex, type CommitmentLine } from '../../../pipeline/evidence/aer1/index.ts';
import { canonicalJson } from '../../../pipeline/formats/canonical-json.ts';
import { sha256Hex } from '../../../pipeline/formats/hash.ts';

export const CLOSES_AT = '2026-11-16T00:00:00Z';
export const COMMITMENTS_FILE = 'inputs/commitments.jsonl';

/** The commitments file made of these lines (objects written as canonical JSON, or raw text). */
export function commitmentsText(...lines: unknown[]): string {
  return lines
    .map((l) => (typeof l === 'string' ? l : canonicalJson(l)))
    .map((l) => `${l}\n`)
    .join('');
}

/** These lines (objects as canonical JSON, or raw text) read as lines 1, 2, … of COMMITMENTS_FILE. */
export function commitmentLines(...lines: unknown[]): CommitmentLine[] {
  let offset = 0;
  return lines.map((l, i) => {
    const text = typeof l === 'string' ? l : canonicalJson(l);
    const at = { file: COMMITMENTS_FILE, line: i + 1, byte_offset: offset, line_sha256: sha256Hex(text) };
    offset += Buffer.byteLength(text) + 1;
    return readCommitmentText(text, at);
  });
}

/** The index of these commitment lines. */
export function commitmentIndex(...lines: unknown[]): CommitmentIndex {
  return indexCommitments(commitmentLines(...lines));
}
