// Worker threads start from one bundled ES module per worker module (a module named
// `*-worker.ts` exporting `createHandler(init)`), built by esbuild:
// - for the compiled CLI, at build time (scripts/build.mjs), from dist/'s compiled files, written
//   beside them as `<name>-worker.bundle.js`. A worker importing the per-file dist/ instead spent
//   350 ms of CPU loading its modules, most of it Node reading pkijs (800 KB of CommonJS) for its
//   named exports; its bundle loads in 140 ms (docs/performance.md);
// - from the TypeScript sources (tests, bench, scripts), when a pool is first made, under the OS
//   temporary directory (a directory per user), named by the SHA-256 of its text, so concurrent
//   runs share it and a changed source gets a new one. Loading the sources through tsx instead
//   made every thread transpile and resolve ~60 modules through tsx's loader thread: 2.1 s of CPU
//   and 1.1 s before the first proof for two verify workers, against 0.5 s and 0.4 s bundled.
import { build, type BuildOptions, type Plugin } from 'esbuild';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compiledWorkerBundle } from '../running-code.ts';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface WorkerBundleOptions {
  /** The worker module's file (.ts source or compiled .js). */
  module: string;
  /** worker-loop's file, in the same form. */
  loop: string;
  /** The files whose `import.meta.url` is kept: every file under this directory but node_modules. */
  ownFiles: string;
  /** The JavaScript expression a file's `import.meta.url` becomes in the bundle. */
  ownUrl: (file: string) => string;
}

/**
 * Our sources resolve files next to themselves with `new URL(rel, import.meta.url)` (SQL files,
 * package.json): in a bundle import.meta.url would be the bundle's, so each file's own is written in.
 */
function keepOwnUrls(options: WorkerBundleOptions): Plugin {
  return {
    name: 'keep-own-import-meta-url',
    setup(b) {
      b.onLoad({ filter: /\.[cm]?[jt]s$/ }, (args) => {
        if (!args.path.startsWith(options.ownFiles) || args.path.includes('/node_modules/')) return undefined;
        const text = readFileSync(args.path, 'utf8').replaceAll('import.meta.url', options.ownUrl(args.path));
        return { contents: text, loader: args.path.endsWith('.ts') ? 'ts' : 'js' };
      });
    },
  };
}

/** How every bundle is built (worker bundles here, dist/vendor/pki.js in scripts/build.mjs). */
export const NODE_BUNDLE = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // ES module builds first: pkijs's is 200 KB smaller than its CommonJS one, and faster to build.
  mainFields: ['module', 'main'],
} satisfies BuildOptions;

/** The text of one worker module's bundle: worker-loop serving the module's handler, every dependency inlined. */
export async function workerBundleText(options: WorkerBundleOptions): Promise<string> {
  const entry = `import { serveBatches } from ${JSON.stringify(options.loop)};
import { createHandler } from ${JSON.stringify(options.module)};
await serveBatches(createHandler);`;
  const result = await build({
    stdin: { contents: entry, resolveDir: dirname(options.module), loader: 'js', sourcefile: 'worker-entry.js' },
    ...NODE_BUNDLE,
    write: false,
    logLevel: 'silent',
    plugins: [keepOwnUrls(options)],
    // Bundled CommonJS dependencies (asn1js's helpers) call require() for Node's built-ins.
    banner: {
      js: "import { createRequire as __prereg_createRequire } from 'node:module'; const require = __prereg_createRequire(import.meta.url);",
    },
  });
  return result.outputFiles[0]!.text;
}

/** Bundles a compiled worker module (scripts/build.mjs): each own file's URL relative to the bundle, so dist/ can move. */
export async function writeCompiledWorkerBundle(compiledModule: string, distRoot: string): Promise<string> {
  const out = compiledWorkerBundle(compiledModule);
  const text = await workerBundleText({
    module: compiledModule,
    loop: join(distRoot, 'parallel', 'worker-loop.js'),
    ownFiles: distRoot,
    ownUrl: (file) => `new URL(${JSON.stringify(relative(dirname(out), file).split('\\').join('/'))}, import.meta.url).href`,
  });
  writeFileSync(out, text);
  return out;
}

const bundles = new Map<string, Promise<URL>>();

/** The bundled entry of a worker module's TypeScript source, built once per process. */
export function workerBundle(module: URL): Promise<URL> {
  let bundle = bundles.get(module.href);
  if (!bundle) {
    bundle = workerBundleText({
      module: fileURLToPath(module),
      loop: fileURLToPath(new URL('./worker-loop.ts', import.meta.url)),
      ownFiles: PROJECT_ROOT,
      ownUrl: (file) => JSON.stringify(pathToFileURL(file).href),
    }).then((text) => pathToFileURL(storeBundle(text, BUNDLE_DIR)));
    bundles.set(module.href, bundle);
  }
  return bundle;
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
