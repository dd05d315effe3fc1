// prereg runs compiled (dist/, what `prereg` runs) or from its TypeScript sources (tests, bench,
// scripts under tsx). Code that names one of its own modules by file — a worker to start, a source
// whose digest a stage records — names the .ts source; this gives the file that actually runs.
export const RUNS_COMPILED = import.meta.url.endsWith('.js');

/** `module` (a .ts source URL) as it runs: its compiled .js under dist/ when prereg runs compiled. */
export function runningModule(module: URL): URL {
  return RUNS_COMPILED ? new URL(module.href.replace(/\.ts$/, '.js')) : module;
}

/** Where scripts/build.mjs writes a compiled worker module's bundle (parallel/worker-bundle.ts): beside its .js. */
export function compiledWorkerBundle(compiledModule: string): string {
  return compiledModule.replace(/\.js$/, '.bundle.js');
}
