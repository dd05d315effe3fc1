// The Model Context Protocol over stdio, with the official SDK (@modelcontextprotocol/sdk, an
// optional peer dependency: commands/mcp.ts imports this module only when `prereg mcp` runs, and
// says MCP_SDK_MISSING when it is not installed). The SDK's low-level Server, not McpServer: its
// tools take zod schemas, and zod is the SDK's dependency, not prereg's (a global install keeps
// it inside the SDK's own folder); each tool's JSON Schema is announced as it is and checked with
// the SDK's own validator.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { TOOL_VERSION } from '../version.ts';
import { callTool, MCP_TOOLS, usageOutcome, type ServedCommand, type ToolOutcome } from './tools.ts';

/** Serves the tools for the study at `root` (the working directory) until the client closes stdin. */
export async function serveStdio(root: string, env: NodeJS.ProcessEnv, commands: readonly ServedCommand[]): Promise<void> {
  const server = new Server(
    { name: 'prereg', version: TOOL_VERSION },
    {
      capabilities: { tools: {} },
      instructions: `Read-only checks of the pre-registered study in ${root}. Each tool runs the prereg command of its name and returns the JSON that \`prereg <tool> … --json\` prints (a refusal: {"code", "message"} with isError). Paths are relative to the study directory; a path outside it is refused (MCP_PATH_OUTSIDE_ROOT). \`explain\` says what a reason code means and what to do next.`,
    },
  );
  const validators = new AjvJsonSchemaValidator();
  const tools = MCP_TOOLS.map((t) => ({ tool: t, check: validators.getValidator(t.inputSchema) }));
  const summaries = new Map(commands.map((c) => [c.name, c.summary]));

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: tools.map(({ tool }) => ({
      name: tool.name,
      description: `prereg ${tool.name}: ${summaries.get(tool.name)}. ${tool.usage} Returns what \`prereg ${tool.name} --json\` prints.`,
      inputSchema: tool.inputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const found = tools.find(({ tool }) => tool.name === request.params.name);
    const args = request.params.arguments ?? {};
    const checked = found?.check(args);
    const outcome: ToolOutcome =
      found === undefined
        ? usageOutcome(request.params.name, `no such tool (the tools: ${MCP_TOOLS.map((t) => t.name).join(', ')})`)
        : !checked!.valid
          ? usageOutcome(found.tool.name, checked!.errorMessage)
          : await callTool(found.tool, args, root, env, commands);
    return { content: [{ type: 'text', text: outcome.text }], isError: outcome.isError, _meta: { 'prereg/exit_code': outcome.exitCode } };
  });

  const closed = new Promise<void>((done) => {
    server.onclose = done;
  });
  await server.connect(new StdioServerTransport());
  // The transport does not watch for the end of stdin: the client closing it ends the server.
  process.stdin.once('end', () => void server.close());
  await closed;
}
