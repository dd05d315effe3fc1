// The output directory's life (SPEC §7): written under a temporary dot-name, renamed into place
// whole; an existing outputs/<run_id>/ is never overwritten.
//
//   outputs/.<run_id>.tmp-<12 hex>/   while writing (readers ignore dot-names, and any directory
//                                     without manifest.json is incomplete)
//   outputs/<run_id>/                 after rename(2), which is atomic within one file system
//
// A crash leaves only the temporary directory; the next emit of the same run_id removes it.
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, lstatSync, mkdirSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isWithin } from '../io/real-path.ts';
import type { StudyLayout } from '../layout.ts';
import { PreregError } from '../reasons.ts';

const TEMPORARY = /^\.([0-9a-f]{16})\.tmp-[0-9a-f]{12}$/;

export function isTemporaryName(name: string): boolean {
  return TEMPORARY.test(name);
}

export function outputExists(final: string): PreregError {
  return new PreregError('OUTPUT_EXISTS', `${final} already exists; an output directory is never overwritten`, { path: final });
}

/** Where a run's outputs go: `given` (--outputs) or the study's outputs/, and <run_id>/ in it. The one rule emit writes by and status looks by. */
export function runDirectory(layout: StudyLayout, runId: string, given?: string): { outputsDir: string; finalDir: string } {
  const outputsDir = given ?? layout.outputs;
  return { outputsDir, finalDir: join(outputsDir, runId) };
}

/** OUTPUT_EXISTS (exit 4) when the final directory exists in any form, a dangling symlink included. */
export function refuseExisting(final: string): void {
  if (lstatSync(final, { throwIfNoEntry: false }) !== undefined) throw outputExists(final);
}

/**
 * OUTPUT_PATH_UNSAFE (exit 4) when the outputs directory lies inside corpus/, preregistration/
 * or inputs/: writing there would change the frozen corpus or the inputs (the next check-anchors
 * would fail with CORPUS_DRIFT), and stages never modify their inputs.
 */
export function refuseOutputsInsideStudy(outputsDir: string, layout: StudyLayout): void {
  for (const [name, dir] of [
    ['corpus/', layout.corpus],
    ['preregistration/', layout.preregistration],
    ['inputs/', layout.inputs],
  ] as const) {
    if (isWithin(outputsDir, dir)) {
      throw new PreregError(
        'OUTPUT_PATH_UNSAFE',
        `--outputs ${outputsDir} lies inside the study's ${name}, which no stage may write into; choose a directory outside corpus/, preregistration/ and inputs/`,
        { path: outputsDir },
      );
    }
  }
}

/** Removes the temporary directories that interrupted emits of this run_id left; returns their names. */
export function removeStaleTemporaries(outputsDir: string, runId: string): string[] {
  if (!existsSync(outputsDir)) return [];
  const removed: string[] = [];
  for (const name of readdirSync(outputsDir)) {
    if (TEMPORARY.exec(name)?.[1] === runId) {
      rmSync(join(outputsDir, name), { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed.sort();
}

export function createTemporaryDir(outputsDir: string, runId: string): string {
  mkdirSync(outputsDir, { recursive: true });
  const dir = join(outputsDir, `.${runId}.tmp-${randomBytes(6).toString('hex')}`);
  mkdirSync(dir);
  return dir;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Flushes every file and the directory, then renames it into place. A final directory that
 * appeared meanwhile wins: the temporary one is removed and OUTPUT_EXISTS raised.
 */
export function publish(tmp: string, final: string, outputsDir: string): void {
  for (const name of readdirSync(tmp)) fsyncPath(join(tmp, name));
  fsyncPath(tmp);
  if (existsSync(final)) {
    rmSync(tmp, { recursive: true, force: true });
    throw outputExists(final);
  }
  try {
    renameSync(tmp, final);
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') throw outputExists(final);
    throw err;
  }
  fsyncPath(outputsDir);
}

/**
 * TEST-ONLY crash hook: with PREREG_TEST_EMIT_CRASH_AFTER=N in the environment, the process kills
 * itself (SIGKILL: no cleanup, no finally) once N files are in the temporary directory. Used by
 * test/emit to show that a crash mid-emit leaves no outputs/<run_id>/.
 */
export function crashPoint(filesWritten: number, env: NodeJS.ProcessEnv = process.env): void {
  const after = env.PREREG_TEST_EMIT_CRASH_AFTER;
  if (after !== undefined && Number(after) === filesWritten) process.kill(process.pid, 'SIGKILL');
}
