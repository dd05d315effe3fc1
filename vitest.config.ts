import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real OpenSSL, DuckDB files and TSAs make some tests take seconds; none asserts on time.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Vitest runs cores − 1 files at once by default: one at a time on these two-core machines,
    // with the other core idle but for the CLI processes tests spawn. Measured on a clean clone:
    // .ci/run took ≈ 26 min with one worker (172 files); two keep it well under its 30 minutes.
    maxWorkers: 2,
    // Spawned `node bin/prereg.mjs` runs dist/: rebuild it when the sources changed.
    // The example's working copy (unsealed, re-frozen) that copyExampleStudy copies.
    globalSetup: ['test/support/build-dist.ts', 'test/support/example-working-copy.ts'],
    // GitHub's workflow parser imports its JSON schema without an import attribute, which Node 20
    // refuses when vitest leaves the package to Node: vite transforms it instead.
    server: { deps: { inline: ['@actions/workflow-parser'] } },
  },
});
