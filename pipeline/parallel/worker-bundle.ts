// From the TypeScript sources (tests, bench, scripts: prereg itself runs compiled, see pool.ts),
// worker threads start from one bundled ES module per worker module, built by esbuild when a pool
// is first made. Loading the TypeScript sources through tsx instead made every thread transpile
// and resolve ~60 modules through tsx's loader thread: 2.1 s of CPU and 1.1 s before the first
// proof for two verify workers, against 0.5 s and 0.4 s bundled (a verify run of 50,000 proofs
// takes ≈ 10 s here). The bundle is written under the OS temporary directory (a directory per
// user), named by the SHA-256 of its text, so concurrent runs share it and a changed source gets
// a new one.
import { build, type Plugin } from 'esbuild';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const LOOP = fileURLToPath(new URL('./worker-loop.ts', import.meta.url));
const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Our sources resolve files next to themselves with `new URL(rel, import.meta.url)` (schemas, SQL):
 * in a bundle import.meta.url would be the bundle's, so each file's own URL is written in.
 */
const keepOwnUrls: Plugin = {
  name: 'keep-own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?ts$/ }, (args) => {
      if (!args.path.startsWith(PROJECT_ROOT) || args.path.includes('/node_modules/')) return undefined;
      const text = readFileSync(args.path, 'utf8').replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href));
      return { contents: text, loader: 'ts' };
    });
  },
};

const bundles = new Map<string, Promise<URL>>();

/** The bundled entry of a worker module (one exporting `createHandler(init)`), built once per process. */
export function workerBundle(module: URL): Promise<URL> {
  let bundle = bundles.get(module.href);
  if (!bundle) {
    bundle = buildBundle(module);
    bundles.set(module.href, bundle);
  }
  return bundle;
}

async function buildBundle(module: URL): Promise<URL> {
  const entry = `import { serveBatches } from ${JSON.stringify(LOOP)};
import { createHandler } from ${JSON.stringify(fileURLToPath(module))};
await serveBatches(createHandler);`;
  const result = await build({
    stdin: { contents: entry, resolveDir: PROJECT_ROOT, loader: 'ts', sourcefile: 'worker-entry.ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    plugins: [keepOwnUrls],
    // Bundled CommonJS dependencies (ajv, pkijs) call require() for Node's built-ins.
    banner: { js: "import { createRequire as __prereg_createRequire } from 'node:module'; const require = __prereg_createRequire(import.meta.url);" },
  });
  return pathToFileURL(storeBundle(result.outputFiles[0]!.text, BUNDLE_DIR));
}

// One directory per user: in a shared /tmp another user's directory is not writable.
const BUNDLE_DIR = join(tmpdir(), `prereg-workers-${process.getuid?.() ?? 'user'}`);

/** Bundles (and leftover temporaries) unused for this long are removed when another is stored. */
export const BUNDLE_MAX_IDLE_MS = 7 * 24 * 3600 * 1000;

/**
 * Writes a bundle under the SHA-256 of its text (atomically: temporary name, then rename) or, when
 * it is there already, marks it used (mtime). Every source edit makes a new bundle, so bundles
 * nobody used for BUNDLE_MAX_IDLE_MS are removed; one in use is touched at each start, never that old.
 */
export function storeBundle(text: string, dir: string, now = Date.now()): string {
  const path = join(dir, `${createHash('sha256').update(text).digest('hex').slice(0, 24)}.mjs`);
  if (existsSync(path)) {
    try {
      utimesSync(path, now / 1000, now / 1000);
    } catch {
      // not ours to touch: it is still the right bundle
    }
    return path;
  }
  mkdirSync(dir, { recursive: true });
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
  for (const name of readdirSync(dir)) {
    const old = join(dir, name);
    try {
      if (/\.mjs(\.[0-9a-f]{12}\.tmp)?$/.test(name) && now - statSync(old).mtimeMs > BUNDLE_MAX_IDLE_MS) rmSync(old, { force: true });
    } catch {
      // removed meanwhile by another run
    }
  }
  return path;
}
