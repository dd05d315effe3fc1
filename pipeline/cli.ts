// Parse arguments, call one command, map errors to exit codes; nothing else (SPEC §10).
import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { COMMANDS } from './stages/registry.ts';
import { etaSuffix } from './text/eta.ts';
import { shown, shownJson, terminalText } from './text/display.ts';
import { withStudyLock } from './io/study-lock.ts';
import { studyLayout } from './layout.ts';
import { EXIT, PreregError, REASONS, type ExitCode } from './reasons.ts';
import { errorOutput, jsonOutput, refusalOf, versioned, type Command, type StageContext } from './command.ts';
import { nearest } from './text/nearest.ts';
import { TOOL_VERSION } from './version.ts';

const GLOBAL_OPTIONS = {
  root: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'prereg: a reproducible, pre-registered evaluation pipeline',
    '',
    'usage: prereg <command> [options]      (prereg help <command> or prereg <command> --help for its options)',
    '       prereg --version',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'global options:',
    '  --root DIR   the study directory (default: the current directory)',
    '  --json       machine-readable output',
    '',
    'exit codes: 0 ok, 1 failures found, 2 usage, 3 blocked, 4 conflict, 5 internal error',
    'docs: every docs/*.md a help text or a next: line names ships in the package (prereg docs NAME prints its path)',
  ].join('\n');
}

/** Where the CLI writes; tests pass their own to run commands in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
}

/**
 * stdout closed by its reader (`prereg verify … | head`): further output is dropped, quietly, and
 * the command ends with its own exit code — never an unhandled EPIPE and its stack trace.
 */
let stdoutClosed = false;
let stdoutWatched = false;
function writeStdout(text: string): void {
  if (!stdoutWatched) {
    stdoutWatched = true;
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      stdoutClosed = true;
    });
  }
  if (!stdoutClosed) process.stdout.write(text);
}

const processIo: CliIo = {
  stdout: writeStdout,
  stderr: (t) => void process.stderr.write(t),
  env: process.env,
  isTTY: process.stderr.isTTY === true,
};

/** The shape of `prereg --version --json` (schemas/cli/version.schema.json). */
const VERSION_SCHEMA = 'prereg.version/1';

function printError(io: CliIo, err: PreregError, json: boolean): void {
  if (json) {
    io.stdout(errorOutput(err));
  } else {
    io.stderr(`prereg: ${err.code}: ${terminalText(err.message)}\n  next: ${REASONS[err.code].next}\n`);
  }
}

/** The versions an audit depends on: the tool, the DuckDB library (Parquet bytes), Node. */
export async function versions(): Promise<{ prereg: string; duckdb: string; node: string }> {
  // Loaded here only: no other command-less invocation pays for DuckDB.
  const { duckdbVersion } = await import('./store/db.ts');
  return { prereg: TOOL_VERSION, duckdb: duckdbVersion(), node: process.version };
}

function unknownCommand(name: string): PreregError {
  // `prereg version` is the one likely word that is an option, not a command.
  if (name === 'version') return new PreregError('USAGE', 'unknown command "version"; did you mean `prereg --version`?');
  const guess = nearest(
    name,
    COMMANDS.map((c) => c.name),
  );
  return new PreregError('USAGE', `unknown command "${name}"${guess ? `; did you mean \`prereg ${guess}\`?` : ''} (run \`prereg --help\`)`);
}

/** Node's parseArgs message for an unknown option, with the nearest known option suggested. */
function optionError(command: Command, err: Error): PreregError {
  const unknown = /Unknown option '(-{1,2}[^']+)'/.exec(err.message)?.[1];
  const known = Object.keys({ ...GLOBAL_OPTIONS, ...command.options }).map((o) => `--${o}`);
  const guess = unknown ? nearest(unknown, known) : null;
  const message = unknown
    ? `unknown option ${unknown}${guess ? `; did you mean ${guess}?` : ''} (run \`prereg help ${command.name}\`)`
    : err.message;
  return new PreregError('USAGE', `${command.name}: ${message}`);
}

/** A count of positional arguments the command does not take: a stray word is never ignored. */
function operandError(command: Command, operands: readonly string[]): PreregError | null {
  const { min, max } = command.operands ?? { min: 0, max: 0 };
  if (operands.length >= min && operands.length <= max) return null;
  const usageLine = command.help.split('\n')[0];
  if (max === 0) {
    // `prereg status some/study`: the study is named by --root, which the user most likely meant.
    const first = operands[0]!;
    const hint = statSync(first, { throwIfNoEntry: false })?.isDirectory() ? `; did you mean \`--root ${first}\`?` : '';
    return new PreregError('USAGE', `${command.name} takes no positional argument, got "${shown(first)}"${hint} (${usageLine})`);
  }
  const wanted = min === max ? `${min}` : max === Infinity ? `at least ${min}` : `${min} to ${max}`;
  return new PreregError(
    'USAGE',
    `${command.name} takes ${wanted} positional argument${max === 1 ? '' : 's'}, got ${operands.length} (${usageLine})`,
  );
}

