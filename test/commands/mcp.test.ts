// `prereg mcp` (docs/mcp.md), driven as an agent drives it: the SDK's own client over stdio,
// spawning the compiled CLI (`node bin/prereg.mjs mcp --root STUDY`). Each tool returns what the
// CLI prints with --json; nothing it offers writes; and whoever drives the agent gains nothing by
// naming a path outside the study (`../x`, an absolute path, a symlink inside the study to a file
// outside it, named or reached by walking a directory): every one is refused with
// MCP_PATH_OUTSIDE_ROOT before anything is read.
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleStudy, PROJECT_ROOT, runCli } from '../support/cli.ts';
import { scratchDir } from '../audit/helpers.ts';

const TOOLS = ['explain', 'doctor', 'status', 'validate', 'verify', 'check-anchors'];

let root: string;
let cleanup: () => void;
let client: Client;
const tmp = scratchDir('prereg-mcp-');
/** A file outside the study that the server must never read: a valid submission line. */
let outside: string;
let before: Map<string, string>;

/** Every file under `dir` with its SHA-256: the study as it is. */
function tree(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const name of readdirSync(dir, { recursive: true }).map(String).sort()) {
    const path = join(dir, name);
    if (statSync(path).isFile()) files.set(name, createHash('sha256').update(readFileSync(path)).digest('hex'));
  }
  return files;
}

interface Called {
  text: string;
  isError: boolean;
  exit: unknown;
  json: any;
}

async function call(name: string, args: Record<string, unknown>): Promise<Called> {
  const r = await client.callTool({ name, arguments: args });
  const text = (r.content as Array<{ type: string; text: string }>)[0]!.text;
  return { text, isError: r.isError === true, exit: r._meta?.['prereg/exit_code'], json: JSON.parse(text.split('\n')[0]!) };
}

/** A document judged at a moment: the moment left out, so that two runs compare. */
const unjudged = (text: string): unknown => JSON.parse(text, (key, value) => (key === 'judged_at' ? undefined : value));

beforeAll(async () => {
  const study = copyExampleStudy();
  root = realpathSync(study.root);
  cleanup = study.cleanup;
  const line = readFileSync(join(root, 'inputs/submissions/sys-honest.jsonl'), 'utf8').split('\n')[0]!;
  outside = join(tmp.path, 'outside.jsonl');
  writeFileSync(outside, `${line}\n`);
  // The study's own symlink to that file: inside by name, outside by its real path.
  symlinkSync(outside, join(root, 'inputs/link.jsonl'));
  writeFileSync(join(root, 'bad.jsonl'), `${JSON.stringify({ ...JSON.parse(line), extra: 1 })}\n{not json\n`);
  before = tree(root);
  client = new Client({ name: 'prereg-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(PROJECT_ROOT, 'bin/prereg.mjs'), 'mcp', '--root', root],
      stderr: 'pipe',
    }),
  );
});

afterAll(async () => {
  await client?.close();
  cleanup?.();
  tmp.cleanup();
});

