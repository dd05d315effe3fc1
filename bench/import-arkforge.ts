// npm run bench:import-arkforge: the wall time of `prereg trust import-arkforge` on a generated
// published_keys.json of N Ed25519 proof keys (default 2,500, 7,500 and 20,000), pinned into a
// scratch copy of the example study's trust directory, each size in its own process of the
// compiled CLI under /usr/bin/time (wall, CPU, peak memory, with the load average beside). The
// import is linear in the keys (docs/trust.md); this measures it, no test asserts a time.
//
//   npm run bench:import-arkforge [-- --keys 2500,7500,20000] [--dir work/bench]
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { timeCli } from './timed-cli.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const { values } = parseArgs({
  options: {
    keys: { type: 'string', default: '2500,7500,20000' },
    dir: { type: 'string', default: join(ROOT, 'work/bench/import-arkforge') },
  },
});
const sizes = values.keys.split(',').map(Number);
if (!sizes.every((n) => Number.isInteger(n) && n >= 1))
  throw new Error(`bench: --keys is a comma-separated list of whole numbers, got ${values.keys}`);

/** A published key history of `n` distinct Ed25519 keys, each with its own window start. */
function history(n: number): string {
  const keys = [];
  for (let i = 0; i < n; i++) {
    const jwk = generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' });
    const day = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    keys.push({ kid: `key-${i}`, type: 'Ed25519', public: `ed25519:${jwk.x}`, valid_from: day, retired_at: null });
  }
  return `${JSON.stringify({ keys, rekor_keys: [] })}\n`;
}

mkdirSync(values.dir, { recursive: true });
console.log(`import-arkforge: ${sizes.join(', ')} keys (load average shown beside each figure)`);
for (const n of sizes) {
  const trust = join(values.dir, `trust-${n}`);
  rmSync(trust, { recursive: true, force: true });
  cpSync(join(ROOT, 'preregistration/trust'), trust, { recursive: true });
  const file = join(values.dir, `published_keys-${n}.json`);
  writeFileSync(file, history(n));
  const run = timeCli(['trust', 'import-arkforge', file, '--trust', trust, '--json'], {
    timeFile: join(values.dir, 'time.txt'),
    stderr: 'pipe',
  });
  if (run.status !== 0) throw new Error(`bench: import of ${n} keys exited ${run.status}: ${run.stdout}${run.stderr}`);
  const mb = statSync(file).size / 1e6;
  console.log(
    `  ${String(n).padStart(6)} keys (${mb.toFixed(1)} MB): wall ${run.wall.toFixed(2)} s, cpu ${run.cpu.toFixed(2)} s, peak ${run.peakMiB.toFixed(0)} MiB, load ${run.load.toFixed(1)}`,
  );
}
