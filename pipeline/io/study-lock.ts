// The exclusive study lock (SPEC §12.8): work/prereg.lock, created with O_EXCL, so that two
// commands writing the intake log, the seal or work/ never interleave. A second command gets
// STUDY_LOCKED (exit 4) and touches nothing of the first one's. The file names the holder (pid,
// command) so that a lock left by a killed process can be told from a live one and removed.
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PreregError } from '../reasons.ts';

export const LOCK_FILE = 'prereg.lock';

/** Runs `fn` holding the lock of the study whose work/ directory is `workDir`; releases it after. */
export async function withStudyLock<T>(workDir: string, command: string, fn: () => Promise<T>): Promise<T> {
  const path = join(workDir, LOCK_FILE);
  mkdirSync(workDir, { recursive: true });
  let fd: number;
  try {
    fd = openSync(path, 'wx');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    let holder = 'unknown holder';
    try {
      holder = readFileSync(path, 'utf8').trim() || holder;
    } catch {
      // released meanwhile: still refused, the caller may retry
    }
    throw new PreregError('STUDY_LOCKED', `${path} is held (${holder}); ${command} wrote nothing`, { path, holder });
  }
  try {
    writeSync(fd, `${JSON.stringify({ pid: process.pid, command })}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    return await fn();
  } finally {
    rmSync(path, { force: true });
  }
}
