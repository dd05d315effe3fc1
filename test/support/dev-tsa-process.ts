// `prereg dev tsa` as its own process (a real TSA over HTTP, every token dated --gen-time), and
// the CLI run that must succeed: what the rehearsal tests walk docs/getting-started.md with.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect } from 'vitest';
import { PROJECT_ROOT, runCli, type CliRun } from './cli.ts';

const running = new Set<ChildProcess>();

/** Stops every dev TSA still running (for afterAll). */
export function stopDevTsas(): void {
  for (const child of running) child.kill('SIGTERM');
}

/** `prereg dev tsa --gen-time T --json` as its own process; resolves with its URL once it listens. */
export async function devTsa(kit: string, genTime: string): Promise<{ url: string; stop: () => Promise<number | null> }> {
  const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin/prereg.mjs'), 'dev', 'tsa', '--kit', kit, '--gen-time', genTime, '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  let stderr = '';
  child.stderr!.on('data', (d) => void (stderr += d));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`dev tsa exited ${code}: ${stderr}`)));
  });
  const line = JSON.parse(first) as { url: string; test_only: boolean; gen_time: string };
  expect([line.test_only, line.gen_time]).toEqual([true, genTime]);
  return {
    url: line.url,
    stop: () => new Promise((resolve) => {
      child.once('exit', (code) => {
        running.delete(child);
        resolve(code);
      });
      child.kill('SIGTERM');
    }),
  };
}

/** `prereg ARGS --json`, which must exit 0. */
export async function ok(args: string[]): Promise<CliRun> {
  const r = await runCli([...args, '--json']);
  expect(r.code, `prereg ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  return r;
}
