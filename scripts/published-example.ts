// The example's published outputs (outputs/<run_id>/, committed) and the audit command
// docs/audit.md shows for them, with what it prints. One place writes both (publishExampleOutputs,
// which `npm run example:rebuild` ends with) and one place reads the command back from the doc
// (publishedAuditCommand, which the test runs), so the doc's command is the one that is tested.
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../pipeline/cli.ts';
import { writeFileAtomic } from '../pipeline/io/atomic.ts';

/** Where the published run lives in the repository, relative to its root. */
export const PUBLISHED_OUTPUTS = 'outputs';
/** The example auditor's out-of-band material, relative to the repository root (test/fixtures/example-auditor/README.md). */
const AUDITOR = 'test/fixtures/example-auditor';
/** What the repository root is shown as in the audit's printed paths, in the doc. */
export const DOC_ROOT = '~/prereg';
const DOC = 'docs/audit.md';
const BEGIN = '<!-- published-audit: written by `npm run example:rebuild` -->';
const END = '<!-- /published-audit -->';

/** The run_id directories under `outputs/` of `root` (the published run: exactly one). */
export function publishedRunIds(root: string): string[] {
  return readdirSync(join(root, PUBLISHED_OUTPUTS), { withFileTypes: true })
    .filter((e) => e.isDirectory() && /^[0-9a-f]{16}$/.test(e.name))
    .map((e) => e.name)
    .sort();
}

/** The audit's argv (after `prereg`) as the example's auditor types it at the repository root. */
function auditArgs(root: string, runId: string): string[] {
  const receipts = readdirSync(join(root, AUDITOR, 'receipts'))
    .filter((f) => f.endsWith('.receipt.json'))
    .sort();
  return [
    'audit',
    `${PUBLISHED_OUTPUTS}/${runId}/`,
    ...['--tsa-root', `${AUDITOR}/TEST-ONLY-tsa-root.cert.pem`],
    ...['--issuer-keys', `${AUDITOR}/TEST-ONLY-issuer-keys.json`],
    ...['--expect-freeze', readFileSync(join(root, AUDITOR, 'freeze-digest.txt'), 'utf8').trim()],
    ...['--operator-key', `${AUDITOR}/TEST-ONLY-operator.pub.pem`],
    ...receipts.flatMap((r) => ['--receipt', `${AUDITOR}/receipts/${r}`]),
  ];
}

/** The command as a shell block: one flag and its value per line. */
function shellCommand(args: readonly string[]): string {
  const lines = [`prereg ${args[0]} ${args[1]}`];
  for (let i = 2; i < args.length; i += 2) lines.push(`  ${args[i]} ${args[i + 1]}`);
  return lines.join(' \\\n');
}

/** What the audit printed, with the repository root shown as DOC_ROOT. */
export function asShownInDoc(printed: string, root: string): string {
  return printed.split(root.replace(/\/+$/, '')).join(DOC_ROOT).trimEnd();
}

function docBlock(args: readonly string[], printed: string): string {
  return `${BEGIN}\n\n\`\`\`sh\n${shellCommand(args)}\n\`\`\`\n\nprints (exit 0):\n\n\`\`\`text\n${printed}\n\`\`\`\n\n${END}`;
}

/** The block between the markers of docs/audit.md, or an error naming what is missing. */
function blockOf(docText: string): string {
  const begin = docText.indexOf(BEGIN);
  const end = docText.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${DOC}: no published-audit block (${BEGIN} … ${END})`);
  return docText.slice(begin + BEGIN.length, end);
}

/** The command docs/audit.md shows for the published outputs: its argv after `prereg`, and what the doc says it prints. */
export function publishedAuditCommand(root: string): { args: string[]; printed: string } {
  const block = blockOf(readFileSync(join(root, DOC), 'utf8'));
  const sh = /```sh\n([\s\S]*?)\n```/.exec(block);
  const text = /```text\n([\s\S]*?)\n```/.exec(block);
  if (!sh || !text) throw new Error(`${DOC}: the published-audit block has no sh command or no text output`);
  const command = sh[1] ?? '';
  const words = command.replace(/\\\n/g, ' ').trim().split(/\s+/);
  if (words[0] !== 'prereg') throw new Error(`${DOC}: the published-audit command does not start with prereg: ${command}`);
  return { args: words.slice(1), printed: text[1] ?? '' };
}

/** Runs the CLI in-process at `root` (relative paths as the auditor types them), capturing stdout. */
async function runAt(root: string, args: string[]): Promise<{ code: number; stdout: string }> {
  const before = process.cwd();
  let stdout = '';
  process.chdir(root);
  try {
    const code = await main(args, {
      stdout: (t) => void (stdout += t),
      stderr: (t) => void process.stderr.write(t),
      env: { ...process.env, CI: 'true' },
      isTTY: false,
    });
    return { code, stdout };
  } finally {
    process.chdir(before);
  }
}

/**
 * Runs the example at `root` with its TEST-ONLY operator keys into a scratch directory, replaces
 * the published run under outputs/ with it, audits it as docs/audit.md shows and writes that
 * command and what it printed into the doc. Returns the new run_id.
 */
export async function publishExampleOutputs(root: string, operatorArgs: readonly string[]): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), 'prereg-example-publish-'));
  try {
    const run = await runAt(root, ['run', '--root', root, '--outputs', scratch, ...operatorArgs, '--json']);
    if (run.code !== 0) throw new Error(`prereg run exited ${run.code}: ${run.stdout}`);
    const runId = (JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as { run_id: string }).run_id;
    mkdirSync(join(root, PUBLISHED_OUTPUTS), { recursive: true });
    for (const old of publishedRunIds(root)) rmSync(join(root, PUBLISHED_OUTPUTS, old), { recursive: true, force: true });
    cpSync(join(scratch, runId), join(root, PUBLISHED_OUTPUTS, runId), { recursive: true });
    const args = auditArgs(root, runId);
    const audit = await runAt(root, args);
    if (audit.code !== 0) throw new Error(`the published outputs do not audit VALID (exit ${audit.code}):\n${audit.stdout}`);
    const docPath = join(root, DOC);
    const docText = readFileSync(docPath, 'utf8');
    const old = blockOf(docText);
    const block = docBlock(args, asShownInDoc(audit.stdout, root));
    writeFileAtomic(docPath, docText.replace(`${BEGIN}${old}${END}`, block));
    return runId;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
