// The tools `prereg mcp` offers: one per read-only command, each a mapping from the tool's
// arguments (named as the command's options, the positional arguments under one name) to the
// command's own run, whose result comes back as the text `prereg <tool> … --json` prints. Every
// argument naming a file must lie inside the study directory; no tool runs a command in a mode that
// writes. Nothing here loads the SDK (server.ts does).
import { resolve } from 'node:path';
import { errorOutput, jsonOutput, refusalOf, type Command, type StageContext } from '../command.ts';
import { isWithin } from '../io/real-path.ts';
import { PreregError, type ExitCode } from '../reasons.ts';
import { shown } from '../text/display.ts';
import { expandPaths } from '../verify/file-verify.ts';

/** A JSON Schema (draft 2020-12) as tools/list announces it. */
type JsonSchema = Record<string, unknown>;

export interface McpTool {
  /** The tool's name: the command it runs. */
  name: string;
  /** What the tool adds to the command's summary: its arguments, in a sentence. */
  usage: string;
  /** The argument holding the command's positional arguments (an array), if it takes any. */
  operands?: string;
  /** The arguments naming files or directories (a string or an array of strings): each must lie inside the study. */
  paths: readonly string[];
  /** The command walks the directories among its operands (verify: expandPaths): every file the walk reaches must lie inside too. */
  walks?: true;
  inputSchema: { type: 'object'; properties: Record<string, JsonSchema>; required?: string[]; additionalProperties: false };
}

/** A path argument: no NUL (no file name holds one; Node would throw on it), bounded. */
const path = (description: string): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: 4096,
  pattern: '^[^\\u0000]+$',
  description,
});
const paths = (description: string, minItems: number): JsonSchema => ({
  type: 'array',
  items: path(description),
  minItems,
  maxItems: 100_000,
});
const text = (description: string): JsonSchema => ({ type: 'string', maxLength: 4096, description });
const tool = (
  name: string,
  usage: string,
  properties: Record<string, JsonSchema>,
  rest: { operands?: string; paths?: string[]; walks?: true } = {},
): McpTool => ({
  name,
  usage,
  ...(rest.operands !== undefined ? { operands: rest.operands } : {}),
  ...(rest.walks ? { walks: true } : {}),
  paths: rest.paths ?? [],
  inputSchema: {
    type: 'object',
    properties,
    ...(rest.operands !== undefined && (properties[rest.operands]!.minItems as number) > 0 ? { required: [rest.operands] } : {}),
    additionalProperties: false,
  },
});

/** A command the server may call: the CLI's list of commands gives them (the server imports none). */
export interface ServedCommand {
  name: string;
  summary: string;
  load: () => Promise<Command>;
}

export const MCP_TOOLS: readonly McpTool[] = [
  tool(
    'explain',
    'codes: the reason codes (case-insensitive), or all: true for the whole catalogue.',
    {
      codes: { type: 'array', items: text('a reason code, e.g. PROOF_SIGNATURE_INVALID'), maxItems: 1000 },
      all: { type: 'boolean', description: 'every code of the catalogue' },
    },
    { operands: 'codes' },
  ),
  tool(
    'doctor',
    'The key files are optional, as for `prereg doctor`.',
    {
      'operator-key': path('the operator Ed25519 private key (PEM)'),
      'cms-key': path('the operator CMS private key (PEM)'),
      'cms-cert': path('the operator CMS certificate (PEM)'),
      'secret-file': path('the answer-key secret'),
    },
    { paths: ['operator-key', 'cms-key', 'cms-cert', 'secret-file'] },
  ),
  tool(
    'status',
    'outputs: where run/emit were told to write <run_id>/ (default outputs/).',
    {
      'secret-file': path('the answer-key secret'),
      outputs: path('the outputs directory'),
    },
    { paths: ['secret-file', 'outputs'] },
  ),
  tool(
    'validate',
    'files: the submission files (*.jsonl) to check, as ingest would.',
    {
      files: paths('a submission file (*.jsonl)', 1),
      'max-line-bytes': text("the longest line accepted, in bytes (default: the study's)"),
    },
    { operands: 'files', paths: ['files'] },
  ),
  tool(
    'verify',
    'files: the evidence files or directories to verify (the files mode, which writes nothing; the study mode, which writes the store, is not offered). The result is one JSON line per file.',
    {
      files: paths('a proof, evidence item, AER-1 timeline or receipt, submission file, or a directory of them', 1),
      trust: path('the trust directory (default preregistration/trust)'),
      commitments: path("a commitments file (default: the study's)"),
    },
    { operands: 'files', paths: ['files', 'trust', 'commitments'], walks: true },
  ),
  tool(
    'check-anchors',
    'tsa-root: your own TSA roots (PEM files inside the study); expect-freeze: the freeze_digest you saw published.',
    {
      'tsa-root': paths('a TSA root certificate (PEM)', 0),
      'expect-freeze': text('the freeze_digest published before opens_at (hex)'),
      'min-witnesses': text('witnesses required (a count)'),
    },
    { paths: ['tsa-root'] },
  ),
];

/** What a tool call returns: the text the CLI prints with --json, whether it is a refusal, and the CLI's exit code. */
export interface ToolOutcome {
  text: string;
  isError: boolean;
  exitCode: ExitCode;
}

/** Refuses a path outside `root`, judged on real paths: `root/link` → /etc is outside, as is `../x`. */
function requireInside(given: string, root: string): void {
  if (!isWithin(resolve(root, given), root)) {
    throw new PreregError('MCP_PATH_OUTSIDE_ROOT', `${shown(given)} is outside the study directory ${shown(root)} that this server reads`, {
      path: given,
      root,
    });
  }
}

/**
 * Runs `tool` on `args` (already checked against its inputSchema) in the study at `root` (the
 * process's working directory, so a relative path means what it means to `prereg` run there).
 */
export async function callTool(
  tool: McpTool,
  args: Record<string, unknown>,
  root: string,
  env: NodeJS.ProcessEnv,
  commands: readonly ServedCommand[],
): Promise<ToolOutcome> {
  try {
    for (const name of tool.paths) {
      const value = args[name];
      for (const given of typeof value === 'string' ? [value] : Array.isArray(value) ? (value as string[]) : []) requireInside(given, root);
    }
    const { [tool.operands ?? '']: operands, ...options } = args;
    // A symlink in a walked directory is read as the file it points to: judged as that file.
    if (tool.walks) for (const file of expandPaths(operands as string[])) requireInside(file, root);
    const command = await commands.find((c) => c.name === tool.name)!.load();
    const ctx: StageContext = {
      root,
      json: true,
      values: { ...(options as StageContext['values']), root, json: true },
      positionals: (operands as string[] | undefined) ?? [],
      progress: () => {},
      env,
    };
    // The mapping above never chooses a mode that writes; this keeps a change to a command from making it one.
    if (command.writesStudy?.(ctx)) throw new Error(`mcp: ${tool.name} would write the study`);
    const result = await command.run(ctx);
    return { text: jsonOutput(command.jsonSchema?.(ctx), result), isError: false, exitCode: result.exitCode };
  } catch (err) {
    const refusal = refusalOf(err);
    return { text: errorOutput(refusal), isError: true, exitCode: refusal.exitCode };
  }
}

/** The refusal of arguments that do not fit a tool's inputSchema: the CLI's usage error. */
export function usageOutcome(tool: string, problem: string): ToolOutcome {
  const refusal = new PreregError('USAGE', `${shown(tool)}: ${problem}`);
  return { text: errorOutput(refusal), isError: true, exitCode: refusal.exitCode };
}