/** --json for a command that prints no JSON of its own (no jsonSchema: `prereg mcp`) is refused, not ignored. */
function jsonError(command: Command, json: boolean): PreregError | null {
  return json && command.jsonSchema === undefined
    ? new PreregError('USAGE', `${command.name} prints no --json document (${command.help.split('\n')[0]})`)
    : null;
}

/** --root naming no directory is said as such, not as the first file a stage then misses. */
function rootError(root: unknown): PreregError | null {
  if (typeof root !== 'string') return null;
  const stat = statSync(root, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return null;
  return new PreregError('ROOT_NOT_FOUND', `--root ${shown(root)}: ${stat ? 'not a directory' : 'no such directory'}`, { path: root });
}

/**
 * Global options may come before the command (`prereg --root DIR doctor`, as `--help` lists them):
 * they are moved after it, where the command's parser reads them with its own.
 */
function globalOptionsFirst(argv: readonly string[]): string[] {
  const leading: string[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json' || arg.startsWith('--root=')) leading.push(arg);
    else if (arg === '--root' && i + 1 < argv.length) leading.push(arg, argv[++i]!);
    else break;
  }
  return i === 0 || i >= argv.length ? [...argv] : [argv[i]!, ...leading, ...argv.slice(i + 1)];
}

export async function main(rawArgv: string[], io: CliIo = processIo): Promise<ExitCode> {
  const argv = globalOptionsFirst(rawArgv);
  const name = argv[0];
  const wantsJson = argv.includes('--json');
  if (name === '--version' || name === '-V') {
    const v = await versions();
    io.stdout(wantsJson ? `${shownJson(versioned(VERSION_SCHEMA, v))}\n` : `prereg ${v.prereg}\nduckdb ${v.duckdb}\nnode ${v.node}\n`);
    return EXIT.ok;
  }
  if (name === 'help' && argv[1] !== undefined && !argv[1].startsWith('-')) {
    const targetEntry = COMMANDS.find((c) => c.name === argv[1]);
    if (!targetEntry) {
      printError(io, unknownCommand(argv[1]), wantsJson);
      return EXIT.usage;
    }
    const target = await targetEntry.load();
    io.stdout(`prereg ${target.name}: ${target.summary}\n\n${target.help}\n`);
    return EXIT.ok;
  }
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${usage()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    printError(io, unknownCommand(name), wantsJson);
    return EXIT.usage;
  }
  const command = await entry.load();
  let parsed;
  try {
    parsed = parseArgs({
      args: argv.slice(1),
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    printError(io, optionError(command, err as Error), wantsJson);
    return EXIT.usage;
  }
  if (parsed.values.help) {
    io.stdout(`prereg ${command.name}: ${command.summary}\n\n${command.help}\n`);
    return EXIT.ok;
  }
  const json = parsed.values.json === true;
  const refusal = operandError(command, parsed.positionals) ?? jsonError(command, json) ?? rootError(parsed.values.root);
  if (refusal) {
    printError(io, refusal, json);
    return refusal.exitCode;
  }
  const showProgress = !json && io.isTTY && !io.env.CI;
  let counted: { total: number; since: number } | null = null;
  const ctx: StageContext = {
    root: typeof parsed.values.root === 'string' ? parsed.values.root : process.cwd(),
    json,
    values: parsed.values as StageContext['values'],
    positionals: parsed.positionals,
    progress: (message, done, total) => {
      if (!showProgress) return;
      // The ETA's clock starts when a counted piece of work starts (done 0, or a new total).
      if (total !== undefined && (counted === null || counted.total !== total || done === 0)) counted = { total, since: Date.now() };
      const suffix = total !== undefined ? etaSuffix(done ?? 0, total, Date.now() - counted!.since) : '';
      // One transient line: a line break in it is escaped too.
      io.stderr(`\r\x1b[K${terminalText(message, false)}${suffix}`);
    },
    env: io.env,
    printLine: (lineJson, text) => io.stdout(json ? `${jsonLine(lineJson)}\n` : `${terminalText(text)}\n`),
    write: (text) => io.stdout(text),
    jsonLine: (value) => jsonLine(value),
  };
  const schema = command.jsonSchema?.(ctx);
  const jsonLine = (value: unknown) => shownJson(versioned(schema, value));
  try {
    const result = command.writesStudy?.(ctx)
      ? await withStudyLock(studyLayout(ctx.root).work, `prereg ${command.name}`, () => command.run(ctx))
      : await command.run(ctx);
    if (showProgress) io.stderr('\r\x1b[K');
    if (!result.printed)
      io.stdout(json ? jsonOutput(schema, result) : terminalText(result.text.endsWith('\n') ? result.text : `${result.text}\n`));
    return result.exitCode;
  } catch (err) {
    const refusal = refusalOf(err);
    printError(io, refusal, json);
    return refusal.exitCode;
  }
}
