// `prereg validate FILE…` (SPEC §1, §5.1): what a participant runs before sending. The same line
// checks as ingest (the same code: pipeline/ingest/), without a study database. Item ids are
// checked when the study's items file is found under --root (or the current directory);
// otherwise that one check is skipped, with a note. Exit 1 when any line is rejected.
import { closeSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readItems } from '../freeze/answer-key-file.ts';
import { declaredRefusalJudge } from '../classify/declared-refusal.ts';
import { loadStudyFiles } from '../study/loaded-study.ts';
import { expectedToolsFor, expectedToolsOf, lineProtocolOf, loadStudy, type LineProtocol, type StudyConfig } from '../study/study.ts';
import { indexCommitments, reconcileTimeline, verifyTimeline } from '../evidence/aer1/index.ts';
import { parseJson } from '../formats/canonical-json.ts';
import { formatCounts, megabytes, parseMaxLineBytes, scanFile, studyMaxLineBytes, totalsOf, type FileSummary } from '../ingest/scan.ts';
import { startLineWorkers } from '../ingest/parallel-check.ts';
import { SubmissionChecker, type AcceptedRecord, type Reject } from '../ingest/submission.ts';
import { openRegularFile } from '../io/regular-file.ts';
import { studyLayout, type StudyLayout } from '../layout.ts';
import { EXIT, PreregError } from '../reasons.ts';
import type { Command } from '../command.ts';
import { shown } from '../text/display.ts';

/** The study's item ids, or null with the reason they are not checked. */
/** The study's protocol (registered systems, attempts per item) when a study is found; none otherwise. */
function findProtocol(study: StudyConfig | null): LineProtocol {
  return study !== null ? lineProtocolOf(study) : { systems: null, attemptsPerItem: null };
}

function findItems(layout: StudyLayout, found: StudyConfig | null): { ids: Set<string>; file: string } | { ids: null; note: string } {
  // The items file named by study.json, else the conventional corpus/items.jsonl.
  const study: Pick<StudyConfig, 'corpus'> = found ?? { corpus: { documents_suffix: '.md', items: 'items.jsonl' } };
  const file = join(layout.corpus, study.corpus.items);
  if (!existsSync(file)) {
    return { ids: null, note: `no study items file at ${file} (pass --root STUDY_DIR): item ids not checked` };
  }
  return { ids: new Set(readItems(layout, study as StudyConfig).map((i) => i.item_id)), file };
}

/** Rejected lines listed one by one; the rest are counted. */
export const MAX_LISTED_REJECTS = 1000;

