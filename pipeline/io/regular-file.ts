// Every input file is opened through here: only a regular file is read. A FIFO in place of
// study.json, commitments.jsonl or a .tsr would block the open (or the read) forever, a device
// such as /dev/zero would never end, a directory is not a file: each is refused with
// INPUT_NOT_REGULAR_FILE (exit 4) instead. The file is opened non-blocking, then checked with
// fstat on the descriptor, so what is checked is what is read (no check-then-open race).
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, type Stats } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { PreregError } from '../reasons.ts';
import { shown } from '../text/display.ts';

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isDirectory()) return 'a directory';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isSocket()) return 'a socket';
  return 'not a regular file';
}

function notRegular(path: string, st: Stats): PreregError {
  return new PreregError(
    'INPUT_NOT_REGULAR_FILE',
    `${shown(path)} is ${kindOf(st)}, not a regular file: inputs are read only from regular files`,
    { path },
  );
}

function openFailed(path: string, err: unknown): PreregError {
  const code = (err as NodeJS.ErrnoException).code;
  return new PreregError('FILE_NOT_FOUND', `${shown(path)} cannot be read${code ? ` (${code})` : ''}`, { path });
}

/** Opens path for reading if it is a regular file (the descriptor is the caller's to close), with its size. */
function openRegular(path: string, noFollow = false): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, noFollow ? OPEN_FLAGS | constants.O_NOFOLLOW : OPEN_FLAGS);
  } catch (err) {
    if (noFollow && (err as NodeJS.ErrnoException).code === 'ELOOP') {
      throw new PreregError(
        'INPUT_NOT_REGULAR_FILE',
        `${shown(path)} is a symbolic link, not a regular file: inputs are read only from regular files`,
        { path },
      );
    }
    throw openFailed(path, err);
  }
  const st = fstatSync(fd);
  if (!st.isFile()) {
    closeSync(fd);
    throw notRegular(path, st);
  }
  return { fd, size: st.size };
}

/** Opens path for reading if it is a regular file (the descriptor is the caller's to close). */
export function openRegularFile(path: string): number {
  return openRegular(path).fd;
}

/**
 * The bytes of a regular file; anything else is refused (missing: FILE_NOT_FOUND).
 * Read as readFileSync reads a file of known size (up to that size, or less if it shrank), with
 * the size of the one fstat that checked it: readFileSync(fd) would fstat it again. `noFollow`: a
 * symbolic link is refused at the open itself (O_NOFOLLOW), not by an earlier lstat a swap could outrun.
 */
export function readRegularFile(path: string, options: { noFollow?: boolean } = {}): Buffer {
  const { fd, size } = openRegular(path, options.noFollow === true);
  try {
    if (size === 0) return readFileSync(fd); // a size the kernel does not know (procfs): read to the end
    const buffer = Buffer.allocUnsafe(size);
    let at = 0;
    for (let n = -1; n !== 0 && at < size; at += n) n = readSync(fd, buffer, at, size - at, null);
    return at < size ? buffer.subarray(0, at) : buffer;
  } finally {
    closeSync(fd);
  }
}

/**
 * The bytes of a regular file of at most `maxBytes`, or null when it is larger: the size is
 * checked on the open descriptor before anything is read, and no more than maxBytes + 1 bytes are
 * ever read (a file that grows meanwhile is still refused).
 */
export function readRegularFileCapped(path: string, maxBytes: number): Buffer | null {
  const { fd, size } = openRegular(path);
  try {
    if (size > maxBytes) return null;
    // Room for the size the open descriptor gave and one byte more, to see the file grow; a file
    // that grows (or whose size the kernel does not know: procfs) gets more room, never past maxBytes + 1.
    let buf = Buffer.allocUnsafe(size + 1);
    let got = 0;
    for (let n; (n = readSync(fd, buf, got, buf.length - got, null)) > 0; ) {
      got += n;
      if (got > maxBytes) return null;
      if (got === buf.length) {
        const room = Buffer.allocUnsafe(Math.min(maxBytes + 1, buf.length * 2));
        buf.copy(room, 0, 0, got);
        buf = room;
      }
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** As openRegularFile, for streaming reads. */
export async function openRegularFileHandle(path: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    handle = await open(path, OPEN_FLAGS);
  } catch (err) {
    throw openFailed(path, err);
  }
  const st = await handle.stat();
  if (!st.isFile()) {
    await handle.close();
    throw notRegular(path, st);
  }
  return handle;
}
