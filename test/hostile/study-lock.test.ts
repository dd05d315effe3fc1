// One writer per study (SPEC §12.8, pipeline/io/study-lock.ts): two real `prereg run` processes on
// one study — one finishes, the other is refused at once with STUDY_LOCKED (exit 4) and leaves the
// first one's temporaries alone (before the lock, the loser died on DuckDB's file lock or deleted
// the winner's temporary database). Every writing command is refused while a live process holds
// the lock; status and audit read without it; a lock whose process is gone (or whose pid now names
// another process) is taken over.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditorFlags, publishedFreezeDigest } from '../support/auditor.ts';
import { copyExampleStudy, PROJECT_ROOT, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';
import { snapshotTree } from '../ingest/helpers.ts';

interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `prereg ARGS…` as its own process (the compiled CLI), resolved when it exits. */
function prereg(args: string[]): Promise<Exited> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin/prereg.mjs'), ...args], { env: { ...process.env, CI: 'true' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const lockPath = (root: string) => join(root, 'work/prereg.lock');
const holdLock = (root: string, pid: number, extra: Record<string, unknown> = {}) => {
  mkdirSync(join(root, 'work'), { recursive: true });
  writeFileSync(
    lockPath(root),
    `${JSON.stringify({ pid, proc_start: null, command: 'prereg run', started_at: '2026-12-01T00:00:00.000Z', ...extra })}\n`,
  );
};

describe('the study lock', () => {
  let study: { root: string; cleanup: () => void };
  beforeAll(() => {
    study = copyExampleStudy();
  });
  afterAll(() => study.cleanup());

  it('two concurrent runs: one writes the outputs, the other gets STUDY_LOCKED (exit 4) at once and touches nothing of it', async () => {
    const args = ['run', '--root', study.root, ...TEST_OPERATOR_ARGS, '--json'];
    const [a, b] = await Promise.all([prereg(args), prereg(args)]);
    const results = [a, b].sort((x, y) => (x.code ?? 9) - (y.code ?? 9));
    expect(
      results.map((r) => r.code),
      `${a.stdout}${a.stderr}\n${b.stdout}${b.stderr}`,
    ).toEqual([0, 4]);
    const loser = JSON.parse(results[1]!.stdout);
    expect(loser.code).toBe('STUDY_LOCKED');
    expect(loser.message).toMatch(/is held by prereg run, pid \d+, since /);
    const winner = JSON.parse(results[0]!.stdout);
    expect(existsSync(join(winner.dir, 'manifest.json'))).toBe(true);
    // The lock is gone with its holder, and no temporary is left in work/ or outputs/.
    expect(existsSync(lockPath(study.root))).toBe(false);
    expect(readdirSync(join(study.root, 'work')).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(readdirSync(join(study.root, 'outputs')).filter((n) => n.startsWith('.'))).toEqual([]);
  }, 240_000);

  it('held by a live process: every writing command is refused (exit 4) writing nothing; status and audit read on', async () => {
    const sleeper = spawn('sleep', ['60']);
    try {
      holdLock(study.root, sleeper.pid!);
      const work = snapshotTree(join(study.root, 'work'));
      const outputs = snapshotTree(join(study.root, 'outputs'));
      for (const args of [
        ['ingest', '--force'],
        ['verify', '--force'],
        ['classify', '--force'],
        ['score', '--force'],
        ['emit', ...TEST_OPERATOR_ARGS],
        ['run', ...TEST_OPERATOR_ARGS],
        ['seal'],
      ]) {
        const r = await runCli([...args, '--root', study.root, '--json']);
        expect([args[0], r.code, r.json?.code]).toEqual([args[0], 4, 'STUDY_LOCKED']);
      }
      expect(snapshotTree(join(study.root, 'work'))).toEqual(work);
      expect(snapshotTree(join(study.root, 'outputs'))).toEqual(outputs);
      expect((await runCli(['status', '--root', study.root, '--json'])).code).toBe(0);
      const dir = join(study.root, 'outputs', readdirSync(join(study.root, 'outputs'))[0]!);
      const audited = await runCli(['audit', dir, '--root', study.root, ...auditorFlags(publishedFreezeDigest(study.root)), '--json']);
      expect(audited.json.rails.find((r: { name: string }) => r.name === 'reproduced').ok).toBe(true);
      expect(readFileSync(lockPath(study.root), 'utf8')).toContain(`"pid":${sleeper.pid}`);
    } finally {
      sleeper.kill();
    }
  }, 240_000);

  it('a stale lock — its process gone, or its pid now another process — is taken over; the lock holds pid and start time', async () => {
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    holdLock(study.root, Number(gone.stdout));
    const r = await runCli(['ingest', '--root', study.root, '--json']);
    expect(r.code, r.stdout).toBe(0);
    expect(existsSync(lockPath(study.root))).toBe(false);
    // This very process, but with another start time: the pid was reused, the holder is gone.
    holdLock(study.root, process.pid, { proc_start: '1' });
    expect((await runCli(['ingest', '--root', study.root, '--json'])).code).toBe(0);
    // While a command runs, the lock names it: pid, /proc start time, command, start.
    const child = prereg(['ingest', '--force', '--root', study.root, '--json']);
    let seen: string | null = null;
    for (let i = 0; i < 400 && seen === null; i++) {
      await new Promise((t) => setTimeout(t, 10));
      if (existsSync(lockPath(study.root))) seen = readFileSync(lockPath(study.root), 'utf8');
    }
    expect((await child).code).toBe(0);
    expect(JSON.parse(seen!)).toMatchObject({
      pid: expect.any(Number),
      proc_start: expect.stringMatching(/^\d+$/),
      command: 'prereg ingest',
      started_at: expect.any(String),
    });
  }, 240_000);
});
