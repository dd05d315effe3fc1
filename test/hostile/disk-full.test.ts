// Issue 33, item 8 (while there): the disk holding work/ fills up while a stage writes the store in
// place. That is the machine's, not a bug: the stage refuses with OUTPUT_DISK_FULL (whose next step
// is to free space and rerun), not INTERNAL_ERROR ("rerunning will not help"), and leaves no
// half-written store behind (a cache: the next run rebuilds it). Played for real: a small tmpfs is
// mounted on the study's work/ (root can; where mount is not permitted the test is skipped, saying
// so), the stages before are run, the device is filled to its last 1 MiB or 64 KiB, and the stage runs.
import { existsSync, mkdirSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, scratchStudies, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { canMount, mountTmpfs, unmountTmpfs } from '../support/tmpfs.ts';

const study = scratchStudies();

const permitted = canMount('test/hostile/disk-full.test.ts');

const mounted: string[] = [];
afterEach(() => {
  for (const dir of mounted.splice(0)) unmountTmpfs(dir);
});

/** The study's work/ on a fresh 64 MiB tmpfs. */
function onSmallDevice(root: string): string {
  const work = join(root, 'work');
  mkdirSync(work, { recursive: true });
  expect(mountTmpfs(work, 'size=64m')).toBeNull();
  mounted.push(work);
  return work;
}

/** Fills the device holding `dir` until `left` bytes are left. */
function fill(dir: string, left: number): string {
  const { bavail, bsize } = statfsSync(dir);
  const filler = join(dir, 'filler');
  writeFileSync(filler, Buffer.alloc(Number(bavail) * Number(bsize) - left));
  return filler;
}

const ok = (r: { code: number; stdout: string; stderr: string }) => expect(r.code, r.stdout + r.stderr).toBe(0);

describe.skipIf(!permitted)('a full disk while a stage writes the store', () => {
  it.each([
    ['classify', ['ingest', 'verify'], 1024 * 1024],
    ['score', ['ingest', 'verify', 'classify'], 1024 * 1024],
    ['verify', ['ingest'], 64 * 1024],
  ] as const)(
    '%s: OUTPUT_DISK_FULL (exit 3, not INTERNAL_ERROR), no half-written store; once space is freed, run completes',
    async (stage, before, left) => {
      const root = study();
      const work = onSmallDevice(root);
      for (const s of before) ok(await runCli([s, '--root', root, '--json']));
      const filler = fill(work, left);

      const full = await runCli([stage, '--root', root, '--json']);
      expect([full.code, full.json?.code], full.stdout + full.stderr).toEqual([3, 'OUTPUT_DISK_FULL']);
      expect(full.json.message).toMatch(/no space left on the device/i);
      // Nothing half-written: the store (a cache) and its WAL are gone; only the filler is left.
      expect(readdirSync(work).filter((n) => n !== 'filler' && n !== '.lock')).toEqual([]);
      const explained = await runCli(['explain', 'OUTPUT_DISK_FULL']);
      expect(explained.stdout).toMatch(/Free space/);

      rmSync(filler);
      const run = await runCli(['run', '--root', root, '--outputs', join(root, 'outputs'), ...TEST_OPERATOR_ARGS, '--json']);
      ok(run);
      expect(existsSync(join(run.json.dir as string, 'results.json'))).toBe(true);
    },
    240_000,
  );
});
