// Real small or read-only file systems for the tests of what the machine refuses (a full disk, a
// read-only directory): a tmpfs mounted for the test. Only root may mount one; where mounting is
// not permitted, CAN_MOUNT is false and the tests that need one are skipped, saying why on stderr.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Mounts a tmpfs of `options` (e.g. `size=64k`, `ro,size=1m`) on the existing directory `dir`; the error text when it cannot. */
export function mountTmpfs(dir: string, options: string): string | null {
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { encoding: 'utf8' });
  return r.status === 0 ? null : (r.stderr || r.error?.message || `mount exited ${r.status}`).trim();
}

export function unmountTmpfs(dir: string): void {
  execFileSync('umount', [dir]);
}

/** A tmpfs of the given options on a new directory, when this process may mount one (root); null otherwise. */
export function tmpfs(options: string): { dir: string; unmount: () => void } | null {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-tmpfs-'));
  if (mountTmpfs(dir, options) !== null) {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  return {
    dir,
    unmount: () => {
      unmountTmpfs(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this process may mount a tmpfs; when it may not, the reason is printed once per test file. */
export function canMount(testFile: string): boolean {
  const probe = mkdtempSync(join(tmpdir(), 'prereg-tmpfs-probe-'));
  try {
    const refused = mountTmpfs(probe, 'size=16k');
    if (refused === null) {
      unmountTmpfs(probe);
      return true;
    }
    process.stderr.write(
      `${testFile}: the tests that need a tmpfs are SKIPPED: mounting one is not permitted here (${refused}); run them as root\n`,
    );
    return false;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
}
