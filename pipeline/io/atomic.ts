// Writes that are either complete or absent: a reader never sees a half-written file.
import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, basename } from 'node:path';

/** A file written beside its final path, not yet in place: commit() renames it there, discard() removes it. */
export interface PreparedFile {
  readonly path: string;
  readonly tmp: string;
  commit(): void;
  discard(): void;
}

/** `mode`: the file's permissions from its first byte (0o600 for a private key), never widened then narrowed. */
export function prepareFileAtomic(path: string, data: string | Uint8Array, mode?: number): PreparedFile {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(tmp, data, { flag: 'wx', ...(mode === undefined ? {} : { mode }) });
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  return {
    path,
    tmp,
    commit: () => renameSync(tmp, path),
    discard: () => rmSync(tmp, { force: true }),
  };
}

export function writeFileAtomic(path: string, data: string | Uint8Array): void {
  const prepared = prepareFileAtomic(path, data);
  try {
    prepared.commit();
  } catch (err) {
    prepared.discard();
    throw err;
  }
}
