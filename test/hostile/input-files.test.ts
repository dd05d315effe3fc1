// A FIFO in place of an input file used to hang `run` / `check-anchors` forever (the open blocks
// until a writer comes). Every input is opened through pipeline/io/regular-file.ts: refused, exit 4.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';

const study = scratchStudies();

function replaceByFifo(root: string, path: string): void {
  rmSync(join(root, path));
  execFileSync('mkfifo', [join(root, path)]);
}

describe('a FIFO in place of an input', () => {
  it.each([
    ['run', 'inputs/commitments.jsonl'],
    ['run', 'inputs/answer-key.jsonl'],
    ['run', 'preregistration/study.json'],
    ['run', 'preregistration/anchors/local-test-tsa.tsr'],
    ['check-anchors', 'preregistration/anchors/local-test-tsa.tsr'],
    ['check-anchors', 'preregistration/study.json'],
    ['validate', 'inputs/submissions/sys-honest.jsonl'],
  ])(
    '%s with %s a FIFO: INPUT_NOT_REGULAR_FILE, exit 4, no hang',
    async (stage, path) => {
      const root = study();
      replaceByFifo(root, path);
      const args =
        stage === 'validate' ? ['validate', join(root, path)] : [stage, '--root', root, ...(stage === 'run' ? TEST_OPERATOR_ARGS : [])];
      const r = await runCli([...args, '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(4);
      expect(r.stdout + r.stderr).toContain('INPUT_NOT_REGULAR_FILE');
      expect(r.stdout + r.stderr).toContain(path.split('/').pop());
    },
    60_000,
  );
});

describe('submission files that would not be read as they look', () => {
  it.each([
    [
      'a name in upper case',
      (root: string) => copyFileSync(join(root, 'inputs/submissions/sys-honest.jsonl'), join(root, 'inputs/submissions/sys-upper.JSONL')),
    ],
    [
      'a nested directory',
      (root: string) => {
        mkdirSync(join(root, 'inputs/submissions/nested'));
        copyFileSync(join(root, 'inputs/submissions/sys-honest.jsonl'), join(root, 'inputs/submissions/nested/x.jsonl'));
      },
    ],
  ])(
    '%s: SUBMISSION_PATH_UNSAFE, exit 4, never silently skipped',
    async (_, make) => {
      const root = study();
      make(root);
      const r = await runCli(['run', '--root', root, ...TEST_OPERATOR_ARGS, '--json']);
      expect(r.code, r.stdout + r.stderr).toBe(4);
      expect(r.json.code).toBe('SUBMISSION_PATH_UNSAFE');
      expect(existsSync(join(root, 'outputs'))).toBe(false);
    },
    60_000,
  );
});