describe('prereg mcp, through the SDK client over stdio', () => {
  it('lists the read-only tools, each with a closed input schema, announced read-only', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOLS);
    for (const t of tools) {
      expect(t.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(t.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
      expect(t.description).toContain(`prereg ${t.name}`);
    }
    expect(tools.find((t) => t.name === 'verify')!.inputSchema).toMatchObject({ required: ['files'] });
    const help = (await runCli(['mcp', '--help'])).stdout;
    for (const name of TOOLS) expect(help, name).toContain(name);
  });

  it('explain returns what `prereg explain CODE --json` prints, byte for byte, with its exit code', async () => {
    const cli = await runCli(['explain', 'SECTION5_DRIFT', 'not_a_code', '--json']);
    const r = await call('explain', { codes: ['SECTION5_DRIFT', 'not_a_code'] });
    expect(r.text).toBe(cli.stdout);
    expect([r.isError, r.exit, cli.code]).toEqual([false, 1, 1]);
    expect(r.json.codes.map((c: { code: string; known: boolean }) => [c.code, c.known])).toEqual([
      ['NOT_A_CODE', false],
      ['SECTION5_DRIFT', true],
    ]);
  });

  it("doctor and status on the example copy: the CLI's documents (the moment they were judged aside) and exit codes", async () => {
    for (const tool of ['doctor', 'status']) {
      const cli = await runCli([tool, '--root', root, '--json']);
      const r = await call(tool, {});
      expect(unjudged(r.text), tool).toEqual(unjudged(cli.stdout));
      expect(r.json.schema_version, tool).toBe(`prereg.${tool}/2`);
      expect([r.isError, r.exit], tool).toEqual([false, cli.code]);
    }
  });

  it("validate on a bad submission: the rejected lines as the CLI reports them (exit 1); a missing file: the CLI's refusal", async () => {
    const file = join(root, 'bad.jsonl');
    const cli = await runCli(['validate', file, '--root', root, '--json']);
    const r = await call('validate', { files: [file] });
    expect(r.text).toBe(cli.stdout);
    expect([r.isError, r.exit]).toEqual([false, 1]);
    expect(r.json.rejects.map((x: { line_no: number; reason_code: string }) => [x.line_no, x.reason_code])).toEqual([
      [1, 'SUBMISSION_SCHEMA'],
      [2, 'JSON_SYNTAX'],
    ]);
    // A relative path is read in the study directory, as `prereg validate bad.jsonl` run there.
    expect((await call('validate', { files: ['bad.jsonl'] })).json.files[0]).toMatchObject({ file: 'bad.jsonl', rejected: 2 });

    const missing = join(root, 'missing.jsonl');
    const refused = await call('validate', { files: [missing] });
    const cliRefused = await runCli(['validate', missing, '--root', root, '--json']);
    expect(refused.text).toBe(cliRefused.stdout);
    expect([refused.isError, refused.exit, refused.json.code]).toEqual([true, cliRefused.code, 'FILE_NOT_FOUND']);
  });

  it('verify in the files mode: one JSON line per file, as the CLI prints them', async () => {
    const dir = join(root, 'inputs/submissions/sys-honest.jsonl');
    const cli = await runCli(['verify', dir, '--root', root, '--json']);
    const r = await call('verify', { files: [dir] });
    expect(r.text).toBe(cli.stdout);
    expect(
      r.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).schema_version),
    ).toEqual(cli.jsonLines.map(() => 'prereg.verify-files/2'));
    expect([r.isError, r.exit]).toEqual([false, cli.code]);
  });

  it("check-anchors: the CLI's document", async () => {
    const cli = await runCli(['check-anchors', '--root', root, '--json']);
    const r = await call('check-anchors', {});
    expect(r.text).toBe(cli.stdout);
    expect([r.json.ok, r.exit]).toEqual([true, 0]);
  });

  it('refuses every path outside the study (MCP_PATH_OUTSIDE_ROOT, exit 4) before reading it: absolute, ../, a symlink out, in every path argument', async () => {
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['validate', { files: [outside] }],
      ['validate', { files: [relative(root, outside)] }],
      ['validate', { files: ['bad.jsonl', 'inputs/link.jsonl'] }],
      ['verify', { files: [outside] }],
      // A directory inside, whose walk (verify reads every *.json/*.jsonl under it) reaches the symlink out.
      ['verify', { files: ['inputs'] }],
      ['verify', { files: ['inputs/submissions'], trust: join(PROJECT_ROOT, 'preregistration/trust') }],
      ['verify', { files: ['inputs/submissions'], commitments: '../outside.jsonl' }],
      ['check-anchors', { 'tsa-root': [join(PROJECT_ROOT, 'preregistration/trust/tsa-root.pem')] }],
      ['doctor', { 'secret-file': '/etc/passwd' }],
      ['status', { outputs: tmp.path }],
    ];
    for (const [tool, args] of attempts) {
      const r = await call(tool, args);
      expect([r.isError, r.exit, r.json.code], `${tool} ${JSON.stringify(args)}`).toEqual([true, 4, 'MCP_PATH_OUTSIDE_ROOT']);
      expect(r.json.schema_version).toBe('prereg.error/1');
    }
    // The same file, copied into the study, is read: the refusal is about where, not what.
    cpSync(outside, join(root, 'copied.jsonl'));
    expect(await call('validate', { files: ['copied.jsonl'] })).toMatchObject({ isError: false, exit: 0 });
  });

  it('refuses arguments its schema does not allow, and an unknown tool, as usage errors (exit 2)', async () => {
    for (const [tool, args] of [
      ['verify', {}],
      ['verify', { files: [], force: true }],
      ['explain', { codes: 'X' }],
      ['emit', {}],
    ] as const) {
      const r = await call(tool, args);
      expect([r.isError, r.exit, r.json.code], `${tool} ${JSON.stringify(args)}`).toEqual([true, 2, 'USAGE']);
    }
  });

  it('wrote nothing in the study: every file as it was before the calls (but the one a test copied in)', () => {
    const after = tree(root);
    after.delete('copied.jsonl');
    expect(after).toEqual(before);
    expect(readdirSync(root).sort()).toEqual(['bad.jsonl', 'copied.jsonl', 'corpus', 'inputs', 'preregistration']);
  });
});

describe('prereg mcp without the SDK', () => {
  it('is refused with MCP_SDK_MISSING (exit 3) where the package is installed without it; the other commands are unaffected', () => {
    // The package as npm installs it without the SDK: the compiled CLI and its own dependencies only.
    const copy = join(tmp.path, 'installed');
    mkdirSync(join(copy, 'node_modules/@duckdb'), { recursive: true });
    for (const part of ['bin', 'dist', 'package.json']) cpSync(join(PROJECT_ROOT, part), join(copy, part), { recursive: true });
    const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const dep of Object.keys(pkg.dependencies)) symlinkSync(join(PROJECT_ROOT, 'node_modules', dep), join(copy, 'node_modules', dep));
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [join(copy, 'bin/prereg.mjs'), ...args], { cwd: root, encoding: 'utf8', input: '' });
    const r = run('mcp');
    expect([r.status, r.stdout]).toEqual([3, '']);
    expect(r.stderr).toMatch(/^prereg: MCP_SDK_MISSING: .*@modelcontextprotocol\/sdk/);
    expect(run('explain', 'MCP_SDK_MISSING').status).toBe(0);
    expect(run('validate', join(root, 'bad.jsonl')).status).toBe(1);
  });

  it('takes no --json (stdout carries the protocol): a usage error', async () => {
    const r = await runCli(['mcp', '--json']);
    expect([r.code, r.json.code]).toEqual([2, 'USAGE']);
  });
});
