#!/usr/bin/env node
// npm run bench:startup: the wall time a person waits for the compiled CLI, run directly
// (`node bin/prereg.mjs …`, no npx), as the median of several runs of each command, against the
// targets of the README (`prereg --help` ≤ 0.3 s, `check-anchors` on the example ≤ 1.0 s). Builds
// dist/ first if the sources changed. Prints the load average beside the figures: on a shared
// machine every wall time is inflated.
//
//   npm run bench:startup [-- --runs 7]
import { spawnSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({ options: { runs: { type: 'string', default: '7' } } });
const runs = Number(values.runs);

spawnSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });

const COMMANDS = [
  { args: ['--help'], target: 0.3 },
  { args: ['explain', 'PROOF_SIGNATURE_INVALID'], target: 0.3 },
  { args: ['check-anchors'], target: 1.0 },
];

const figures = {};
for (const { args, target } of COMMANDS) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const r = spawnSync(process.execPath, ['bin/prereg.mjs', ...args], { cwd: ROOT, stdio: 'ignore' });
    times.push((performance.now() - start) / 1000);
    if (r.status !== 0) throw new Error(`prereg ${args.join(' ')} exited ${r.status}`);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  figures[args[0]] = Number(median.toFixed(3));
  console.log(
    `prereg ${args.join(' ')}: median ${median.toFixed(3)} s of ${runs} (min ${times[0].toFixed(3)}, max ${times.at(-1).toFixed(3)}; target <= ${target} s; load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
}
console.log(JSON.stringify({ runs, load1: Number(loadavg()[0].toFixed(2)), ...figures }));
