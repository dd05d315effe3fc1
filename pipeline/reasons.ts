// The one catalogue of reason codes. Every refusal, rejection and failed check names a code from
// here; `prereg explain CODE` prints its meaning and next step. Add entries, never rename one:
// codes are a stable public contract (SPEC §10).

export interface ReasonEntry {
  /** What went wrong, in one sentence. */
  meaning: string;
  /** What the user should do next. */
  next: string;
}

export const REASONS = {
  // --- usage and internal -----------------------------------------------------------------
  USAGE: {
    meaning: 'The command line was not understood (unknown stage, option or missing argument).',
    next: 'Run `prereg --help` or `prereg <stage> --help`.',
  },
  INTERNAL_ERROR: {
    meaning: 'The tool hit a bug; nothing was written.',
    next: 'Report the message and the command line; rerunning will not help.',
  },
  UNKNOWN_REASON_CODE: {
    meaning: 'A code given to `prereg explain` is not in the catalogue.',
    next: 'Check the spelling; an unknown code is never a favourable result.',
  },
  FILE_NOT_FOUND: {
    meaning: 'A file or directory the stage needs does not exist.',
    next: 'Check the path; stages are run from the study root (or pass --root).',
  },

  // --- canonical JSON (SPEC §3) -------------------------------------------------------------
  JSON_SYNTAX: {
    meaning: 'The text is not valid JSON (the message gives line and column).',
    next: 'Fix the JSON at the position shown.',
  },
  JSON_DUPLICATE_KEY: {
    meaning: 'An object has the same key twice; two parsers could read two different documents with one hash.',
    next: 'Remove the duplicate key at the line and column shown.',
  },
  JSON_NUMBER_INVALID: {
    meaning: 'A number is NaN, Infinity, overflows a double, or is an integer longer than 4,300 digits.',
    next: 'Write the number as a finite JSON number.',
  },
  JSON_NOT_UTF8: {
    meaning: 'The bytes are not valid UTF-8.',
    next: 'Re-encode the file as UTF-8.',
  },
} as const satisfies Record<string, ReasonEntry>;

export type ReasonCode = keyof typeof REASONS;

export function isReasonCode(code: string): code is ReasonCode {
  return Object.prototype.hasOwnProperty.call(REASONS, code);
}

/** An error the user can cause: it carries a stable code and the exit code of SPEC §10. */
export class PreregError extends Error {
  constructor(
    readonly code: ReasonCode,
    message: string,
    readonly exitCode: ExitCode = EXIT.blocked,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'PreregError';
  }
}

/** Exit codes, SPEC §10. */
export const EXIT = {
  ok: 0,
  failures: 1,
  usage: 2,
  blocked: 3,
  conflict: 4,
  internal: 5,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
