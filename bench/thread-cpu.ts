// Where a run of the compiled CLI spends its CPU, thread by thread (Linux): every 5 ms the
// counters of /proc/<pid>/task/*/stat are read, and each thread keeps its last reading (a
// thread's counters go when it exits). Node names every thread "node", so they are told apart by
// what they do: the process's first thread runs JavaScript; among the others, the `busiest` with
// the most CPU are the worker threads of the run (the signature threads of `verify DIR`); the
// rest are V8's platform threads (optimising compiler, GC) and libuv's. A bench figure, not a
// counter: 10 ms ticks, and a thread that lives less than 5 ms may be missed.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface ThreadCpu {
  /** Seconds of CPU (user + system) of the first thread. */
  main: number;
  /** The `busiest` other threads, most CPU first. */
  busiest: number[];
  /** Every other thread together. */
  rest: number;
}

/** Each thread's user + system ticks, by thread id (the threads that exist at this moment). */
function ticksByThread(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out; // gone
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces), from field 3: utime is the 14th field, stime the 15th.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(tid), Number(fields[11]) + Number(fields[12]));
    } catch {
      // the thread ended between the listing and the read: its last reading stands
    }
  }
  return out;
}

/** `prereg ARGS…` once, its output discarded; null where /proc is not there. */
export async function threadCpu(args: readonly string[], busiest: number): Promise<ThreadCpu | null> {
  if (process.platform !== 'linux') return null;
  const hz = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  const child = spawn(process.execPath, [join(ROOT, 'bin/prereg.mjs'), ...args], { stdio: 'ignore' });
  const pid = child.pid!;
  const last = new Map<number, number>();
  const sample = () => {
    for (const [tid, ticks] of ticksByThread(pid)) last.set(tid, ticks);
  };
  const timer = setInterval(sample, 5);
  sample();
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
  clearInterval(timer);
  const others = [...last].filter(([tid]) => tid !== pid).map(([, t]) => t / hz);
  others.sort((a, b) => b - a);
  return {
    main: (last.get(pid) ?? 0) / hz,
    busiest: others.slice(0, busiest),
    rest: others.slice(busiest).reduce((a, b) => a + b, 0),
  };
}
