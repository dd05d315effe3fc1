// npm run bench:ingest: ingest and validate throughput on a generated submission file (default
// 200 MB), every check kept. The file (cached under work/bench/) repeats the example study's
// submission lines, each pass under a new (system id, attempt) pair so no line is a duplicate and
// the systems stay within the study's limits.max_systems (100): 33 ids per example system, and
// each further round of 33 passes moves the attempts up by 3 (past ≈ 950 MB the attempts pass
// 100 and the schema rejects those lines). Then `prereg validate FILE` and `prereg ingest` (in a
// scratch copy of the example study) run as the compiled CLI (what `prereg` runs), each in its own
// process under /usr/bin/time: wall, CPU (user + sys, every thread) and peak memory, with the load
// average beside (on a loaded machine wall rates are low, CPU rates much less so). Each stage runs
// with its line checks on worker threads and on the main thread (PREREG_LINE_WORKERS=on, off;
// --workers on|off runs one); the figures are those of the path prereg takes for the file
// (ingest/parallel-check.ts lineWorkersPay). With --runs N, every run is printed and the medians
// are the figures.
//
//   npm run bench:ingest [-- --megabytes 200] [--dir work/bench] [--runs 1] [--workers on|off]
import { unsealWorkingCopy } from '../scripts/rebuild-example.ts';
import { execFileSync } from 'node:child_process';
import { cpSync, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { lineWorkersPay } from '../pipeline/ingest/parallel-check.ts';
import { timeCli } from './timed-cli.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: {
    megabytes: { type: 'string', default: '200' },
    dir: { type: 'string', default: join(ROOT, 'work/bench') },
    runs: { type: 'string', default: '1' },
    workers: { type: 'string' },
  },
});
const target = Number(values.megabytes) * 1e6;
const runs = Number(values.runs);
if (!(Number.isInteger(runs) && runs >= 1)) throw new Error(`bench: --runs must be a whole number >= 1, got ${values.runs}`);
if (values.workers !== undefined && values.workers !== 'on' && values.workers !== 'off')
  throw new Error(`bench: --workers is on or off, got ${values.workers}`);
// v2: ids and attempts as above (the first version named a new system on every pass).
const file = join(values.dir, `submissions-${values.megabytes}MB.v2.jsonl`);
const IDS_PER_SYSTEM = 33;

