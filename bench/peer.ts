// The reference peer of the files bench (bench/peer/verify_peer.py, Debian's python3 and
// python3-cryptography): installed when missing (the bench needs it, CI does not run benches),
// run as a whole process under /usr/bin/time, as prereg is (bench/timed-cli.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { TimedRun } from './timed-cli.ts';

const SCRIPT = fileURLToPath(new URL('./peer/verify_peer.py', import.meta.url));
/** Debian's interpreter, which sees the Debian package (a python3 earlier on PATH may not). */
const PYTHON = '/usr/bin/python3';

function installed(): boolean {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format, not a template
  const out = spawnSync('dpkg-query', ['-W', '-f', '${Status}', 'python3-cryptography'], { encoding: 'utf8' });
  return out.status === 0 && out.stdout.includes('install ok installed');
}

/** Installs python3-cryptography (and python3) with apt-get when dpkg does not list it. */
export function ensurePeer(): void {
  if (installed()) return;
  process.stderr.write('bench: installing python3-cryptography for the reference peer\n');
  const run = (args: string[]) => {
    const command = process.getuid?.() === 0 ? args : ['sudo', ...args];
    execFileSync(command[0]!, command.slice(1), { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  };
  run(['apt-get', 'update']);
  run(['apt-get', 'install', '-y', '--no-install-recommends', 'python3', 'python3-cryptography']);
}

/** The peer over `dir` with `jobs` processes (1: no pool); its stdout is one JSON line per file. */
export function timePeer(trustDir: string, dir: string, jobs: number, timeFile: string): TimedRun {
  const load = loadavg()[0]!;
  const out = spawnSync('/usr/bin/time', ['-o', timeFile, '-f', '%e %U %S %M', PYTHON, SCRIPT, trustDir, String(jobs), dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const [wall, user, sys, rssKiB] = readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number) as [
    number,
    number,
    number,
    number,
  ];
  return { status: out.status, stdout: out.stdout ?? '', stderr: out.stderr ?? '', wall, cpu: user + sys, peakMiB: rssKiB / 1024, load };
}
