// The repository stands alone: a clone with nothing beside it passes, so no file of the project
// names a file outside it — the contract's working copy beside the repository, its style or
// stack notes, or a path of the machine it was written on.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/cli.ts';

// Built from parts, so that this file does not itself name what it looks for.
const SIBLING = ['..', 'shared'].join('/');
const OUTSIDE = new RegExp(`${SIBLING.replace(/[./]/g, '\\$&')}\\b|\\bSTYLE\\.md\\b|\\bSTACK-NOTES\\b|/work/(main|shared|wt-)`);
const SELF = 'test/house/stands-alone.test.ts';

/** Tracked files of code, tests, docs and scripts (not the vendored artefacts under test/fixtures/). */
function projectFiles(): string[] {
  const out = execFileSync(
    'git',
    ['ls-files', 'pipeline', 'test', 'docs', 'scripts', 'bench', 'bin', 'schemas', '.ci', 'README.md', 'Taskfile.yml', 'package.json'],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  return out.split('\n').filter((f) => f !== '' && f !== SELF && !f.startsWith('test/fixtures/'));
}

const outside = (files: ReadonlyMap<string, string>) => [...files].filter(([, text]) => OUTSIDE.test(text)).map(([f]) => f);

describe('the repository stands alone', () => {
  it('no project file points outside the repository, and the rule catches one that does', () => {
    const files = new Map(projectFiles().map((f) => [f, readFileSync(join(PROJECT_ROOT, f), 'utf8')] as const));
    expect(files.size).toBeGreaterThan(300);
    expect(outside(files)).toEqual([]);
    expect(outside(new Map([['docs/x.md', `as ${SIBLING}/SPEC.md says`]]))).toEqual(['docs/x.md']);
  });

  it('tracks no merge or editor leftover (*.orig, *.rej, *.bak, *~): a stale copy of a source is read as one', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n');
    const leftover = (files: readonly string[]) => files.filter((f) => /\.(orig|rej|bak)$|~$/.test(f));
    expect(leftover(tracked)).toEqual([]);
    expect(leftover(['pipeline/dev/tsa/pkijs-tsa.ts.orig', 'docs/operating.md'])).toEqual(['pipeline/dev/tsa/pkijs-tsa.ts.orig']);
  });
});