async function generate(): Promise<void> {
  if (existsSync(file)) return;
  mkdirSync(values.dir, { recursive: true });
  const lines = ['sys-honest', 'sys-tampered', 'sys-truncated'].flatMap((s) =>
    readFileSync(join(ROOT, 'inputs/submissions', `${s}.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => ({ system: s, line: l })),
  );
  const tmp = `${file}.tmp`;
  const out = createWriteStream(tmp);
  let written = 0;
  for (let pass = 0; written < target; pass++) {
    for (const { system, line } of lines) {
      const round = Math.floor(pass / IDS_PER_SYSTEM);
      const renamed = line
        .replace(`"system_id":"${system}"`, `"system_id":"${system}-${pass % IDS_PER_SYSTEM}"`)
        .replace(/"attempt":([0-9]+)/, (_, a: string) => `"attempt":${Number(a) + 3 * round}`);
      const text = `${renamed}\n`;
      if (!out.write(text)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      written += Buffer.byteLength(text);
    }
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
  renameSync(tmp, file);
}

interface Measured {
  wall: number;
  cpu: number;
  peakMiB: number;
  load: number;
}

/** One compiled CLI run under /usr/bin/time; `ok` lists the exit codes that are not a failure. */
function measure(args: string[], ok: number[], workers: 'on' | 'off'): Measured {
  const run = timeCli(args, {
    timeFile: join(values.dir, 'time-ingest-bench.txt'),
    env: { ...process.env, CI: 'true', PREREG_LINE_WORKERS: workers },
  });
  if (!ok.includes(run.status ?? -1)) throw new Error(`bench: prereg ${args[0]} exited ${run.status}: ${run.stdout.slice(0, 400)}`);
  return { wall: run.wall, cpu: run.cpu, peakMiB: run.peakMiB, load: run.load };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2;
};

await generate();
execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });
const size = statSync(file).size;
const megabytes = size / 1e6;
const rate = (m: Measured) =>
  `${(megabytes / m.wall).toFixed(1)} MB/s wall, ${(megabytes / m.cpu).toFixed(1)} MB/s of CPU (${m.wall.toFixed(2)} s wall, ${m.cpu.toFixed(2)} s CPU, peak ${m.peakMiB.toFixed(0)} MiB)`;
console.log(`machine: ${availableParallelism()} cores, Node ${process.version}; ${megabytes.toFixed(1)} MB of submissions`);

const study = join(values.dir, 'ingest-study');
rmSync(study, { recursive: true, force: true });
for (const dir of ['corpus', 'preregistration', 'inputs']) cpSync(join(ROOT, dir), join(study, dir), { recursive: true });
// The bench's file is no sealed one: without the seal, ingest reads the files as they are.
unsealWorkingCopy(study, { keepStudy: true });
rmSync(join(study, 'inputs/submissions'), { recursive: true });
mkdirSync(join(study, 'inputs/submissions'));
cpSync(file, join(study, 'inputs/submissions/bench.jsonl'));

const paths = values.workers === undefined ? (['on', 'off'] as const) : ([values.workers] as const);
const shown = { on: 'worker threads', off: 'main thread' };
const json: Record<string, number | string> = { megabytes: Number(megabytes.toFixed(1)) };
for (const [stage, args, ok] of [
  // Exit 1: some lines would be rejected, as the example's tampered submissions are meant to be.
  ['validate', ['validate', file, '--root', ROOT, '--json'], [0, 1]],
  // --force: every run rebuilds the store.
  ['ingest', ['ingest', '--root', study, '--json', '--force'], [0]],
] as const) {
  const byPath: Partial<Record<'on' | 'off', Measured>> = {};
  for (const path of paths) {
    const all: Measured[] = [];
    for (let i = 0; i < runs; i++) {
      const m = measure([...args], [...ok], path);
      all.push(m);
      console.log(`${stage}, ${shown[path]}${runs > 1 ? ` (run ${i + 1})` : ''}: ${rate(m)} (load ${m.load.toFixed(2)})`);
    }
    const m = {
      wall: median(all.map((x) => x.wall)),
      cpu: median(all.map((x) => x.cpu)),
      peakMiB: median(all.map((x) => x.peakMiB)),
      load: median(all.map((x) => x.load)),
    };
    if (runs > 1) console.log(`${stage}, ${shown[path]}, median of ${runs}: ${rate(m)} (load ${m.load.toFixed(2)})`);
    byPath[path] = m;
    json[`${stage}_${path === 'on' ? 'workers' : 'main_thread'}_mb_per_s`] = Number((megabytes / m.wall).toFixed(1));
  }
  // What prereg does unless told.
  const path = paths.length === 1 ? paths[0] : lineWorkersPay(size) ? 'on' : 'off';
  const m = byPath[path]!;
  console.log(
    `${stage}, ${megabytes.toFixed(0)} MB: ${rate(m)} (target >= 50 MB/s wall; ${shown[path]}${paths.length > 1 ? ', as prereg picks for this file' : ''}; load ${m.load.toFixed(2)})`,
  );
  json[`${stage}_mb_per_s`] = Number((megabytes / m.wall).toFixed(1));
  json[`${stage}_cpu_mb_per_s`] = Number((megabytes / m.cpu).toFixed(1));
  json[`${stage}_peak_mib`] = Math.round(m.peakMiB);
  json[`${stage}_path`] = shown[path];
}
rmSync(study, { recursive: true, force: true });
json.load = Number(loadavg()[0]!.toFixed(2));
console.log(JSON.stringify(json));
