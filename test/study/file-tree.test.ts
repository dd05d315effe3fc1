import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diffTrees, digestTree, readTree } from '../../pipeline/study/file-tree.ts';
import { PreregError } from '../../pipeline/reasons.ts';

let dirs: string[] = [];
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-tree-'));
  dirs.push(dir);
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), content);
  }
  return dir;
}
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

function refusal(fn: () => unknown): PreregError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PreregError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('corpus file tree', () => {
  it('lists regular files with sizes and hashes, sorted by UTF-8 bytes', () => {
    // UTF-8 byte order: U+FFFD (EF BF BD) < U+1F600 (F0 9F 98 80); UTF-16 units would put the emoji (D83D) first. sha256 of 'yy' from sha256sum.
    const dir = tree({ 'a.md': 'x', 'Z.md': 'yy', 'é.md': '', '😀.md': '', 'sub/b.md': 'b', '\uFFFD.md': '' });
    const d = digestTree(dir);
    expect(d.files.map((f) => f.path)).toEqual(['Z.md', 'a.md', 'sub/b.md', 'é.md', '\uFFFD.md', '😀.md']);
    expect(d.files[0]).toEqual({ path: 'Z.md', bytes: 2, sha256: 'ef90d9c1ec76b1edc9edfaf2c0c05359c10ccc49ae8ecf7b7fd25ce9c02e86a4' });
    expect(d.leaf_count).toBe(6);
  });

  it('changes root on any byte, and names what changed', () => {
    const a = digestTree(tree({ 'a.md': 'one', 'b.md': 'two' }));
    const b = digestTree(tree({ 'a.md': 'one', 'b.md': 'twO', 'c.md': '' }));
    expect(a.root).not.toBe(b.root);
    expect(diffTrees(a.files, b.files)).toEqual(['b.md: content changed', 'c.md: added']);
  });

  it('refuses a symlink, even to a file inside the tree', () => {
    const dir = tree({ 'a.md': 'x' });
    symlinkSync(join(dir, 'a.md'), join(dir, 'link.md'));
    const err = refusal(() => digestTree(dir));
    expect(err.code).toBe('CORPUS_PATH_UNSAFE');
    expect(err.exitCode).toBe(4);
    expect(err.message).toContain('link.md');
  });

  it('refuses a file swapped for a symlink after it was listed (the open itself refuses a link)', () => {
    const dir = tree({ 'a.md': 'x', 'b.md': 'frozen', 'outside/secret.md': 'not in the tree' });
    // keep() runs after a.md is read and before b.md is: the swap lands between listing and reading.
    const swap = (path: string) => {
      if (path === 'a.md') {
        renameSync(join(dir, 'b.md'), join(dir, 'b.md.old'));
        symlinkSync(join(dir, 'outside/secret.md'), join(dir, 'b.md'));
      }
      return true;
    };
    const err = refusal(() => readTree(dir, swap));
    expect(err.code).toBe('CORPUS_PATH_UNSAFE');
    expect(err.message).toContain('b.md');
  });

  it('refuses a FIFO', () => {
    const dir = tree({ 'a.md': 'x' });
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    const err = refusal(() => digestTree(dir));
    expect(err.code).toBe('CORPUS_PATH_UNSAFE');
    expect(err.message).toContain('pipe');
  });

  it('refuses a name that is not UTF-8', () => {
    const dir = tree({ 'a.md': 'x' });
    writeFileSync(Buffer.concat([Buffer.from(`${dir}/bad-`), Buffer.from([0xff, 0xfe]), Buffer.from('.md')]), 'x');
    expect(refusal(() => digestTree(dir)).code).toBe('CORPUS_PATH_UNSAFE');
  });

  it('refuses two names equal after Unicode normalisation', () => {
    const dir = tree({ 'caf\u00e9.md': 'nfc', 'cafe\u0301.md': 'nfd' });
    const err = refusal(() => digestTree(dir));
    expect(err.code).toBe('CORPUS_PATH_UNSAFE');
    expect(err.message).toMatch(/Unicode normalisation/);
  });

  it('refuses a root that is a symlink', () => {
    const dir = tree({ 'a.md': 'x' });
    const link = `${dir}-link`;
    symlinkSync(dir, link);
    dirs.push(link);
    expect(refusal(() => digestTree(link)).code).toBe('CORPUS_PATH_UNSAFE');
  });
});
