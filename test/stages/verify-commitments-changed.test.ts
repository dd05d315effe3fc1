// Verify reads inputs/commitments.jsonl only when it reaches the timelines, minutes after it took
// the file's digest: a file changed in between is refused, never verified against as if it were
// the recorded one.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { main } from '../../pipeline/cli.ts';
import { copyExampleStudy, runCli } from '../support/cli.ts';

let root: string;
let cleanup: () => void;
beforeAll(() => ({ root, cleanup } = copyExampleStudy()));
afterAll(() => cleanup());

it('a commitments file changed while the evidence items are verified stops verify with COMMITMENTS_FILE_CHANGED, and nothing is recorded', async () => {
  expect((await runCli(['ingest', '--root', root])).code).toBe(0);
  let stderr = '';
  let changed = false;
  const code = await main(['verify', '--root', root], {
    stdout: () => {},
    // A terminal gets progress lines; the first comes during the evidence items, before the commitments are read.
    stderr: (t) => {
      stderr += t;
      if (!changed && t.includes('evidence items')) {
        appendFileSync(join(root, 'inputs/commitments.jsonl'), '{"job_id":"late"}\n');
        changed = true;
      }
    },
    env: {},
    isTTY: true,
  });
  expect(changed).toBe(true);
  expect(code).toBe(3);
  expect(stderr).toContain('COMMITMENTS_FILE_CHANGED');
  expect(stderr).toContain('inputs/commitments.jsonl changed while verify ran');
  // Nothing was recorded: the next verify runs again (on the file as it is now) instead of skipping.
  const again = await runCli(['verify', '--root', root, '--json']);
  expect(again.code).toBe(0);
  expect((again.json as { skipped: boolean }).skipped).toBe(false);
});
