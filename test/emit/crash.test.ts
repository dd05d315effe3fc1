// Atomicity of outputs/<run_id>/ against a real crash: a child process running `prereg emit` kills
// itself (SIGKILL: no finally, no cleanup) after writing half the files. Nothing may appear under
// outputs/<run_id>/; the next emit removes the stale temporary directory and succeeds. And a
// separate process in another time zone writes the same bytes.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from '../support/cli.ts';
import { filesOf, KEY_ARGS, studyWithStore } from './helpers.ts';

let study: Awaited<ReturnType<typeof studyWithStore>>;
beforeAll(async () => {
  study = await studyWithStore();
});
afterAll(() => study?.cleanup());

function emitProcess(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync('node', ['bin/prereg.mjs', 'emit', '--root', study.root, ...KEY_ARGS, '--json', ...args], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true', ...env },
  });
}

describe('emit: a crash mid-emit', () => {
  it('leaves only a dot-temporary directory; the next emit cleans it and succeeds', async () => {
    const outputs = join(study.root, 'outputs');
    const crashed = emitProcess([], { PREREG_TEST_EMIT_CRASH_AFTER: '4' });
    expect(crashed.signal).toBe('SIGKILL');
    expect(crashed.stdout).toBe('');
    const left = readdirSync(outputs);
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^\.[0-9a-f]{16}\.tmp-[0-9a-f]{12}$/);
    const runId = left[0]!.slice(1, 17);
    expect(existsSync(join(outputs, runId))).toBe(false);
    const half = readdirSync(join(outputs, left[0]!)).sort();
    expect(half).toEqual(['assertions.parquet', 'proof_checks.parquet', 'results.json', 'scores.csv']);
    expect(half).not.toContain('manifest.json');

    const next = await runCli(['emit', '--root', study.root, ...KEY_ARGS, '--json']);
    expect(next.code).toBe(0);
    expect(next.json).toMatchObject({ ok: true, run_id: runId, removed_temporaries: [left[0]] });
    expect(readdirSync(outputs)).toEqual([runId]);
    expect(readdirSync(join(outputs, runId))).toContain('manifest.json');
  });

  it('a separate process in another time zone writes byte-identical files', () => {
    const other = join(study.root, 'outputs-elsewhere');
    const r = emitProcess(['--outputs', other], { TZ: 'Pacific/Kiritimati', LANG: 'fr_FR.UTF-8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const { run_id: runId } = JSON.parse(r.stdout) as { run_id: string };
    const here = filesOf(join(study.root, 'outputs', runId));
    const there = filesOf(join(other, runId));
    expect([...there.keys()]).toEqual([...here.keys()]);
    for (const [name, bytes] of here) expect(there.get(name)!.equals(bytes), name).toBe(true);
  });
});
