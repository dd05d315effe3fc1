// What stops a stage before it does any work, as one problem type. The stages refuse by throwing a
// PreregError; doctor, freeze's plan check, run's preflight and the audit's inputs rail each want
// every refusal at once, not the first, so they collect them here, the same way.
import { PreregError, type ExitCode, type ReasonCode } from '../reasons.ts';

export interface Precondition {
  code: ReasonCode;
  message: string;
  /** The exit code the refusal carries (a missing input 3, a conflict or an unsafe path 4). */
  exitCode: ExitCode;
  /** The input concerned, from the study root, when known. */
  file?: string;
  /** The JSON Pointer within `file`, when the refusal is about one field. */
  field?: string;
  /** The 1-based line of `file`, when the refusal names one. */
  line?: number;
}

/** Where a refusal is, when the refusal does not record it (details.file, details.field): the input being checked. */
export interface PreconditionSite {
  file?: string;
  field?: string;
}

/**
 * A stage's refusal as a problem; anything else is a bug and is rethrown. Its line: the one the
 * refusal records (`details.line`), else the LINE of a `file:LINE:` its first problem (or its
 * message) starts with — not any `:NN:`, which a time of day also has.
 */
export function preconditionOf(err: unknown, site: PreconditionSite = {}): Precondition {
  if (!(err instanceof PreregError)) throw err;
  const line = lineOf(err);
  // The refusal's own file and field, when it records them, are more precise than the site's.
  const file = typeof err.details.file === 'string' ? err.details.file : site.file;
  const field = typeof err.details.field === 'string' ? err.details.field : site.field;
  return {
    code: err.code,
    message: err.message,
    exitCode: err.exitCode,
    ...(file !== undefined ? { file } : {}),
    ...(field !== undefined ? { field } : {}),
    ...(line !== undefined ? { line } : {}),
  };
}

/** Runs one check; a refusal is appended to `problems` instead of stopping the others. */
export function collect(problems: Precondition[], check: () => void, site: PreconditionSite = {}): void {
  try {
    check();
  } catch (err) {
    problems.push(preconditionOf(err, site));
  }
}

function lineOf(err: PreregError): number | undefined {
  if (typeof err.details.line === 'number') return err.details.line;
  const problems = err.details.problems;
  const first = Array.isArray(problems) && typeof problems[0] === 'string' ? problems[0] : err.message;
  const m = /^[^\s:]+:(\d+):/.exec(first);
  return m ? Number(m[1]) : undefined;
}
