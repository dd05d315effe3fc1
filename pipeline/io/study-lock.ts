// The exclusive study lock (SPEC §12.8): work/prereg.lock, held by every command that writes
// work/, outputs/, the intake log or the seal (ingest, verify in a study, classify, score, emit,
// run, intake, seal: their Command.writesStudy; the CLI takes it), so that two never interleave. A second command gets
// STUDY_LOCKED (exit 4) at once and touches nothing of the first one's: its temporary database,
// its temporary output directory. Readers (status, audit) take no lock: what they read is
// published by rename, whole or not at all.
//
// The lock file is written whole under a private name, then linked to work/prereg.lock (link(2)
// fails if the name exists), so a lock is never seen empty. It names its holder: pid, the
// process's start time (Linux's /proc/<pid>/stat starttime, so a pid reused by another process is
// told apart), the command and when it took the lock. A lock is stale only when its process is
// gone; it is then moved aside and taken, so a killed command never blocks the study.
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PreregError } from '../reasons.ts';

export const LOCK_FILE = 'prereg.lock';

/** Locks this process holds, by path, with how many nested commands hold each (run holds it for ingest…). */
const held = new Map<string, number>();

interface Holder {
  pid: number;
  /** /proc/<pid>/stat starttime (clock ticks since boot); null where /proc is absent. */
  proc_start: string | null;
  command: string;
  started_at: string;
}

/** Field 22 of /proc/<pid>/stat (after the parenthesised command name, which may hold spaces). */
function procStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the holder's process still runs: the pid exists and, where /proc tells, started when the lock says. */
function alive(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
  }
  if (holder.proc_start === null) return true;
  const now = procStart(holder.pid);
  return now === null || now === holder.proc_start;
}

function parseHolder(text: string): Holder | null {
  try {
    const v = JSON.parse(text) as Partial<Holder>;
    return Number.isSafeInteger(v.pid) && (v.pid as number) > 0
      ? {
          pid: v.pid!,
          proc_start: typeof v.proc_start === 'string' ? v.proc_start : null,
          command: String(v.command),
          started_at: String(v.started_at),
        }
      : null;
  } catch {
    return null;
  }
}

function readOrNull(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Takes the lock or throws STUDY_LOCKED; a stale lock (its process gone) is moved aside and taken. */
function acquire(path: string, command: string): void {
  const mine: Holder = { pid: process.pid, proc_start: procStart(process.pid), command, started_at: new Date().toISOString() };
  const draft = `${path}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(draft, `${JSON.stringify(mine)}\n`, { flag: 'wx' });
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(draft, path);
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const text = readOrNull(path);
      if (text === null && attempt < 3) continue; // released meanwhile: try again
      if (text === null) throw locked(path, command, '');
      const holder = parseHolder(text);
      if (attempt === 0 && holder !== null && !alive(holder)) {
        // Moved aside under a name of our own: of two commands breaking the same stale lock, one
        // moves it; the other finds it gone and races for the link like any second command.
        const aside = `${draft}.stale`;
        try {
          renameSync(path, aside);
        } catch {
          continue;
        }
        const moved = readOrNull(aside);
        if (moved !== text) {
          // Another command took the lock between our read and the move: give it back.
          try {
            linkSync(aside, path);
          } catch {
            // it took the lock again meanwhile; either way the lock is not ours
          }
          rmSync(aside, { force: true });
          throw locked(path, command, moved ?? text);
        }
        rmSync(aside, { force: true });
        continue;
      }
      throw locked(path, command, text);
    }
  } finally {
    rmSync(draft, { force: true });
  }
}

function locked(path: string, command: string, text: string): PreregError {
  const holder = parseHolder(text);
  const shown = holder ? `by ${holder.command}, pid ${holder.pid}, since ${holder.started_at}` : 'by an unknown holder';
  return new PreregError('STUDY_LOCKED', `${path} is held ${shown}; ${command} wrote nothing`, { path, holder: holder ?? text.trim() });
}

function rmEmptyDir(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty: the command wrote into it
  }
}

/**
 * Runs `fn` holding the lock of the study whose work/ directory is `workDir`; releases it after.
 * Re-entrant within a process: `run` holds it while its stages (which each take it) run.
 */
export async function withStudyLock<T>(workDir: string, command: string, fn: () => Promise<T>): Promise<T> {
  const path = join(workDir, LOCK_FILE);
  const depth = held.get(path) ?? 0;
  // A work/ made only to hold the lock is removed with it: a refused command leaves no trace.
  const madeWork = depth === 0 && !existsSync(workDir);
  if (depth === 0) {
    mkdirSync(workDir, { recursive: true });
    try {
      acquire(path, command);
    } catch (err) {
      if (madeWork) rmEmptyDir(workDir);
      throw err;
    }
  }
  held.set(path, depth + 1);
  try {
    return await fn();
  } finally {
    if (depth === 0) {
      held.delete(path);
      rmSync(path, { force: true });
      if (madeWork) rmEmptyDir(workDir);
    } else {
      held.set(path, depth);
    }
  }
}
