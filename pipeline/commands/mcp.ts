// `prereg mcp`: the read-only checks as Model Context Protocol tools over stdio, for agents
// (docs/mcp.md). The SDK is an optional peer dependency, imported only here, only when this
// command runs: no other command, and no user who never runs this one, pays for it.
import { realpathSync } from 'node:fs';
import { EXIT, PreregError } from '../reasons.ts';
import type { Command } from '../command.ts';
import type { ServedCommand } from '../mcp/tools.ts';

const SDK = '@modelcontextprotocol/sdk';

/** The server module, or MCP_SDK_MISSING when the SDK it imports is not installed (or lacks what it imports). */
async function loadServer(): Promise<typeof import('../mcp/server.ts')> {
  try {
    return await import('../mcp/server.ts');
  } catch (err) {
    const { code, message } = err as NodeJS.ErrnoException;
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_PACKAGE_PATH_NOT_EXPORTED') && message.includes(SDK)) {
      throw new PreregError('MCP_SDK_MISSING', `prereg mcp: ${SDK} is not installed beside prereg (${message.split('\n')[0]})`, {
        package: SDK,
      });
    }
    throw err;
  }
}

/**
 * The command, serving `commands` (the CLI's list, which the registry passes: a command imports no
 * command, and the server calls them only through that list).
 */
export function mcpServing(commands: readonly ServedCommand[]): Command {
  return {
    name: 'mcp',
    summary:
      'serve the read-only checks (explain, doctor, status, validate, verify FILE…, check-anchors) to an agent over the Model Context Protocol (stdio)',
    help: [
      'usage: prereg mcp [--root DIR]',
      '',
      'A Model Context Protocol server on stdin/stdout for the study in DIR (default: the current',
      'directory). Its tools are the read-only commands: explain, doctor, status, validate, verify',
      '(in its files mode only) and check-anchors. Each returns the JSON document (verify: the JSON',
      'lines) that `prereg <tool> … --json` prints in DIR, with the exit code in',
      '_meta["prereg/exit_code"]; a refusal is the error document, with isError. No tool writes. A',
      'path argument outside DIR, judged on real paths (a symlink out, in a directory verify walks',
      'too), is refused (MCP_PATH_OUTSIDE_ROOT). Runs until the client closes stdin.',
      `Needs ${SDK} (^1.32.2) installed beside prereg, which installing prereg does not bring`,
      '(MCP_SDK_MISSING, exit 3). stdout carries the protocol: there is no --json. docs/mcp.md.',
    ].join('\n'),
    options: {},
    stage: false,
    async run(ctx) {
      const { serveStdio } = await loadServer();
      // Relative paths in tool arguments mean what they mean to `prereg` run in the study directory.
      const root = realpathSync(ctx.root);
      process.chdir(root);
      await serveStdio(root, ctx.env, commands);
      return { exitCode: EXIT.ok, json: null, text: '', printed: true };
    },
  };
}
