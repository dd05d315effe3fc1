// `prereg verify FILE` outside a study has a size bound (issue 33, item 7): a file over
// MAX_VERIFY_FILE_BYTES is refused with VERIFY_FILE_TOO_LARGE before a byte of it is read, and the
// other files given are still verified. Who gains by breaking it: whoever hands a verifier a file
// (a participant's evidence, a seller's timeline) — a document that takes the verifier to
// gigabytes gets no verdict at all (a 244 MB bare AER-1 -06 timeline peaked at 2.8 GB).
import { copyFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_VERIFY_FILE_BYTES } from '../../pipeline/verify/file-task.ts';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';

const TRUST = join(PROJECT_ROOT, 'preregistration/trust');
const TIMELINE = join(PROJECT_ROOT, 'test/fixtures/real/aer1/timeline-job-7a1f.json');

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'prereg-verify-size-'));
  // Sparse files of zeros: read, each would be JSON_SYNTAX, not the size refusal.
  for (const name of ['big.json', 'big.jsonl']) {
    writeFileSync(join(dir, name), '');
    truncateSync(join(dir, name), MAX_VERIFY_FILE_BYTES + 1);
  }
  writeFileSync(join(dir, 'at-limit.json'), '');
  truncateSync(join(dir, 'at-limit.json'), MAX_VERIFY_FILE_BYTES);
  copyFileSync(TIMELINE, join(dir, 'timeline.json'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const verify = (...files: string[]) => runCli(['verify', ...files.map((f) => join(dir, f)), '--root', dir, '--trust', TRUST, '--json']);

describe('prereg verify FILE: the size limit', () => {
  it(`a .json or .jsonl file over ${MAX_VERIFY_FILE_BYTES} bytes is VERIFY_FILE_TOO_LARGE, unread; the file beside it is still verified (exit 1)`, async () => {
    const r = await verify('big.json', 'timeline.json', 'big.jsonl');
    expect(r.code).toBe(1);
    expect(r.jsonLines.map((l) => [l.file, l.kind, l.status, l.reason_codes])).toEqual([
      [join(dir, 'big.json'), 'unknown', 'MALFORMED', ['VERIFY_FILE_TOO_LARGE']],
      // The real timeline, without its commitment: read and checked as a timeline.
      [join(dir, 'timeline.json'), 'chain', 'UNANCHORED', ['COMMITMENT_MISSING']],
      [join(dir, 'big.jsonl'), 'unknown', 'MALFORMED', ['VERIFY_FILE_TOO_LARGE']],
    ]);
    expect(r.jsonLines[0].problems[0]).toContain(`larger than ${MAX_VERIFY_FILE_BYTES} bytes`);
  });

  it('a file of exactly the limit is read (its zeros are JSON_SYNTAX)', async () => {
    const r = await verify('at-limit.json');
    expect(r.jsonLines.map((l) => [l.status, l.reason_codes])).toEqual([['MALFORMED', ['JSON_SYNTAX']]]);
  });
});
