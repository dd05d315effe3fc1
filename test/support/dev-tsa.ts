// `prereg dev tsa --gen-time T --json` as its own process (it serves until stopped): resolves with
// the JSON line it prints once it listens. The rehearsal tests restart it with each phase's genTime.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT } from './cli.ts';

export interface DevTsa {
  url: string;
  /** The line it printed, parsed. */
  line: Record<string, unknown>;
  /** Stops it (SIGTERM); resolves with its exit code. */
  stop: () => Promise<number | null>;
}

/** Starts dev tsa processes; `stopAll` ends those still running (for afterAll). */
export function devTsaStarter(): { start: (kit: string, genTime: string) => Promise<DevTsa>; stopAll: () => void } {
  const running = new Set<ChildProcess>();
  const start = async (kit: string, genTime: string): Promise<DevTsa> => {
    const child = spawn(process.execPath, [join(PROJECT_ROOT, 'bin/prereg.mjs'), 'dev', 'tsa', '--kit', kit, '--gen-time', genTime, '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let stderr = '';
    child.stderr!.on('data', (d) => void (stderr += d));
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      child.once('exit', (code) => reject(new Error(`dev tsa exited ${code}: ${stderr}`)));
    });
    const line = JSON.parse(first) as Record<string, unknown>;
    return {
      url: line.url as string,
      line,
      stop: () => new Promise((resolve) => {
        child.once('exit', (code) => {
          running.delete(child);
          resolve(code);
        });
        child.kill('SIGTERM');
      }),
    };
  };
  return { start, stopAll: () => running.forEach((child) => child.kill('SIGTERM')) };
}
