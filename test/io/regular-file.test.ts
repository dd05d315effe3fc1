// Inputs are read only from regular files: a FIFO would block the open forever, a device never ends.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRegularFileHandle, readRegularFile } from '../../pipeline/io/regular-file.ts';
import { PreregError } from '../../pipeline/reasons.ts';

const dir = mkdtempSync(join(tmpdir(), 'prereg-regular-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fifo = join(dir, 'fifo');
execFileSync('mkfifo', [fifo]);
mkdirSync(join(dir, 'a-dir'));
writeFileSync(join(dir, 'file'), 'bytes');

function refusal(f: () => unknown): { code: string; exitCode: number } | null {
  try {
    f();
    return null;
  } catch (err) {
    if (err instanceof PreregError) return { code: err.code, exitCode: err.exitCode };
    throw err;
  }
}

describe('readRegularFile', () => {
  it('reads a regular file', () => {
    expect(readRegularFile(join(dir, 'file')).toString()).toBe('bytes');
  });
  it.each([
    ['a FIFO (no writer: a plain open would block forever)', fifo],
    ['a directory', join(dir, 'a-dir')],
    ['a character device that never ends', '/dev/zero'],
  ])('refuses %s with INPUT_NOT_REGULAR_FILE, exit 4', (_, path) => {
    expect(refusal(() => readRegularFile(path))).toEqual({ code: 'INPUT_NOT_REGULAR_FILE', exitCode: 4 });
  });
  it('a missing file is FILE_NOT_FOUND', () => {
    expect(refusal(() => readRegularFile(join(dir, 'missing')))?.code).toBe('FILE_NOT_FOUND');
  });
  it('the streaming open refuses a FIFO too', async () => {
    await expect(openRegularFileHandle(fifo)).rejects.toMatchObject({ code: 'INPUT_NOT_REGULAR_FILE', exitCode: 4 });
  });
});
