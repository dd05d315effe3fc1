// Parse arguments, call one command, map errors to exit codes; nothing else (SPEC §10).
import { parseArgs } from 'node:util';
import { COMMANDS } from './stages/registry.ts';
import { EXIT, PreregError, REASONS, type ExitCode } from './reasons.ts';
import type { StageContext } from './command.ts';

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
    'usage: prereg <command> [options]      (prereg <command> --help for its options)',
    '',
    'commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    'global options:',
    '  --root DIR   the study directory (default: the current directory)',
    '  --json       machine-readable output',
    '',
    'exit codes: 0 ok, 1 failures found, 2 usage, 3 blocked, 4 conflict, 5 internal error',
  ].join('\n');
}

/** Where the CLI writes; tests pass their own to run commands in-process. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  isTTY: boolean;
}

const processIo: CliIo = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  env: process.env,
  isTTY: process.stderr.isTTY === true,
};

function printError(io: CliIo, err: PreregError, json: boolean): void {
  if (json) {
    io.stdout(`${JSON.stringify({ ok: false, code: err.code, message: err.message, details: err.details })}\n`);
  } else {
    io.stderr(`prereg: ${err.code}: ${err.message}\n  next: ${REASONS[err.code].next}\n`);
  }
}

export async function main(argv: string[], io: CliIo = processIo): Promise<ExitCode> {
  const name = argv[0];
  const wantsJson = argv.includes('--json');
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(`${usage()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    printError(io, new PreregError('USAGE', `unknown command "${name}"; run \`prereg --help\``), wantsJson);
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
    printError(io, new PreregError('USAGE', `${name}: ${(err as Error).message}`), wantsJson);
    return EXIT.usage;
  }
  if (parsed.values.help) {
    io.stdout(`prereg ${command.name}: ${command.summary}\n\n${command.help}\n`);
    return EXIT.ok;
  }
  const json = parsed.values.json === true;
  const showProgress = !json && io.isTTY && !io.env.CI;
  const ctx: StageContext = {
    root: typeof parsed.values.root === 'string' ? parsed.values.root : process.cwd(),
    json,
    values: parsed.values as StageContext['values'],
    positionals: parsed.positionals,
    progress: (message) => {
      if (showProgress) io.stderr(`\r\x1b[K${message}`);
    },
    env: io.env,
    printLine: (lineJson, text) => io.stdout(json ? `${JSON.stringify(lineJson)}\n` : `${text}\n`),
  };
  try {
    const result = await command.run(ctx);
    if (showProgress) io.stderr('\r\x1b[K');
    if (!result.printed) io.stdout(json ? (result.jsonLines ? result.jsonLines.map((l) => `${JSON.stringify(l)}\n`).join('') : `${JSON.stringify(result.json)}\n`) : result.text.endsWith('\n') ? result.text : `${result.text}\n`);
    return result.exitCode;
  } catch (err) {
    if (err instanceof PreregError) {
      printError(io, err, json);
      return err.exitCode;
    }
    const internal = new PreregError('INTERNAL_ERROR', (err as Error)?.stack ?? String(err));
    printError(io, internal, json);
    return EXIT.internal;
  }
}
