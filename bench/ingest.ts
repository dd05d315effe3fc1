// npm run bench:ingest: ingest and validate throughput on a generated submission file (default
// 200 MB), every check kept. The file (cached under work/bench/) repeats the example study's
// submission lines, each pass under a new (system id, attempt) pair so no line is a duplicate and
// the systems stay within the study's limits.max_systems (100): 33 ids per example system, and
// each further round of 33 passes moves the attempts up by 3 (past ≈ 950 MB the attempts pass
// 100 and the schema rejects those lines); then `prereg
// validate FILE` and `prereg ingest` (in a scratch copy of the example study) run in-process
// through the CLI, each timed for wall and process CPU. Prints the load average beside the
// figures: wall rates on a loaded machine are low, CPU rates much less so.
//
//   npm run bench:ingest [-- --megabytes 200] [--dir work/bench]
import { cpSync, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { main } from '../pipeline/cli.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { megabytes: { type: 'string', default: '200' }, dir: { type: 'string', default: join(ROOT, 'work/bench') } } });
const target = Number(values.megabytes) * 1e6;
// v2: ids and attempts as above (the first version named a new system on every pass).
const file = join(values.dir, `submissions-${values.megabytes}MB.v2.jsonl`);
const IDS_PER_SYSTEM = 33;

async function generate(): Promise<void> {
  if (existsSync(file)) return;
  mkdirSync(values.dir, { recursive: true });
  const lines = ['sys-honest', 'sys-tampered', 'sys-truncated'].flatMap((s) =>
    readFileSync(join(ROOT, 'inputs/submissions', `${s}.jsonl`), 'utf8').trim().split('\n').map((l) => ({ system: s, line: l })),
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

async function timed(args: string[]): Promise<{ wall: number; cpu: number; code: number; out: string }> {
  let out = '';
  const cpu = process.cpuUsage();
  const start = performance.now();
  const code = await main(args, { stdout: (t) => void (out += t), stderr: () => {}, env: { CI: 'true' }, isTTY: false });
  const used = process.cpuUsage(cpu);
  return { wall: (performance.now() - start) / 1000, cpu: (used.user + used.system) / 1e6, code, out };
}

await generate();
const megabytes = statSync(file).size / 1e6;
const load = () => loadavg()[0]!.toFixed(2);
const rate = (t: { wall: number; cpu: number }) => `${(megabytes / t.wall).toFixed(1)} MB/s wall, ${(megabytes / t.cpu).toFixed(1)} MB/s of CPU (${t.wall.toFixed(1)} s wall, ${t.cpu.toFixed(1)} s CPU)`;

const validate = await timed(['validate', file, '--root', ROOT, '--json']);
// Exit 1: some lines would be rejected, as the example's tampered submissions are meant to be.
if (validate.code !== 0 && validate.code !== 1) throw new Error(`bench: validate exited ${validate.code}: ${validate.out.slice(0, 400)}`);
console.log(`validate, ${megabytes.toFixed(0)} MB: ${rate(validate)} (target >= 50 MB/s; load ${load()})`);

const study = join(values.dir, 'ingest-study');
rmSync(study, { recursive: true, force: true });
for (const dir of ['corpus', 'preregistration', 'inputs']) cpSync(join(ROOT, dir), join(study, dir), { recursive: true });
rmSync(join(study, 'inputs/submissions'), { recursive: true });
mkdirSync(join(study, 'inputs/submissions'));
cpSync(file, join(study, 'inputs/submissions/bench.jsonl'));
const ingest = await timed(['ingest', '--root', study, '--json']);
if (ingest.code !== 0) throw new Error(`bench: ingest exited ${ingest.code}: ${ingest.out.slice(0, 400)}`);
console.log(`ingest, ${megabytes.toFixed(0)} MB: ${rate(ingest)} (target >= 50 MB/s; load ${load()})`);
rmSync(study, { recursive: true, force: true });
console.log(JSON.stringify({
  megabytes: Number(megabytes.toFixed(1)),
  validate_mb_per_s: Number((megabytes / validate.wall).toFixed(1)),
  validate_cpu_mb_per_s: Number((megabytes / validate.cpu).toFixed(1)),
  ingest_mb_per_s: Number((megabytes / ingest.wall).toFixed(1)),
  ingest_cpu_mb_per_s: Number((megabytes / ingest.cpu).toFixed(1)),
  load: Number(load()),
}));
