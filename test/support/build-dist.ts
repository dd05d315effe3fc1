// vitest global setup: tests that start `node bin/prereg.mjs` run the compiled CLI, so dist/ is
// rebuilt first when any source under pipeline/ is newer than it.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL('../../scripts/build.mjs', import.meta.url)), '--if-stale'], { stdio: 'inherit' });
}
