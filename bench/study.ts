// npm run bench:study: the pipeline on a study at scale — 100,000 records from 20 systems, two
// evidence items each (half the items with an RFC 3161 token), receipts on every record
// (bench/study-generator.ts; generated once, cached under work/bench/). Runs the stages `prereg run`
// runs (ingest → verify → classify → score → emit), each as its own compiled CLI process under
// /usr/bin/time, so that each stage gets its own wall time, CPU and peak memory (maximum resident
// set, all threads); then `prereg audit` on the outputs (a rerun of the whole pipeline in a scratch
// directory, measured apart from the end-to-end figure). Not a test: nothing is asserted on time.
//
//   npm run bench:study [-- --records 100000] [--systems 20] [--variants 5] [--pattern spread|alternate]
//                       [--dir work/bench] [--regenerate] [--no-audit]
//
// --variants V makes 20·V items (2,000 items: --variants 100); the protocol is as many attempts per
// item as the records need (records / systems / items).
import { studyLayout } from '../pipeline/layout.ts';
import { freezeDigest, loadFreezeRecord } from '../pipeline/study/freeze-record.ts';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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
    dir: { type: 'string', default: join(ROOT, 'work/bench') },
    regenerate: { type: 'boolean' },
    'no-audit': { type: 'boolean' },
  },
});
const records = Number(values.records);
const systems = Number(values.systems);
if (values.pattern !== 'spread' && values.pattern !== 'alternate')
  throw new Error(`bench:study: --pattern is spread or alternate, not ${values.pattern}`);
const shape = { records, systems, variants: Number(values.variants), pattern: values.pattern } as const;

const started = performance.now();
const progress = (done: number) => process.stderr.write(`\rgenerating the study: ${done}/${records} records`);
const study = values.regenerate
  ? (await generateStudy(join(values.dir, studyCacheKey(shape)), { ...shape, progress }), join(values.dir, studyCacheKey(shape)))
  : await cachedStudy(values.dir, shape, progress);
if (performance.now() - started > 1000) process.stderr.write(` (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
execFileSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });

// A run starts from the study's inputs alone: no store, no outputs from an earlier run.
for (const d of ['work', 'outputs']) rmSync(join(study, d), { recursive: true, force: true });
const submitted = readdirSync(join(study, 'inputs/submissions')).reduce(
  (a, f) => a + readFileSync(join(study, 'inputs/submissions', f)).length,
  0,
);

interface Measured {
  stage: string;
  wall: number;
  cpu: number;
  peakMiB: number;
  load: number;
  stdout: string;
}

function measure(stage: string, args: string[]): Measured {
  const run = timeCli([stage, ...args], { timeFile: join(values.dir, `time-${stage}.txt`) });
  if (run.status !== 0) throw new Error(`bench:study: prereg ${stage} exited ${run.status}\n${run.stdout.slice(-4000)}`);
  const m = { stage, wall: run.wall, cpu: run.cpu, peakMiB: run.peakMiB, load: run.load, stdout: run.stdout };
  console.log(
    `${stage.padEnd(8)} wall ${m.wall.toFixed(1).padStart(6)} s   CPU ${m.cpu.toFixed(1).padStart(6)} s   peak ${m.peakMiB.toFixed(0).padStart(5)} MiB   (load ${m.load.toFixed(1)} at its start)`,
  );
  return m;
}

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
  `end to end (the stages of prereg run): wall ${total.wall.toFixed(1)} s (target <= 150), CPU ${total.cpu.toFixed(1)} s, peak ${peak.toFixed(0)} MiB (target <= 2048); load ${loadavg()[0]!.toFixed(1)} at the end`,
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
console.log(
  JSON.stringify({
    study,
    records,
    systems,
    submitted_bytes: submitted,
    stages: Object.fromEntries(
      stages.map((s) => [
        s.stage,
        { wall_s: s.wall, cpu_s: Number(s.cpu.toFixed(2)), peak_mib: Math.round(s.peakMiB), load: Number(s.load.toFixed(2)) },
      ]),
    ),
    end_to_end_wall_s: Number(total.wall.toFixed(1)),
    end_to_end_cpu_s: Number(total.cpu.toFixed(1)),
    peak_mib: Math.round(peak),
    ...(audit
      ? {
          audit: {
            verdict: /verdict: (\w+)/.exec(audit.stdout)?.[1] ?? null,
            wall_s: audit.wall,
            cpu_s: Number(audit.cpu.toFixed(2)),
            peak_mib: Math.round(audit.peakMiB),
          },
        }
      : {}),
  }),
);
if (!existsSync(outputs)) process.exitCode = 1;