export const validate: Command = {
  name: 'validate',
  summary: 'check submission files line by line, as ingest would, before sending them',
  help: [
    'usage: prereg validate FILE… [--max-line-bytes N] [--root STUDY_DIR] [--json]',
    '',
    'Runs the checks of `prereg ingest` on each line of each FILE (schemas/submission.schema.json,',
    'bounds, duplicate (system_id, item_id, attempt) across the files given, in order) and prints',
    "every problem as FILE:LINE[:COLUMN]: CODE: detail. Item ids are checked against the study's",
    'corpus/items.jsonl when one is found under --root (default: the current directory). With the',
    "study's refusal_pattern, a line whose `refused` flag the answer as written contradicts is a",
    'note (REFUSAL_FLAG_DISAGREES): the line is accepted, and both columns judge the answer.',
    "With the study's protocol.expected_tools, a line whose timeline does not log them in order",
    "(under the system's registered names) is a note (EXPECTED_TOOL_MISSING): the line is accepted.",
    'Exit 0 when every line would be accepted, 1 when any line would be rejected.',
  ].join('\n'),
  options: { 'max-line-bytes': { type: 'string' } },
  stage: false,
  operands: { min: 1, max: Infinity },
  jsonSchema: () => 'prereg.validate/1',
  async run(ctx) {
    if (ctx.positionals.length === 0) throw new PreregError('USAGE', 'usage: prereg validate FILE… (at least one submission file)');
    // The study's limit when a study is found (as ingest applies it), unless the flag says otherwise.
    const layout = studyLayout(ctx.root);
    // study.json read once (when first needed), for the limit, the items file and the protocol.
    let found: StudyConfig | null | undefined;
    const studyOf = () => (found ??= existsSync(layout.study) ? loadStudy(layout.study) : null);
    const maxLineBytes =
      ctx.values['max-line-bytes'] !== undefined || !existsSync(layout.study)
        ? parseMaxLineBytes(ctx.values['max-line-bytes'])
        : studyMaxLineBytes(studyOf()!);
    for (const file of ctx.positionals) closeSync(openRegularFile(file)); // every file readable before any line is checked
    const study = studyOf();
    const items = findItems(layout, study);
    const notes = items.ids === null ? [items.note] : [];
    const checker = new SubmissionChecker(items.ids, true, findProtocol(study));
    // A flag the answer as written contradicts (REFUSAL_FLAG_DISAGREES, SPEC §13.1): told to the
    // participant now, as a note (the line is accepted; the study lists it beside the scores).
    const judge = study === null || !existsSync(layout.corpus) ? null : declaredRefusalJudge(study, loadStudyFiles(layout).documents());
    let disagreeing = 0;
    const refusalNotes: string[] = [];
    const judgeRecord =
      judge === null
        ? undefined
        : (r: AcceptedRecord) => {
            const judged = judge(r);
            if (judged === r.refused) return;
            if (disagreeing++ < MAX_LISTED_REJECTS) {
              refusalNotes.push(
                `${shown(r.file)}:${r.line_no}: REFUSAL_FLAG_DISAGREES: ${r.system_id}/${r.item_id}/${r.attempt} declares refused ${String(r.refused)}, but the answer as written ${judged ? 'is' : 'is not'} a refusal by the study's rule (its refusal_pattern, a short tail, no amount, not truncated, citing only what its evidence serves): both columns will judge the answer, not the flag`,
              );
            }
          };
    // A timeline lacking an expected tool (EXPECTED_TOOL_MISSING, SPEC §13.3): told now, as a note;
    // verify reconciles it the same way (no commitment is needed to read the tools).
    const expected = study === null ? null : expectedToolsOf(study);
    const noCommitments = indexCommitments([]);
    let lacking = 0;
    const toolNotes: string[] = [];
    const checkTools = (r: AcceptedRecord) => {
      if (expected === null || study === null || r.receipts_json === null) return;
      const tools = expectedToolsFor(expected, r.system_id);
      const t = reconcileTimeline(verifyTimeline(parseJson(r.receipts_json), noCommitments, study.window.closes_at, r.system_id), tools);
      if (t.checks.tools !== 'fail' || lacking++ >= MAX_LISTED_REJECTS) return;
      toolNotes.push(
        `${shown(r.file)}:${r.line_no}: EXPECTED_TOOL_MISSING: ${r.system_id}/${r.item_id}/${r.attempt}'s timeline logs ${t.logged.length === 0 ? 'no tool' : t.logged.map(shown).join(', ')}; the study expects ${tools.map((e) => shown(e.logged_as)).join(', ')} in that order, and ${t.missing.map(shown).join(', ')} is missing: the line is accepted, but with require_receipts the record earns no proven credit`,
      );
    };
    const onRecord =
      judgeRecord === undefined && expected === null
        ? undefined
        : (r: AcceptedRecord) => {
            judgeRecord?.(r);
            checkTools(r);
          };
    // The first problems are listed, the rest only counted (totals.rejects_by_code has them all):
    // a file of a million bad lines must not become a million objects in memory and on stdout.
    const rejects: Reject[] = [];
    let unlisted = 0;
    const files: FileSummary[] = [];
    const workers = startLineWorkers(
      ctx.positionals.reduce((n, file) => n + statSync(file).size, 0),
      checker,
      { env: ctx.env },
    );
    try {
      for (const [i, file] of ctx.positionals.entries()) {
        files.push(
          await scanFile(
            file,
            file,
            checker,
            {
              reject: (r) => void (rejects.length < MAX_LISTED_REJECTS ? rejects.push(r) : unlisted++),
              ...(onRecord ? { record: onRecord } : {}),
            },
            {
              maxLineBytes,
              workers,
              progress: (done) => ctx.progress(`validate: ${shown(file)} (${i + 1}/${ctx.positionals.length}) ${megabytes(done)}`),
            },
          ),
        );
      }
    } finally {
      await workers?.pool.close();
    }
    notes.push(...refusalNotes);
    if (disagreeing > refusalNotes.length)
      notes.push(`… and ${disagreeing - refusalNotes.length} more REFUSAL_FLAG_DISAGREES line(s), not listed`);
    notes.push(...toolNotes);
    if (lacking > toolNotes.length) notes.push(`… and ${lacking - toolNotes.length} more EXPECTED_TOOL_MISSING line(s), not listed`);
    const totals = totalsOf(files);
    const ok = totals.rejected === 0;
    const json = {
      ok,
      items_checked: items.ids !== null,
      ...(items.ids !== null ? { items_file: items.file } : {}),
      notes,
      max_line_bytes: maxLineBytes,
      files,
      totals,
      rejects,
      rejects_unlisted: unlisted,
    };
    const lines = rejects.map(
      (r) =>
        `${shown(r.file)}:${r.line_no}${r.column_no !== null ? `:${r.column_no}` : ''}: ${r.reason_code}: ${shown(r.detail)} (byte offset ${r.byte_offset})`,
    );
    if (unlisted > 0) lines.push(`… and ${unlisted} more rejected line(s), not listed (the first ${MAX_LISTED_REJECTS} are)`);
    for (const n of notes) lines.push(`note: ${n}`);
    for (const f of files) lines.push(`${shown(f.file)}: ${f.lines_read} lines = ${f.accepted} accepted + ${f.rejected} rejected`);
    if (files.length > 1) lines.push(`total: ${totals.lines_read} lines = ${totals.accepted} accepted + ${totals.rejected} rejected`);
    lines.push(
      ok
        ? 'validate: OK, every line would be accepted'
        : `validate: ${totals.rejected} line(s) would be rejected (${formatCounts(totals.rejects_by_code)})`,
    );
    return { exitCode: ok ? EXIT.ok : EXIT.failures, json, text: lines.join('\n') };
  },
};
