#!/usr/bin/env node
// npm run build (and `prepack`, so `npm pack` runs it): compiles pipeline/ into dist/ with tsc, one
// .js and one .d.ts per source, the same folders, so that `new URL(rel, import.meta.url)` finds
// the schemas, package.json and SQL files from dist/ as from pipeline/; the SQL files are copied
// beside their compiled modules. tsc rather than esbuild: it emits the declarations the package
// publishes in the same pass (esbuild emits none) and rewrites `.ts` import specifiers, and a
// per-file layout starts the CLI as fast as a bundle (docs/performance.md).
// Then every worker module (pipeline/**/*-worker.ts) is bundled with esbuild from its compiled
// .js into <name>-worker.bundle.js beside it (pipeline/parallel/worker-bundle.ts): a worker thread
// loading the per-file layout spent 350 ms of CPU in Node's loader, most of it on pkijs's CommonJS
// build, against 140 ms for the bundle.
//
// The build goes to dist.tmp-<pid> and replaces dist/ only when complete.
// --if-stale: do nothing when dist/ is newer than every file under pipeline/ (test setup).
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SOURCES = join(ROOT, 'pipeline');
const DIST = join(ROOT, 'dist');

function newestSource() {
  let newest = statSync(join(ROOT, 'tsconfig.build.json')).mtimeMs;
  for (const name of readdirSync(SOURCES, { recursive: true })) newest = Math.max(newest, statSync(join(SOURCES, String(name))).mtimeMs);
  return newest;
}

if (process.argv.includes('--if-stale') && existsSync(join(DIST, 'cli.js')) && statSync(join(DIST, 'cli.js')).mtimeMs >= newestSource())
  process.exit(0);

const tmp = `${DIST}.tmp-${process.pid}`;
rmSync(tmp, { recursive: true, force: true });
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', tmp], { stdio: 'inherit' });
if (compiled.status !== 0) {
  rmSync(tmp, { recursive: true, force: true });
  process.exit(compiled.status ?? 1);
}
for (const name of readdirSync(SOURCES, { recursive: true })) {
  if (String(name).endsWith('.sql')) cpSync(join(SOURCES, String(name)), join(tmp, String(name)));
}
// tsc rewrites `.ts` specifiers in the JavaScript only; a consumer's compiler needs them in the
// declarations too (without allowImportingTsExtensions it refuses `./x.ts`).
for (const name of readdirSync(tmp, { recursive: true })) {
  if (!String(name).endsWith('.d.ts')) continue;
  const path = join(tmp, String(name));
  writeFileSync(path, readFileSync(path, 'utf8').replace(/((?:from |import\()['"]\.{1,2}\/[^'"]*)\.ts(['"])/g, '$1.js$2'));
}
const { build } = await import('esbuild');
const { NODE_BUNDLE, writeCompiledWorkerBundle } = await import(pathToFileURL(join(tmp, 'parallel', 'worker-bundle.js')).href);
const vendor = join(tmp, 'vendor', 'pki.js');
await build({ ...NODE_BUNDLE, entryPoints: [vendor], outfile: vendor, allowOverwrite: true, logLevel: 'warning' });
for (const name of readdirSync(tmp, { recursive: true })) {
  if (String(name).endsWith('-worker.js')) await writeCompiledWorkerBundle(join(tmp, String(name)), tmp);
}
rmSync(DIST, { recursive: true, force: true });
renameSync(tmp, DIST);
