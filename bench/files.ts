// `prereg verify DIR --json` against the reference peer (bench/peer.ts), side by side in one run:
// for each set, `rounds` rounds of prereg, the peer with 1 process and the peer with a pool of 2,
// interleaved so that the load falls on all three alike; each keeps its best wall time, the peer
// the better of its two. Whole processes, start-up and output included. Used by bench/verify.ts.
import { timePeer } from './peer.ts';
import { threadCpu, type ThreadCpu } from './thread-cpu.ts';
import { timeCli, type TimedRun } from './timed-cli.ts';

export interface FilesSet {
  label: string;
  dir: string;
  count: number;
  /** The ratio prereg / peer (items/s) asked for. */
  target: number;
  /** The most CPU per item asked for, in Ed25519 verifies measured in the same run (issue 39: 1.5 without tokens). */
  cpuTarget?: number;
}

export interface FilesFigure {
  label: string;
  count: number;
  target: number;
  cpuTarget?: number;
  prereg: { wall: number; cpu: number; peakMiB: number; load: number };
  peer: { jobs: number; wall: number; cpu: number; load: number };
  ratio: number;
  /** prereg's CPU by thread, from one more run (bench/thread-cpu.ts); null off Linux. */
  threads: ThreadCpu | null;
}

function checked(run: TimedRun, count: number, who: string): TimedRun {
  const lines = run.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { file: string; status: string; reason_codes?: string[] });
  const bad = lines.find((r) => r.status !== 'VERIFIED');
  if (run.status !== 0 || lines.length !== count || bad) {
    throw new Error(
      `bench: ${who} exited ${run.status} with ${lines.length} lines${bad ? `; ${bad.file} is ${bad.status} ${(bad.reason_codes ?? []).join(' ')}` : ''}\n${run.stderr}`,
    );
  }
  return run;
}

const best = (runs: TimedRun[]) => runs.reduce((a, b) => (b.wall < a.wall ? b : a));

/** The signature threads of `verify DIR` (one per core; pipeline/verify/file-verify.ts). */
const SIGNATURE_THREADS = 2;

/**
 * Every set, `rounds` interleaved rounds each, then one more run of prereg with its CPU counted by
 * thread; `root` is a directory without study.json (unbounded window).
 */
export async function filesAgainstPeer(
  sets: readonly FilesSet[],
  options: { trustDir: string; root: string; timeFile: string; rounds: number; log?: (line: string) => void },
): Promise<FilesFigure[]> {
  const out: FilesFigure[] = [];
  for (const set of sets) {
    const args = ['verify', set.dir, '--json', '--trust', options.trustDir, '--root', options.root];
    const runs: Record<'prereg' | 'peer1' | 'peer2', TimedRun[]> = { prereg: [], peer1: [], peer2: [] };
    for (let round = 0; round < options.rounds; round++) {
      runs.prereg.push(
        checked(
          timeCli(args, {
            timeFile: options.timeFile,
            stderr: 'pipe',
          }),
          set.count,
          'prereg verify DIR',
        ),
      );
      runs.peer1.push(checked(timePeer(options.trustDir, set.dir, 1, options.timeFile), set.count, 'the peer (1 process)'));
      runs.peer2.push(checked(timePeer(options.trustDir, set.dir, 2, options.timeFile), set.count, 'the peer (2 processes)'));
      const last = (k: keyof typeof runs) => `${runs[k].at(-1)!.wall.toFixed(2)} s (load ${runs[k].at(-1)!.load.toFixed(2)})`;
      options.log?.(`${set.label}, round ${round + 1}: prereg ${last('prereg')}, peer×1 ${last('peer1')}, peer×2 ${last('peer2')}`);
    }
    const p = best(runs.prereg);
    const [peer, jobs] = best(runs.peer1).wall <= best(runs.peer2).wall ? [best(runs.peer1), 1] : [best(runs.peer2), 2];
    out.push({
      label: set.label,
      count: set.count,
      target: set.target,
      ...(set.cpuTarget !== undefined ? { cpuTarget: set.cpuTarget } : {}),
      prereg: { wall: p.wall, cpu: p.cpu, peakMiB: p.peakMiB, load: p.load },
      peer: { jobs, wall: peer.wall, cpu: peer.cpu, load: peer.load },
      ratio: peer.wall / p.wall,
      threads: await threadCpu(args, SIGNATURE_THREADS),
    });
  }
  return out;
}

/**
 * One set's line; with `edMicros` (the CPU of one Ed25519 verify, measured in the same run) also
 * prereg's CPU per item (all threads, start-up included) in those verifies.
 */
export function describeFigure(f: FilesFigure, edMicros?: number): string {
  const rate = (wall: number) => Math.round(f.count / wall).toLocaleString('en-US');
  const perItem = (f.prereg.cpu * 1e6) / f.count;
  const cpu =
    edMicros === undefined
      ? ''
      : `; prereg CPU ${Math.round(perItem)} µs per item = ${(perItem / edMicros).toFixed(2)} Ed25519 verifies of ${edMicros.toFixed(1)} µs${f.cpuTarget !== undefined ? ` (target <= ${f.cpuTarget})` : ''}`;
  const us = (seconds: number) => Math.round((seconds * 1e6) / f.count);
  const threads =
    f.threads === null
      ? ''
      : `; by thread (one more run), µs per item: main ${us(f.threads.main)}, the ${f.threads.busiest.length} busiest others (the signature threads from 256 files on) ${f.threads.busiest.map(us).join(' + ')}, the rest (V8's platform threads, libuv's) ${us(f.threads.rest)}`;
  return (
    `prereg verify DIR --json, ${f.label}: ${rate(f.prereg.wall)} items/s (${f.prereg.wall.toFixed(2)} s, ${f.prereg.cpu.toFixed(2)} s CPU, load ${f.prereg.load.toFixed(2)}); ` +
    `peer ${rate(f.peer.wall)} items/s (${f.peer.jobs} process${f.peer.jobs > 1 ? 'es' : ''}, ${f.peer.wall.toFixed(2)} s, load ${f.peer.load.toFixed(2)}): ratio ${f.ratio.toFixed(2)} (target >= ${f.target})${cpu}${threads}`
  );
}
