// The audit's rerun: the study's inputs (corpus/, preregistration/, inputs/) copied into a fresh
// scratch directory, the pipeline run there in-process with the existing stage commands
// (ingest → verify → classify → score), then an unsigned emit (every file but the signatures).
// The stages come in as AuditStages (given by stages/audit.ts from run/pipeline.ts), so audit/ imports no stage.
// Nothing is written into the study or the audited directory; the scratch directory is removed
// afterwards, whatever happened.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import type { Manifest } from '../emit/manifest.ts';
import type { DriftFinding } from '../study/drift.ts';
import { studyLayout, type StudyLayout } from '../layout.ts';
import { EXIT, PreregError, type ReasonCode } from '../reasons.ts';
import type { Command } from '../command.ts';

/** The stage commands an audit runs in-process. */
export interface AuditStages {
  /** Run in order in the scratch study: ingest, verify, classify, score. */
  rerun: ReadonlyArray<Pick<Command, 'name' | 'run'>>;
  /** The rerun's unsigned emit (every file but the signatures). */
  emit(
    layout: StudyLayout,
    options: { outputsDir: string; progress: (message: string) => void },
  ): Promise<{ dir: string; manifest: Manifest }>;
  /** What the anchors rail runs on the study root: check-anchors' work. */
  checkAnchors: Pick<Command, 'run'>;
}

/** The directories a study's inputs live in: all an audit copies. */
export const STUDY_INPUT_DIRS = ['corpus', 'preregistration', 'inputs'] as const;

export interface Refusal {
  stage: string;
  code: ReasonCode;
  message: string;
  /** The study input the refusal concerns (study-relative), when one can be named. */
  file: string | null;
  row?: number;
}

export type RerunOutcome = { ok: true; dir: string; manifest: Manifest } | { ok: false; refusal: Refusal };

/** A refusal's path, relative to the study root when it lies inside it. */
export function studyFileOf(err: PreregError, root: string): string | null {
  const path = err.details.path ?? err.details.file;
  if (typeof path !== 'string') return null;
  const rel = relative(root, path);
  return rel.startsWith('..') ? path : rel.split(sep).join('/');
}

/** Where a code's refusal points when the error names no file. */
const INPUT_OF_CODE: ReadonlyArray<[RegExp, string]> = [
  [/^ANSWER_KEY_/, 'inputs/answer-key.jsonl'],
  [/^(SECTION5_|PREREGISTRATION_DRIFT$)/, 'preregistration/PREREGISTRATION.md'],
  [/^FREEZE_/, 'preregistration/freeze.json'],
  [/^(TRUST_|OPERATOR_KEY_)/, 'preregistration/trust/'],
  [/^STUDY_/, 'preregistration/study.json'],
  [/^(CORPUS_|VOCABULARY_|ITEMS_)/, 'corpus/'],
  [/^SUBMISSION_/, 'inputs/submissions/'],
];

/** The input a stage's refusal concerns: its finding's file, its path, or its code's input. */
export function refusalOf(stage: string, err: PreregError, scratch: string): Refusal {
  const findings = Array.isArray(err.details.findings) ? (err.details.findings as DriftFinding[]) : [];
  const finding = findings.find((f) => f.code === err.code && f.file) ?? findings.find((f) => f.file);
  let file = finding?.file ?? studyFileOf(err, scratch);
  if (file === null || file.startsWith('/')) file = INPUT_OF_CODE.find(([re]) => re.test(err.code))?.[1] ?? file;
  const problems = err.details.problems;
  const line = Array.isArray(problems) && typeof problems[0] === 'string' ? /^line (\d+)/.exec(problems[0]) : null;
  // The scratch directory's path means nothing to the reader: messages name study paths.
  const message = err.message.split(`${scratch}/`).join('');
  return { stage, code: err.code, message, file, ...(line ? { row: Number(line[1]) } : {}) };
}

async function runInScratch(
  scratch: string,
  env: NodeJS.ProcessEnv,
  progress: (m: string) => void,
  stages: AuditStages,
): Promise<RerunOutcome> {
  let current = 'emit';
  try {
    for (const stage of stages.rerun) {
      current = stage.name;
      progress(`audit: rerun ${stage.name}…`);
      const result = await stage.run({ root: scratch, json: true, values: {}, positionals: [], progress, env });
      if (result.exitCode !== EXIT.ok) {
        const json = result.json as { code?: string };
        throw new PreregError('AUDIT_NOT_REPRODUCED', `${stage.name} exited ${result.exitCode}${json.code ? ` (${json.code})` : ''}`);
      }
    }
    current = 'emit';
    progress('audit: rerun emit (unsigned)…');
    const emitted = await stages.emit(studyLayout(scratch), { outputsDir: join(scratch, 'outputs'), progress });
    return { ok: true, dir: emitted.dir, manifest: emitted.manifest };
  } catch (err) {
    if (err instanceof PreregError) return { ok: false, refusal: refusalOf(current, err, scratch) };
    throw err;
  }
}

/**
 * Reruns the study in a scratch directory and hands the outcome to `use`; the scratch directory
 * is removed when `use` is done. Throws AUDIT_STUDY_UNREADABLE (exit 3) when the inputs cannot
 * even be copied.
 */
export async function withRerun<T>(
  layout: StudyLayout,
  options: { env: NodeJS.ProcessEnv; progress: (message: string) => void; stages: AuditStages },
  use: (outcome: RerunOutcome) => Promise<T>,
): Promise<T> {
  const scratch = mkdtempSync(join(tmpdir(), 'prereg-audit-'));
  try {
    for (const dir of STUDY_INPUT_DIRS) {
      try {
        // Symlinks are copied as links, so the stages refuse them as they would in the study.
        cpSync(join(layout.root, dir), join(scratch, dir), { recursive: true, verbatimSymlinks: true });
      } catch (err) {
        throw new PreregError(
          'AUDIT_STUDY_UNREADABLE',
          `${join(layout.root, dir)} cannot be copied for the rerun: ${(err as Error).message}`,
          { path: join(layout.root, dir) },
        );
      }
    }
    return await use(await runInScratch(scratch, options.env, options.progress, options.stages));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
