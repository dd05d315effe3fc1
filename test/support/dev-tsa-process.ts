// `prereg dev tsa` as its own process (a real TSA over HTTP, every token dated --gen-time), the
// CLI run that must succeed, and the steps after closes_at: what the rehearsal tests walk
// docs/getting-started.md with.
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { expect } from 'vitest';
import { PROJECT_ROOT, runCli, type CliRun } from './cli.ts';

const running = new Set<ChildProcess>();

/** Stops every dev TSA still running (for afterAll). */
export function stopDevTsas(): void {
  for (const child of running) child.kill('SIGTERM');
}

/** `prereg dev tsa --gen-time T --json` as its own process; resolves with its URL (and the line it printed) once it listens. */
export async function devTsa(
  kit: string,
  genTime: string,
): Promise<{ url: string; line: Record<string, unknown>; stop: () => Promise<number | null> }> {
  const child = spawn(
    process.execPath,
    [join(PROJECT_ROOT, 'bin/prereg.mjs'), 'dev', 'tsa', '--kit', kit, '--gen-time', genTime, '--port', '0', '--json'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  running.add(child);
  let stderr = '';
  child.stderr!.on('data', (d) => void (stderr += d));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`dev tsa exited ${code}: ${stderr}`)));
  });
  const line = JSON.parse(first) as Record<string, unknown>;
  expect([line.test_only, line.gen_time]).toEqual([true, genTime]);
  return {
    url: line.url as string,
    line,
    stop: () =>
      new Promise((resolve) => {
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

/**
 * After closes_at, as docs/getting-started.md: seal with the dev TSA dated `sealedAt`, reveal the
 * key from the study's private directory (`priv`), reveal-check, run; returns run's answer.
 */
export async function sealAndRun(kit: string, study: string, priv: string, sealedAt: string): Promise<CliRun> {
  const tsa = await devTsa(kit, sealedAt);
  await ok(['seal', '--root', study, '--tsa', `dev=${tsa.url}`, '--retries', '0']);
  expect(await tsa.stop()).toBe(0);
  copyFileSync(join(priv, 'answer-key.jsonl'), join(study, 'inputs/answer-key.jsonl'));
  copyFileSync(join(priv, 'answer-key.secret'), join(study, 'inputs/answer-key.secret'));
  await ok(['reveal-check', '--root', study]);
  return ok([
    'run',
    '--root',
    study,
    '--operator-key',
    join(priv, 'operator.key.pem'),
    '--cms-key',
    join(priv, 'operator-cms.key.pem'),
    '--cms-cert',
    join(priv, 'operator-cms.cert.pem'),
  ]);
}
