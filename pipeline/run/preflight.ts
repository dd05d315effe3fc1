// `prereg run`, before any work: everything the pipeline will need must be there, or it refuses
// with a code and writes nothing — a missing required input is never read as an empty table (a
// missing commitments file would make every chain UNANCHORED and every proven score 0, an empty
// submissions directory a signed report of nothing). docs/outputs.md, "What run checks first".
import { existsSync, statSync } from 'node:fs';
import { checkOperatorKeys, loadOperatorKeys } from '../emit/sign.ts';
import type { TrustPolicy } from '../formats/trust-policy.ts';
import { freezeMissing, type LoadedStudy } from '../study/loaded-study.ts';
import { EXIT, PreregError } from '../reasons.ts';
import { collect, preconditionOf, type Precondition } from '../study/preconditions.ts';
import { resolveOperatorKeys } from '../emit/operator-keys.ts';
import { listSubmissionFiles } from '../ingest/submission-files.ts';
import { requireRevealedKey } from '../freeze/reveal.ts';
import type { StageContext } from '../command.ts';
import { requireCommitmentsIfReceipts } from '../verify/inputs.ts';
import { requireSealedIntake } from '../intake/files.ts';
import { requireFrozenTool } from '../study/drift.ts';

/** A problem that would stop `run`: one of the study's preconditions. */
export type RunProblem = Precondition;

/** Every problem that would stop `run` (or make its result wrong), in the order the stages meet them. */
export function runProblems(
  loaded: LoadedStudy,
  values: StageContext['values'],
  env: NodeJS.ProcessEnv,
  nowMs: number = Date.now(),
): RunProblem[] {
  const { layout } = loaded;
  const problems: RunProblem[] = [];
  // Nothing else is worth listing before the freeze.
  if (!existsSync(layout.freeze)) return [{ ...preconditionOf(freezeMissing(layout)), exitCode: EXIT.blocked }];
  // The tool is part of the plan: another version than the freezing one runs nothing.
  collect(problems, () => requireFrozenTool(loaded.frozen()));
  // The window: a sealed study is scored only once sealed, an unsealed one after closes_at (this machine's clock).
  collect(problems, () => void requireSealedIntake(loaded, nowMs));
  collect(problems, () => {
    const { files } = listSubmissionFiles(layout);
    if (!files.some((f) => statSync(f.path).size > 0)) {
      throw new PreregError(
        'SUBMISSIONS_EMPTY',
        `${layout.submissions} holds ${files.length === 0 ? 'no *.jsonl file' : `only empty files (${files.map((f) => f.file).join(', ')})`}`,
      );
    }
  });
  let policy: TrustPolicy | undefined;
  collect(problems, () => void (policy = loaded.trust().policy));
  if (policy) {
    const requireReceipts = policy.require_receipts;
    collect(problems, () => requireCommitmentsIfReceipts(requireReceipts, layout.commitments, layout.participantCommitments));
    collect(problems, () => checkOperatorKeys(loadOperatorKeys(resolveOperatorKeys(values, env)), loaded.operatorKey()));
  }
  collect(problems, () => {
    const secretFile = typeof values['secret-file'] === 'string' ? values['secret-file'] : undefined;
    if (!existsSync(layout.answerKey))
      throw new PreregError('FILE_NOT_FOUND', `the revealed answer key ${layout.answerKey} does not exist`);
    requireRevealedKey(loaded, layout.answerKey, secretFile, env);
  });
  return problems;
}

/** Throws the first problem (with its exit code, every problem in its details), before anything is written. */
export function requireRunnable(loaded: LoadedStudy, values: StageContext['values'], env: NodeJS.ProcessEnv): void {
  const problems = runProblems(loaded, values, env);
  if (problems.length === 0) return;
  const message = problems.map((p, i) => (i === 0 ? p.message : `${p.code}: ${p.message}`)).join('\n');
  throw new PreregError(problems[0]!.code, `run refused before doing any work: ${message}`, { problems }, problems[0]!.exitCode);
}
