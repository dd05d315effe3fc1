#!/usr/bin/env node
// Entry point for `npx prereg`: the compiled CLI (dist/, built by `npm run build`, which `npm pack`
// runs as `prepack`). No TypeScript loader: start-up is what a person waits for.
let cli;
try {
  cli = await import('../dist/cli.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/cli.js')) throw err;
  process.stderr.write('prereg: INTERNAL_ERROR: dist/ is missing; run `npm run build` (after `npm ci`, in a checkout)\n');
  process.exit(5);
}
process.exitCode = await cli.main(process.argv.slice(2));
