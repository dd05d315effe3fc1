// The example's published outputs (outputs/<run_id>/, committed): a rerun of the committed example
// gives them byte for byte, the audit command docs/audit.md shows says VALID and prints what the
// doc says, and an operator who edits one published byte is caught by that same command.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { asShownInDoc, PUBLISHED_OUTPUTS, publishedAuditCommand, publishedRunIds } from '../../scripts/published-example.ts';
import { copySealedExampleStudy, PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';

const REBUILD = 'the published example outputs are stale: run `npm run example:rebuild` and commit outputs/ and docs/audit.md';
const scratch = mkdtempSync(join(tmpdir(), 'prereg-published-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The command docs/audit.md shows, run as written at the repository root (the compiled CLI, as `prereg` on PATH). */
function runDocCommand(args: readonly string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(PROJECT_ROOT, 'bin/prereg.mjs'), ...args], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function filesOf(dir: string): string[] {
  return readdirSync(dir).sort();
}

function contentsOf(dir: string): Record<string, string> {
  return Object.fromEntries(filesOf(dir).map((f) => [f, readFileSync(join(dir, f)).toString('base64')]));
}

describe('the example publishes its outputs', () => {
  it('commits exactly one run, which a rerun of the committed example gives byte for byte', async () => {
    const ids = publishedRunIds(PROJECT_ROOT);
    expect(ids, `${REBUILD} (outputs/ holds ${ids.length} runs)`).toHaveLength(1);
    const id = ids[0]!;
    const published = join(PROJECT_ROOT, PUBLISHED_OUTPUTS, id);
    const study = copySealedExampleStudy();
    try {
      const rerun = join(scratch, 'rerun');
      const r = await runCli(['run', '--root', study.root, '--outputs', rerun, ...TEST_OPERATOR_ARGS, '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(filesOf(rerun), REBUILD).toEqual([id]);
      const fresh = join(rerun, id);
      expect(filesOf(published), `${REBUILD} (files of ${published})`).toEqual(filesOf(fresh));
      for (const f of filesOf(fresh)) {
        expect(readFileSync(join(published, f)).equals(readFileSync(join(fresh, f))), `${REBUILD} (${f} differs)`).toBe(true);
      }
    } finally {
      study.cleanup();
    }
  });

  it('audits VALID with exactly the command docs/audit.md shows, printing what the doc shows', () => {
    const { args, printed } = publishedAuditCommand(PROJECT_ROOT);
    expect(args.slice(0, 2)).toEqual(['audit', `${PUBLISHED_OUTPUTS}/${publishedRunIds(PROJECT_ROOT)[0]}/`]);
    const r = runDocCommand(args);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^verdict: VALID\b/m);
    expect(asShownInDoc(r.stdout, PROJECT_ROOT), REBUILD).toBe(printed);
  });

  it('an operator who edits one byte of a published output: the doc command says INVALID and names the file', () => {
    const { args } = publishedAuditCommand(PROJECT_ROOT);
    const published = join(PROJECT_ROOT, args[1] ?? '');
    const before = contentsOf(published);
    const edited = join(scratch, 'edited');
    cpSync(published, edited, { recursive: true });
    // One byte of the report the readers read: a score's digit changed.
    const report = join(edited, 'report.md');
    const bytes = readFileSync(report);
    const at = bytes.indexOf('%');
    bytes[at - 1] = bytes[at - 1] === 0x30 ? 0x31 : 0x30;
    writeFileSync(report, bytes);
    const r = runDocCommand(['audit', edited, ...args.slice(2)]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    expect(r.stdout).toMatch(/^verdict: INVALID\b/m);
    expect(r.stdout).toMatch(/AUDIT_SCHEMA_INVALID.*report\.md|report\.md.*AUDIT_SCHEMA_INVALID/);
    // The published outputs are untouched by all of this.
    expect(contentsOf(published)).toEqual(before);
  });
});
