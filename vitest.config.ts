import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real OpenSSL, DuckDB files and TSAs make some tests take seconds; none asserts on time.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    // Spawned `node bin/prereg.mjs` runs dist/: rebuild it when the sources changed.
    // The example's working copy (unsealed, re-frozen) that copyExampleStudy copies.
    globalSetup: ['test/support/build-dist.ts', 'test/support/example-working-copy.ts'],
  },
});
