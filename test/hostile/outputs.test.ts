// Where the outputs go, and what the machine refuses while writing them: each is a refusal with
// its own code (never INTERNAL_ERROR), and nothing complete-looking is left behind.
import { mkdirSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyExampleStudy, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { snapshotTree } from '../ingest/helpers.ts';
import { canMount, mountTmpfs, tmpfs, unmountTmpfs } from '../support/tmpfs.ts';

const CAN_MOUNT = canMount('test/hostile/outputs.test.ts');

describe('outputs that cannot or must not be written', () => {
  let study: { root: string; cleanup: () => void };
  let runId: string;
  const run = (extra: string[]) => runCli(['run', '--root', study.root, ...TEST_OPERATOR_ARGS, ...extra, '--json']);
  beforeAll(async () => {
    study = copyExampleStudy();
    const first = await run([]);
    expect(first.code, first.stdout).toBe(0);
    runId = first.json.run_id;
    renameSync(join(study.root, 'outputs'), join(study.root, 'outputs-first'));
  }, 120_000);
  afterAll(() => study.cleanup());

  it.each(['corpus', 'corpus/sub', 'preregistration', 'inputs/submissions'])(
    '--outputs inside the study (%s): OUTPUT_PATH_UNSAFE, exit 4, nothing written',
    async (inside) => {
      const before = snapshotTree(join(study.root, inside.split('/')[0]!));
      const r = await run(['--outputs', join(study.root, inside)]);
      expect(r.code, r.stdout).toBe(4);
      expect(r.json.code).toBe('OUTPUT_PATH_UNSAFE');
      expect(snapshotTree(join(study.root, inside.split('/')[0]!))).toEqual(before);
    },
  );

  it('--outputs inside the study through a symlink: refused too', async () => {
    symlinkSync(join(study.root, 'corpus'), join(study.root, 'link-to-corpus'));
    const r = await run(['--outputs', join(study.root, 'link-to-corpus')]);
    expect(r.json.code).toBe('OUTPUT_PATH_UNSAFE');
    rmSync(join(study.root, 'link-to-corpus'));
  });

  it('outputs/<run_id> a dangling symlink: OUTPUT_EXISTS, exit 4, the link left as it was', async () => {
    const outputs = join(study.root, 'outputs-dangling');
    mkdirSync(outputs);
    symlinkSync(join(study.root, 'nowhere'), join(outputs, runId));
    const r = await run(['--outputs', outputs]);
    expect(r.code, r.stdout).toBe(4);
    expect(r.json.code).toBe('OUTPUT_EXISTS');
    expect(readdirSync(outputs)).toEqual([runId]);
  });

  it('--outputs a dangling symlink itself: OUTPUT_PATH_INVALID, exit 4', async () => {
    const link = join(study.root, 'outputs-link');
    symlinkSync(join(study.root, 'nowhere', 'deeper'), link);
    const r = await run(['--outputs', link]);
    expect(r.code, r.stdout).toBe(4);
    expect(r.json.code).toBe('OUTPUT_PATH_INVALID');
  });

  it.skipIf(!CAN_MOUNT)('a read-only outputs directory (a read-only tmpfs): OUTPUT_NOT_WRITABLE, exit 3', async () => {
    const ro = tmpfs('ro,size=1m')!;
    try {
      const r = await run(['--outputs', ro.dir]);
      expect(r.code, r.stdout).toBe(3);
      expect(r.json.code).toBe('OUTPUT_NOT_WRITABLE');
    } finally {
      ro.unmount();
    }
  });

  it.skipIf(!CAN_MOUNT)('a full disk (a 64 KiB tmpfs): OUTPUT_DISK_FULL, exit 3, the partial directory removed', async () => {
    const small = tmpfs('size=64k')!;
    try {
      const r = await run(['--outputs', small.dir]);
      expect(r.code, r.stdout).toBe(3);
      expect(r.json.code).toBe('OUTPUT_DISK_FULL');
      expect(readdirSync(small.dir)).toEqual([]);
    } finally {
      small.unmount();
    }
  });
});

describe('a full disk under the store (work/ on a 64 KiB tmpfs)', () => {
  it.skipIf(!CAN_MOUNT)('ingest: OUTPUT_DISK_FULL, exit 3, no database left', async () => {
    const study = copyExampleStudy();
    const work = join(study.root, 'work');
    mkdirSync(work);
    const mounted = mountTmpfs(work, 'size=64k') === null;
    try {
      expect(mounted).toBe(true);
      const r = await runCli(['ingest', '--root', study.root, '--json']);
      expect(r.code, r.stdout.slice(0, 400)).toBe(3);
      expect(r.json.code).toBe('OUTPUT_DISK_FULL');
      expect(readdirSync(work)).toEqual([]);
    } finally {
      if (mounted) unmountTmpfs(work);
      study.cleanup();
    }
  });
});
