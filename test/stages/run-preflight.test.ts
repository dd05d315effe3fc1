// `prereg run` checks everything it will need before any work and refuses with a code: nothing
// under outputs/, no store built (docs/outputs.md, "What run checks first").
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';

const study = scratchStudies();

const nothingWritten = (root: string) => {
  expect(existsSync(join(root, 'outputs')) ? readdirSync(join(root, 'outputs')) : []).toEqual([]);
  expect(existsSync(join(root, 'work'))).toBe(false);
};

interface Trap {
  what: string;
  edit: (root: string) => void;
  args?: string[];
  code: string;
  names: string;
}

const TRAPS: Trap[] = [
  {
    what: 'inputs/commitments.jsonl missing while the policy requires receipts',
    edit: (r) => rmSync(join(r, 'inputs/commitments.jsonl')),
    code: 'COMMITMENTS_MISSING',
    names: 'commitments.jsonl',
  },
  {
    what: 'an empty inputs/submissions/',
    edit: (r) => {
      for (const f of readdirSync(join(r, 'inputs/submissions'))) rmSync(join(r, 'inputs/submissions', f));
    },
    code: 'SUBMISSIONS_EMPTY',
    names: 'no *.jsonl file',
  },
  {
    what: 'submission files that are all empty',
    edit: (r) => {
      for (const f of readdirSync(join(r, 'inputs/submissions'))) writeFileSync(join(r, 'inputs/submissions', f), '');
    },
    code: 'SUBMISSIONS_EMPTY',
    names: 'only empty files',
  },
  {
    what: 'no operator keys',
    edit: () => {},
    args: [],
    code: 'OPERATOR_KEY_MISSING',
    names: '--operator-key',
  },
  {
    what: 'no revealed answer key',
    edit: (r) => rmSync(join(r, 'inputs/answer-key.jsonl')),
    code: 'FILE_NOT_FOUND',
    names: 'answer-key.jsonl',
  },
  {
    what: 'no revealed secret',
    edit: (r) => rmSync(join(r, 'inputs/answer-key.secret')),
    code: 'ANSWER_KEY_SECRET_MISSING',
    names: 'secret',
  },
];

describe('run refuses before doing any work', () => {
  for (const trap of TRAPS) {
    it(`refuses ${trap.what} (exit 3, ${trap.code}): nothing under outputs/, no store`, async () => {
      const root = study();
      trap.edit(root);
      const r = await runCli(['run', '--root', root, '--json', ...(trap.args ?? TEST_OPERATOR_ARGS)]);
      expect([r.code, r.json.code]).toEqual([3, trap.code]);
      expect(r.json.message).toContain(trap.names);
      nothingWritten(root);
    });
  }

  it('lists every problem at once, the first one deciding the code', async () => {
    const root = study();
    rmSync(join(root, 'inputs/commitments.jsonl'));
    rmSync(join(root, 'inputs/answer-key.secret'));
    const r = await runCli(['run', '--root', root, '--json']);
    expect(r.code).toBe(3);
    expect(r.json.details.problems.map((p: { code: string }) => p.code)).toEqual([
      'COMMITMENTS_MISSING',
      'OPERATOR_KEY_MISSING',
      'ANSWER_KEY_SECRET_MISSING',
    ]);
    nothingWritten(root);
  });

  it('verify on its own refuses missing commitments too, instead of an UNANCHORED table', async () => {
    const root = study();
    rmSync(join(root, 'inputs/commitments.jsonl'));
    const r = await runCli(['verify', '--root', root, '--json']);
    expect([r.code, r.json.code]).toEqual([3, 'COMMITMENTS_MISSING']);
    expect(existsSync(join(root, 'work'))).toBe(false);
  });
});
