// SHA-256 of a file: read whole (small inputs: anchors, commitments, outputs) or streamed (the
// submissions, which can be larger than memory).
import { createHash } from 'node:crypto';
import { createReadStream, existsSync } from 'node:fs';
import { sha256Hex } from '../formats/hash.ts';
import { openRegularFile, readRegularFile } from './regular-file.ts';

/** SHA-256 of a regular file (anything else is refused, as every input read is: io/regular-file.ts). */
export function sha256OfFile(path: string): string {
  return sha256Hex(readRegularFile(path));
}

/** The file's SHA-256, or null when there is no file. */
export function sha256OfFileIfAny(path: string): string | null {
  return existsSync(path) ? sha256OfFile(path) : null;
}

/** SHA-256 and size of a file, streamed. */
export async function hashFileStreamed(path: string): Promise<{ sha256: string; bytes: number }> {
  const h = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream('', { fd: openRegularFile(path), highWaterMark: 4 * 1024 * 1024 })) {
    h.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: h.digest('hex'), bytes };
}
