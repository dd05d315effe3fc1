// One run of the compiled CLI (bin/prereg.mjs) in its own process under GNU time, as a person
// runs it: wall time, CPU (user + sys, every thread) and peak resident memory, with the load
// average at its start. The benches of whole commands (bench:study, bench:ingest, bench's
// `verify DIR`) all measure through here; the caller judges the exit status.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface TimedRun {
  status: number | null;
  stdout: string;
  stderr: string;
  wall: number;
  cpu: number;
  peakMiB: number;
  load: number;
}

/** `prereg ARGS…`; GNU time writes its figures to `timeFile` (the command's own stderr is passed through unless `stderr: 'pipe'`). */
export function timeCli(
  args: readonly string[],
  options: { timeFile: string; env?: NodeJS.ProcessEnv; stderr?: 'inherit' | 'pipe' },
): TimedRun {
  const load = loadavg()[0]!;
  const out = spawnSync(
    '/usr/bin/time',
    ['-o', options.timeFile, '-f', '%e %U %S %M', process.execPath, join(ROOT, 'bin/prereg.mjs'), ...args],
    {
      stdio: ['ignore', 'pipe', options.stderr ?? 'inherit'],
      encoding: 'utf8',
      maxBuffer: 1 << 30,
      ...(options.env ? { env: options.env } : {}),
    },
  );
  const [wall, user, sys, rssKiB] = readFileSync(options.timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number) as [
    number,
    number,
    number,
    number,
  ];
  return { status: out.status, stdout: out.stdout ?? '', stderr: out.stderr ?? '', wall, cpu: user + sys, peakMiB: rssKiB / 1024, load };
}
