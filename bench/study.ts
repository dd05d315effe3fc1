// npm run bench:study: the pipeline on a study at scale — 100,000 records from 20 systems, two
// evidence items each (half the items with an RFC 3161 token), receipts on every record
// (bench/study-generator.ts; generated once, cached under work/bench/). Runs the stages `prereg run`
// runs (ingest → verify → classify → score → emit), each as its own compiled CLI process under
// /usr/bin/time, so that each stage gets its own wall time, CPU and peak memory (maximum resident
// set, all threads); then `prereg audit` on the outputs (a rerun of the whole pipeline in a scratch
// directory, measured apart from the end-to-end figure). Not a test: nothing is asserted on time.
//
//   npm run bench:study [-- --records 100000[,300000…]] [--systems 20] [--variants 5] [--pattern spread|alternate]
//                       [--shards 4] [--dir work/bench] [--regenerate] [--no-audit]
//
// --variants V makes 20·V items (2,000 items: --variants 100); the protocol is as many attempts per
// item as the records need (records / systems / items, at most 100).
// --records takes several sizes: each is run in turn, then every stage's peak memory and the end-to-end
// time are printed side by side with their ratios (bounded memory: a stage's peak grows ≤ 1.15× from
// one size to the next; time ≤ 1.1× the records' ratio).
// --shards N (0: none) then runs the study's verification as N `prereg verify --shard I/N` processes,
// one after another, and sets their total CPU against the single run's ingest + verify (each shard
// reads the files itself: within 10 %).
import { studyLayout } from '../pipeline/layout.ts';
import { freezeDigest, loadFreezeRecord } from '../pipeline/study/freeze-record.ts';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { cachedStudy, generateStudy, studyCacheKey } from './study-generator.ts';
import { timeCli } from './timed-cli.ts';
import { EXAMPLE_OPERATOR_ARGS } from '../scripts/example-operator-keys.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    systems: { type: 'string', default: '20' },
    variants: { type: 'string', default: '5' },
    pattern: { type: 'string', default: 'spread' },
    shards: { type: 'string', default: '4' },
    dir: { type: 'string', default: join(ROOT, 'work/bench') },
    regenerate: { type: 'boolean' },
    'no-audit': { type: 'boolean' },
  },
});
const sizes = values.records.split(',').map(Number);
const systems = Number(values.systems);
const shardCount = Number(values.shards);
if (sizes.some((n) => !Number.isSafeInteger(n) || n <= 0))
  throw new Error(`bench:study: --records is a list of sizes, not ${values.records}`);
if (!Number.isSafeInteger(shardCount) || shardCount < 0)
  throw new Error(`bench:study: --shards is a number of shards, not ${values.shards}`);
if (values.pattern !== 'spread' && values.pattern !== 'alternate')
  throw new Error(`bench:study: --pattern is spread or alternate, not ${values.pattern}`);
const pattern = values.pattern;
execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });

interface Measured {
  stage: string;
  wall: number;
  cpu: number;
  peakMiB: number;
  load: number;
  stdout: string;
}

function measure(stage: string, args: string[], label = stage): Measured {
  const run = timeCli([stage, ...args], { timeFile: join(values.dir, `time-${stage}.txt`) });
  if (run.status !== 0) throw new Error(`bench:study: prereg ${stage} exited ${run.status}\n${run.stdout.slice(-4000)}`);
  const m = { stage: label, wall: run.wall, cpu: run.cpu, peakMiB: run.peakMiB, load: run.load, stdout: run.stdout };
  console.log(
    `${label.padEnd(8)} wall ${m.wall.toFixed(1).padStart(6)} s   CPU ${m.cpu.toFixed(1).padStart(6)} s   peak ${m.peakMiB.toFixed(0).padStart(5)} MiB   (load ${m.load.toFixed(1)} at its start)`,
  );
  return m;
}

interface SizeRun {
  study: string;
  records: number;
  submitted: number;
  stages: Measured[];
  total: { wall: number; cpu: number };
  peak: number;
  audit: Measured | null;
  shards: { runs: Measured[]; cpu: number; against: number } | null;
}

