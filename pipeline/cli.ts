// Parse arguments, call one command, map errors to exit codes; nothing else (SPEC §10).
import { parseArgs } from 'node:util';
import { COMMANDS } from './stages/registry.ts';
import { EXIT, PreregError, REASONS, type ExitCode } from './reasons.ts';
import type { Command, StageContext } from './stages/stage.ts';

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

function printError(err: PreregError, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify({ ok: false, code: err.code, message: err.message, details: err.details })}\n`);
  } else {
    process.stderr.write(`prereg: ${err.code}: ${err.message}\n  next: ${REASONS[err.code].next}\n`);
  }
}

export async function main(argv: string[]): Promise<ExitCode> {
  const name = argv[0];
  const wantsJson = argv.includes('--json');
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const command: Command | undefined = COMMANDS.find((c) => c.name === name);
  if (!command) {
    printError(new PreregError('USAGE', `unknown command "${name}"; run \`prereg --help\``, EXIT.usage), wantsJson);
    return EXIT.usage;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: argv.slice(1),
      options: { ...GLOBAL_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    printError(new PreregError('USAGE', `${name}: ${(err as Error).message}`, EXIT.usage), wantsJson);
    return EXIT.usage;
  }
  if (parsed.values.help) {
    process.stdout.write(`prereg ${command.name}: ${command.summary}\n\n${command.help}\n`);
    return EXIT.ok;
  }
  const json = parsed.values.json === true;
  const showProgress = !json && process.stderr.isTTY === true && !process.env.CI;
  const ctx: StageContext = {
    root: typeof parsed.values.root === 'string' ? parsed.values.root : process.cwd(),
    json,
    values: parsed.values as StageContext['values'],
    positionals: parsed.positionals,
    progress: (message) => {
      if (showProgress) process.stderr.write(`\r\x1b[K${message}`);
    },
    env: process.env,
  };
  try {
    const result = await command.run(ctx);
    if (showProgress) process.stderr.write('\r\x1b[K');
    process.stdout.write(json ? `${JSON.stringify(result.json)}\n` : result.text.endsWith('\n') ? result.text : `${result.text}\n`);
    return result.exitCode;
  } catch (err) {
    if (err instanceof PreregError) {
      printError(err, json);
      return err.exitCode;
    }
    const internal = new PreregError('INTERNAL_ERROR', (err as Error)?.stack ?? String(err), EXIT.internal);
    printError(internal, json);
    return EXIT.internal;
  }
}
