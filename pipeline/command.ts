// What every CLI command is: a name, its help, its options, and a run function returning a result
// that the CLI prints as text or JSON and maps to an exit code.
import type { ParseArgsConfig } from 'node:util';
import { PreregError, type ExitCode } from './reasons.ts';
import { shownJson } from './text/display.ts';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

export interface StageContext {
  root: string;
  json: boolean;
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
  /** Progress for long work, shown on a TTY, silent in CI and with --json: a transient line on a terminal; with done and total, the line shows the total and an ETA. */
  progress: (message: string, done?: number, total?: number) => void;
  env: NodeJS.ProcessEnv;
  /**
   * Results of stages already run in this invocation (`prereg run`): a stage that needs its
   * predecessor to be current asks through run/runner.ts runStage, so no stage runs twice in one command.
   */
  memo?: Map<string, StageResult>;
  /**
   * Prints one result line now (the CLI gives it: `json` as a JSON line with --json, else `text`),
   * for a command that streams results as they come; it then returns `printed: true`.
   */
  printLine?: (json: unknown, text: string) => void;
  /** Writes finished lines (each ending in "\n") to stdout as they are: many lines in one write. */
  write?: (text: string) => void;
  /** One --json line as the CLI prints it (the display rule, and the command's schema_version), without its "\n". */
  jsonLine?: (json: unknown) => string;
}

export interface StageResult {
  exitCode: ExitCode;
  /** The --json document. */
  json: unknown;
  /** With --json, print these as JSON lines (one per input) instead of `json`. */
  jsonLines?: unknown[];
  /** The human rendering. */
  text: string;
  /** Every line was already printed through StageContext.printLine: the CLI prints nothing more. */
  printed?: boolean;
}

export interface Command {
  name: string;
  summary: string;
  /** Usage and option help, shown by `prereg <name> --help`. */
  help: string;
  options: OptionSpec;
  /** A pipeline stage (has a Taskfile task and an npm script) rather than a utility. */
  stage: boolean;
  /**
   * How many positional arguments it takes (`prereg audit DIR`: 1 to 1): the CLI refuses any other
   * count as a usage error before the command runs, so a stray word is never silently ignored.
   * Absent: none (the study is named by --root).
   */
  operands?: { min: number; max: number };
  /**
   * Whether this invocation writes work/, outputs/, the intake log or the seal: the CLI then runs
   * it holding the study lock (io/study-lock.ts), and a second writer gets STUDY_LOCKED.
   */
  writesStudy?: (ctx: StageContext) => boolean;
  /**
   * The versioned shape of this invocation's --json output (`prereg.doctor/1`: schemas/cli/doctor.schema.json;
   * docs/cli-json.md): the CLI writes it as the first member, `schema_version`, of every JSON
   * document or line it prints. Absent: the command prints no JSON of its own (`prereg mcp`, whose
   * stdout carries the protocol), and the CLI refuses --json for it as a usage error.
   */
  jsonSchema?: (ctx: StageContext) => string;
  run(ctx: StageContext): Promise<StageResult>;
}

/** The value of a required string option (`--flag VALUE`), or USAGE naming the command (`what`). */
export function requiredOption(ctx: Pick<StageContext, 'values'>, flag: string, what: string): string {
  const v = ctx.values[flag];
  if (typeof v !== 'string' || v === '') throw new PreregError('USAGE', `${what}: --${flag} is required`);
  return v;
}

/** The shape of every --json error document, whatever the command (schemas/cli/error.schema.json). */
export const ERROR_SCHEMA = 'prereg.error/1';

/** A JSON document as printed: its schema_version first when the command publishes one; anything but an object as it is. */
export function versioned(schema: string | undefined, value: unknown): unknown {
  return schema !== undefined && value !== null && typeof value === 'object' && !Array.isArray(value)
    ? { schema_version: schema, ...value }
    : value;
}

/** What --json prints for a result: its document, or one line per input (jsonLines), each a line with `schema`. */
export function jsonOutput(schema: string | undefined, result: Pick<StageResult, 'json' | 'jsonLines'>): string {
  return (result.jsonLines ?? [result.json]).map((value) => `${shownJson(versioned(schema, value))}\n`).join('');
}

/** The --json document of a refusal, as a line. */
export function errorOutput(err: PreregError): string {
  return `${shownJson(versioned(ERROR_SCHEMA, { ok: false, code: err.code, message: err.message, details: err.details }))}\n`;
}

/** What a command threw, as a refusal: a PreregError as it is, anything else an INTERNAL_ERROR with its stack. */
export function refusalOf(err: unknown): PreregError {
  return err instanceof PreregError ? err : new PreregError('INTERNAL_ERROR', (err as Error)?.stack ?? String(err));
}
