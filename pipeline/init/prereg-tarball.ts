// What `init --prereg-source FILE` accepts: the study's CI installs prereg from that file, so it
// must be a package tarball (as `npm pack` writes it) whose package.json names prereg. Pure: the
// bytes in, the package's version or why not out.
import { gunzipSync } from 'node:zlib';

const BLOCK = 512;
/** Far above prereg's tarball (a few MiB unpacked): a bigger one is not prereg's. */
const MAX_UNPACKED = 256 * 1024 * 1024;

const field = (header: Buffer, at: number, length: number) => {
  const raw = header.subarray(at, at + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end === -1 ? length : end).toString('utf8');
};

/** The version of the prereg package `bytes` (a .tgz) carries, or a problem in words. */
export function preregTarballVersion(bytes: Buffer): { version: string } | { problem: string } {
  let tar: Buffer;
  try {
    tar = gunzipSync(bytes, { maxOutputLength: MAX_UNPACKED });
  } catch {
    return { problem: 'is not a gzip-compressed package tarball (npm pack writes one)' };
  }
  // ustar: a 512-byte header (name, octal size at 124), the content padded to 512 bytes; npm pack names every file package/….
  for (let at = 0; at + BLOCK <= tar.length; ) {
    const header = tar.subarray(at, at + BLOCK);
    if (header.every((b) => b === 0)) break;
    const prefix = field(header, 345, 155);
    const name = prefix === '' ? field(header, 0, 100) : `${prefix}/${field(header, 0, 100)}`;
    const size = Number.parseInt(field(header, 124, 12).trim() || '0', 8);
    if (!Number.isSafeInteger(size) || size < 0) break;
    if (name === 'package/package.json') {
      let pkg: { name?: unknown; version?: unknown };
      try {
        pkg = JSON.parse(tar.subarray(at + BLOCK, at + BLOCK + size).toString('utf8')) as typeof pkg;
      } catch {
        return { problem: 'carries a package/package.json that is not JSON' };
      }
      if (pkg.name !== 'prereg' || typeof pkg.version !== 'string')
        return { problem: `is the package ${JSON.stringify(pkg.name)}, not prereg` };
      return { version: pkg.version };
    }
    at += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
  }
  return { problem: 'is a tar archive without package/package.json: not a package tarball' };
}
