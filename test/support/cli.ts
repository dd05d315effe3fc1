// Runs the CLI in-process (same code path as `npx prereg`), capturing what it prints.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach } from 'vitest';
import { main } from '../../pipeline/cli.ts';

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The parsed stdout when --json was given. */
  json: any;
  /** Every line of stdout parsed as JSON, when --json was given (commands printing JSON lines). */
  jsonLines: any[];
}

/** `isTTY: true` (with CI unset in env) shows the progress lines a terminal would. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}, options: { isTTY?: boolean } = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: { CI: 'true', ...env },
    isTTY: options.isTTY ?? false,
  });
  let json: unknown = null;
  let jsonLines: unknown[] = [];
  if (args.includes('--json') && stdout.trim() !== '') {
    jsonLines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    json = jsonLines.length === 1 ? jsonLines[0] : null;
  }
  return { code, stdout, stderr, json, jsonLines };
}

/**
 * The study copyExampleStudy copies: the example's working copy (test/support/example-working-copy.ts:
 * unsealed intake, re-frozen, so that a test may change its inputs), or the committed example
 * when the global setup did not run.
 */
export function exampleWorkingCopy(): string {
  return process.env.PREREG_TEST_EXAMPLE_COPY ?? PROJECT_ROOT;
}

function copyStudy(from: string): { root: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'prereg-study-'));
  for (const dir of ['corpus', 'preregistration', 'inputs']) {
    cpSync(join(from, dir), join(root, dir), { recursive: true });
  }
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** A scratch copy of the example study's working copy (the study's own files only; unsealed intake). */
export function copyExampleStudy(): { root: string; cleanup: () => void } {
  return copyStudy(exampleWorkingCopy());
}

/** A scratch copy of the committed example study itself: sealed intake, its seal and anchors. */
export function copySealedExampleStudy(): { root: string; cleanup: () => void } {
  return copyStudy(PROJECT_ROOT);
}

/** Scratch copies of the example study (`copy`: the working copy, or copySealedExampleStudy), removed after each test: call the returned function per copy. */
export function scratchStudies(copy: () => { root: string; cleanup: () => void } = copyExampleStudy): () => string {
  let cleanups: Array<() => void> = [];
  afterEach(() => {
    for (const c of cleanups) c();
    cleanups = [];
  });
  return () => {
    const s = copy();
    cleanups.push(s.cleanup);
    return s.root;
  };
}

/** The example study's TEST-ONLY operator keys, as `prereg run` / `emit` options. */
export { EXAMPLE_OPERATOR_ARGS as TEST_OPERATOR_ARGS } from '../../scripts/example-operator-keys.ts';