async function benchSize(records: number): Promise<SizeRun> {
  const shape = { records, systems, variants: Number(values.variants), pattern } as const;
  const started = performance.now();
  const progress = (done: number) => process.stderr.write(`\rgenerating the study: ${done}/${records} records`);
  const study = values.regenerate
    ? (await generateStudy(join(values.dir, studyCacheKey(shape)), { ...shape, progress }), join(values.dir, studyCacheKey(shape)))
    : await cachedStudy(values.dir, shape, progress);
  if (performance.now() - started > 1000) process.stderr.write(` (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);

  // A run starts from the study's inputs alone: no store, no outputs from an earlier run.
  for (const d of ['work', 'outputs', 'shards']) rmSync(join(study, d), { recursive: true, force: true });
  const submitted = readdirSync(join(study, 'inputs/submissions')).reduce(
    (a, f) => a + readFileSync(join(study, 'inputs/submissions', f)).length,
    0,
  );
  const root = ['--root', study];
  const outputs = join(study, 'outputs');
  console.log(
    `machine: ${availableParallelism()} cores, Node ${process.version}; study ${study}: ${records.toLocaleString('en-US')} records from ${systems} systems, ${(submitted / 1e6).toFixed(0)} MB of submissions`,
  );
  const stages = [
    measure('ingest', root),
    measure('verify', root),
    measure('classify', root),
    measure('score', root),
    measure('emit', [...root, '--outputs', outputs, ...EXAMPLE_OPERATOR_ARGS]),
  ];
  const total = stages.reduce((a, s) => ({ wall: a.wall + s.wall, cpu: a.cpu + s.cpu }), { wall: 0, cpu: 0 });
  const peak = Math.max(...stages.map((s) => s.peakMiB));
  console.log(
    `end to end (the stages of prereg run): wall ${total.wall.toFixed(1)} s, CPU ${total.cpu.toFixed(1)} s, peak ${peak.toFixed(0)} MiB (target <= 2048); load ${loadavg()[0]!.toFixed(1)} at the end`,
  );
  let audit: Measured | null = null;
  if (!values['no-audit']) {
    const [runId] = readdirSync(outputs);
    // The bench generated (and froze) the study itself, so its auditor takes that freeze digest as
    // published; the roots and issuer keys are the example auditor's TEST-ONLY ones.
    const auditorDir = join(ROOT, 'test/fixtures/example-auditor');
    const published = freezeDigest(loadFreezeRecord(studyLayout(study).freeze));
    const auditor = [
      '--tsa-root',
      join(auditorDir, 'TEST-ONLY-tsa-root.cert.pem'),
      '--issuer-keys',
      join(auditorDir, 'TEST-ONLY-issuer-keys.json'),
      '--expect-freeze',
      published,
    ];
    audit = measure('audit', [join(outputs, runId!), ...root, ...auditor]);
    console.log(`audit: ${/verdict: .*/.exec(audit.stdout)?.[0] ?? 'no verdict printed'}`);
  }
  let shards: SizeRun['shards'] = null;
  if (shardCount > 0) {
    // One after another, as N machines would run them side by side: each reads the files itself.
    const runs = Array.from({ length: shardCount }, (_, i) =>
      measure('verify', [...root, '--shard', `${i}/${shardCount}`, '--out', join(study, 'shards', String(i))], `shard ${i}/${shardCount}`),
    );
    const cpu = runs.reduce((a, r) => a + r.cpu, 0);
    const against = stages[0]!.cpu + stages[1]!.cpu;
    shards = { runs, cpu, against };
    console.log(
      `${shardCount} shards: CPU ${cpu.toFixed(1)} s in all, against the single run's ingest + verify ${against.toFixed(1)} s: ${(cpu / against).toFixed(2)}× (target <= 1.10); peak ${Math.max(...runs.map((r) => r.peakMiB)).toFixed(0)} MiB`,
    );
    rmSync(join(study, 'shards'), { recursive: true, force: true });
  }
  return { study, records, submitted, stages, total, peak, audit, shards };
}

const runs: SizeRun[] = [];
for (const records of sizes) runs.push(await benchSize(records));

if (runs.length > 1) {
  // Side by side: each size against the one before it.
  const cell = (s: string, w = 22) => s.padStart(w);
  const head = runs.map((r, i) => cell(`${r.records.toLocaleString('en-US')}${i > 0 ? ' (ratio)' : ''}`)).join('');
  console.log(`\npeak memory, MiB (bounded: <= 1.15x the size before, <= 2048)\n${'stage'.padEnd(10)}${head}`);
  for (const [k, stage] of runs[0]!.stages.map((s) => s.stage).entries()) {
    const row = runs.map((r, i) => {
      const peak = r.stages[k]!.peakMiB;
      return cell(i === 0 ? peak.toFixed(0) : `${peak.toFixed(0)} (${(peak / runs[i - 1]!.stages[k]!.peakMiB).toFixed(2)})`);
    });
    console.log(`${stage.padEnd(10)}${row.join('')}`);
  }
  console.log(
    `\nend to end, s (<= 1.1x the records' ratio: 3.3x from 100,000 to 300,000)\n${'wall'.padEnd(10)}${runs
      .map((r, i) =>
        cell(
          i === 0
            ? r.total.wall.toFixed(1)
            : `${r.total.wall.toFixed(1)} (${(r.total.wall / runs[i - 1]!.total.wall).toFixed(2)} / ${(1.1 * (r.records / runs[i - 1]!.records)).toFixed(2)})`,
        ),
      )
      .join('')}`,
  );
}

console.log(
  JSON.stringify({
    runs: runs.map((r) => ({
      study: r.study,
      records: r.records,
      systems,
      submitted_bytes: r.submitted,
      stages: Object.fromEntries(
        r.stages.map((s) => [
          s.stage,
          { wall_s: s.wall, cpu_s: Number(s.cpu.toFixed(2)), peak_mib: Math.round(s.peakMiB), load: Number(s.load.toFixed(2)) },
        ]),
      ),
      end_to_end_wall_s: Number(r.total.wall.toFixed(1)),
      end_to_end_cpu_s: Number(r.total.cpu.toFixed(1)),
      peak_mib: Math.round(r.peak),
      ...(r.audit
        ? {
            audit: {
              verdict: /verdict: (\w+)/.exec(r.audit.stdout)?.[1] ?? null,
              wall_s: r.audit.wall,
              cpu_s: Number(r.audit.cpu.toFixed(2)),
              peak_mib: Math.round(r.audit.peakMiB),
            },
          }
        : {}),
      ...(r.shards
        ? {
            shards: {
              count: r.shards.runs.length,
              cpu_s: Number(r.shards.cpu.toFixed(2)),
              single_ingest_verify_cpu_s: Number(r.shards.against.toFixed(2)),
              ratio: Number((r.shards.cpu / r.shards.against).toFixed(3)),
              peak_mib: Math.round(Math.max(...r.shards.runs.map((x) => x.peakMiB))),
            },
          }
        : {}),
    })),
  }),
);
