// A submission line (SPEC §5.1) assembled from what a participant holds: for each call, the
// ArkForge proof as issued, its request and response bodies, optionally the owner's disclosure of
// a 3.x proof; the answer; optionally the AER-1 timeline of the attempt. Written as canonical JSON
// (SPEC §3: bodies keep their number lexemes, so their hashes are the ones the issuer computed)
// and checked by the line checks ingest, validate and intake run (pipeline/ingest/submission.ts):
// a line this builds is accepted there, or the build says why not. Pure: values in, line out.
import { canonicalJson, type JsonValue } from '../formats/canonical-json.ts';
import { inspectLine } from '../ingest/lines.ts';
import {
  SUBMISSION_FORMAT,
  SubmissionChecker,
  type LineOutcome,
  type SubmissionEvidence,
  type SubmissionLine,
} from '../ingest/submission.ts';
import type { LineProtocol } from '../study/study.ts';

/**
 * One evidence item: the proof, and the bodies and disclosure the participant kept (the owner's
 * openings of a 3.x proof: `{"disclosed": {field: {nonce, value}}}`). The members are the line's
 * own, picked: a member the builder does not write is not offered.
 */
export type EvidenceInput = Pick<SubmissionEvidence<JsonValue>, 'proof' | 'request' | 'response' | 'disclosure'>;

/** The line's members the builder writes (`receipts`: the attempt's AER-1 timeline, a bare array or prereg's envelope), with its evidence items. */
export type SubmissionInput = Pick<SubmissionLine<JsonValue>, 'system_id' | 'item_id' | 'attempt' | 'answer' | 'receipts'> & {
  evidence: readonly EvidenceInput[];
};

/** What the line checks know of the study: its items (null: not checked) and protocol. */
export interface BuildContext {
  items: ReadonlySet<string> | null;
  protocol: LineProtocol;
  /** Lines already in the file the new line joins, in order (a repeated triple is SUBMISSION_DUPLICATE). */
  before?: readonly string[];
  /** The file's name in a reject; default "<built line>". */
  file?: string;
  /** The study's limits.max_line_bytes; default the pipeline's (4 MiB). */
  maxLineBytes?: number;
}

export interface BuiltSubmission {
  /** The line's text (canonical JSON, no newline). */
  line: string;
  /** The line checks' outcome: `accepted` with the record, or `rejected` with its reason code. */
  outcome: LineOutcome;
}

export function buildSubmissionLine(
  input: SubmissionInput,
  context: BuildContext = { items: null, protocol: { systems: null, attemptsPerItem: null } },
): BuiltSubmission {
  const evidence = input.evidence.map((e) => ({
    proof: e.proof,
    ...(e.request === undefined ? {} : { request: e.request }),
    ...(e.response === undefined ? {} : { response: e.response }),
    ...(e.disclosure === undefined ? {} : { disclosure: e.disclosure }),
  }));
  const line = canonicalJson({
    format: SUBMISSION_FORMAT,
    system_id: input.system_id,
    item_id: input.item_id,
    attempt: input.attempt,
    answer: input.answer,
    evidence,
    ...(input.receipts === undefined ? {} : { receipts: input.receipts }),
  });
  const file = context.file ?? '<built line>';
  const checker = new SubmissionChecker(context.items, true, context.protocol);
  let offset = 0;
  const check = (text: string, lineNo: number) => {
    const bytes = Buffer.from(text, 'utf8');
    const outcome = checker.check(inspectLine(file, lineNo, offset, bytes, context.maxLineBytes));
    offset += bytes.length + 1;
    return outcome;
  };
  const before = context.before ?? [];
  before.forEach((text, i) => {
    check(text, i + 1);
  });
  return { line, outcome: check(line, before.length + 1) };
}
