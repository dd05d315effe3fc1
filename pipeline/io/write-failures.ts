// What the machine refuses when we write (SPEC §10): a full disk, a read-only or forbidden
// directory, a path that is not a directory. Each is the operator's to fix, not a bug, so it gets
// its own code instead of INTERNAL_ERROR ("rerunning will not help" would be false). DuckDB's
// COPY reports the same failures as text, not as an errno: both are recognised here.
import { PreregError } from '../reasons.ts';

const DISK_FULL = new Set(['ENOSPC', 'EDQUOT']);
const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS']);
// ENOENT: mkdir -p through a dangling symlink.
const NOT_A_DIRECTORY = new Set(['ENOTDIR', 'ELOOP', 'EEXIST', 'EISDIR', 'ENOENT']);

function kindOf(err: unknown): 'disk-full' | 'not-writable' | 'not-a-directory' | null {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (typeof code === 'string') {
    if (DISK_FULL.has(code)) return 'disk-full';
    if (NOT_WRITABLE.has(code)) return 'not-writable';
    if (NOT_A_DIRECTORY.has(code)) return 'not-a-directory';
  }
  const message = err instanceof Error ? err.message : '';
  if (/No space left on device|Disk quota exceeded/i.test(message)) return 'disk-full';
  if (/Permission denied|Read-only file system|Operation not permitted/i.test(message)) return 'not-writable';
  return null;
}

/** Whether `err` is a write the device refused for lack of space or quota (an errno, or DuckDB's text). */
export function isDiskFull(err: unknown): boolean {
  return !(err instanceof PreregError) && kindOf(err) === 'disk-full';
}

/** The refusal for a failed write under `where`, or null when the failure is not the machine's. */
export function writeFailure(err: unknown, where: string): PreregError | null {
  if (err instanceof PreregError) return null;
  const cause = err instanceof Error ? err.message.split('\n')[0] : String(err);
  switch (kindOf(err)) {
    case 'disk-full':
      return new PreregError(
        'OUTPUT_DISK_FULL',
        `no space left on the device while writing under ${where} (${cause}); nothing was published`,
        { path: where },
      );
    case 'not-writable':
      return new PreregError('OUTPUT_NOT_WRITABLE', `${where} cannot be written (${cause}); nothing was published`, { path: where });
    case 'not-a-directory':
      return new PreregError(
        'OUTPUT_PATH_INVALID',
        `${where} is not a directory that can be written into (${cause}); nothing was published`,
        { path: where },
      );
    default:
      return null;
  }
}
