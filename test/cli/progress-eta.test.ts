// Long stages show a total and an ETA on a terminal and stay quiet otherwise.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etaSuffix, formatDuration } from '../../pipeline/text/eta.ts';
import { copyExampleStudy, runCli } from '../support/cli.ts';

let root: string;
let cleanup: () => void;
beforeAll(() => ({ root, cleanup } = copyExampleStudy()));
afterAll(() => cleanup());

describe('progress with a total and an ETA', () => {
  it('on a TTY, ingest shows its files counted against the total with an ETA; on a pipe, nothing', async () => {
    // A rebuild that no digest could spare (--force) hashes each file as it reads it: the reading is shown.
    const tty = await runCli(['ingest', '--root', root, '--force'], { CI: '' }, { isTTY: true });
    expect(tty.code, tty.stderr).toBe(0);
    expect(tty.stderr).not.toContain('ingest: hashing');
    expect(tty.stderr).toMatch(
      /ingest: inputs\/submissions\/sys-honest\.jsonl \(3\/5\) [0-9.]+ MB of [0-9.]+ MB \[\d+\/\d+, ETA \d+(s|m\d\ds)\]/,
    );
    // Changed inputs under a database: every file is hashed first, to say what changed.
    appendFileSync(join(root, 'inputs/submissions/sys-truncated.jsonl'), '\n');
    const changed = await runCli(['ingest', '--root', root], { CI: '' }, { isTTY: true });
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stderr).toContain('ingest: hashing inputs/submissions/copycat.jsonl [0/5]');
    expect(changed.stderr).toMatch(/ingest: hashing inputs\/submissions\/sys-honest\.jsonl \[2\/5, ETA \d+(s|m\d\ds)\]/);
    const piped = await runCli(['ingest', '--root', root, '--force'], { CI: '' }, { isTTY: false });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
    // --json is for machines: no progress even on a terminal.
    expect((await runCli(['ingest', '--root', root, '--json'], { CI: '' }, { isTTY: true })).stderr).toBe('');
  });

  it('on a TTY, verify counts evidence items and receipt chains against their totals; on a pipe, nothing', async () => {
    await runCli(['ingest', '--root', root]);
    const tty = await runCli(['verify', '--root', root, '--force'], { CI: '' }, { isTTY: true });
    expect(tty.code, tty.stderr).toBe(0);
    // The example: 235 records, one evidence item and one receipt timeline each.
    expect(tty.stderr).toContain('verify: 0 evidence items [0/235]');
    expect(tty.stderr).toContain('verify: 235 evidence items [235/235, ETA 0s]');
    expect(tty.stderr).toContain('verify: 0 receipt chains [0/235]');
    expect(tty.stderr).toContain('verify: 235 receipt chains [235/235, ETA 0s]');
    const piped = await runCli(['verify', '--root', root, '--force'], { CI: '' }, { isTTY: false });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toBe('');
  });

  it('the ETA is the remaining work at the rate seen so far', () => {
    expect(etaSuffix(0, 10, 5000)).toBe(' [0/10]');
    expect(etaSuffix(3, 4, 0)).toBe(' [3/4, ETA 0s]');
    expect(etaSuffix(1, 4, 2000)).toBe(' [1/4, ETA 6s]');
    expect(etaSuffix(50, 100, 90_000)).toBe(' [50/100, ETA 1m30s]');
    expect(formatDuration(3 * 3600_000 + 60_000)).toBe('3h01m');
  });
});
