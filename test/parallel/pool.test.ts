// The worker pool with real worker threads started from esbuild bundles (worker-bundle.ts).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withoutTypeScriptLoader, WorkerPool } from '../../pipeline/parallel/pool.ts';
import { BUNDLE_MAX_IDLE_MS, storeBundle } from '../../pipeline/parallel/worker-bundle.ts';

const fixture = (name: string) => new URL(`./fixtures/${name}.ts`, import.meta.url);

describe('WorkerPool', () => {
  it('maps batches on every thread and hands results back in source order', async () => {
    const pool = new WorkerPool<{ factor: number }, number, string>({ module: fixture('echo-worker'), init: { factor: 3 }, threads: 2 });
    try {
      const source = async function* () {
        for (let i = 0; i < 40; i += 4) yield [i, i + 1, i + 2, i + 3];
      };
      const seen: string[] = [];
      await pool.mapOrdered(
        source(),
        (n) => n,
        (results, items) => {
          expect(results).toHaveLength(items.length);
          seen.push(...results);
        },
      );
      // The worker read a file next to its own source: import.meta.url survived bundling.
      expect(seen).toEqual(Array.from({ length: 40 }, (_, i) => `${i * 3} read next to the source`));
    } finally {
      await pool.close();
    }
  });

  it('with a weight, keeps at most that much in flight (a heavier batch goes alone), results in order', async () => {
    const pool = new WorkerPool<{ factor: number }, number, string>({ module: fixture('echo-worker'), init: { factor: 1 }, threads: 2 });
    try {
      const weights = [1, 2, 3, 10, 1, 1, 4, 2, 2];
      const source = async function* () {
        for (const w of weights) yield [w];
      };
      let inFlight = 0;
      const atPost: number[] = [];
      const seen: string[] = [];
      await pool.mapOrdered(
        source(),
        (w) => {
          atPost.push(inFlight); // the weight already in flight when this batch is posted
          inFlight += w;
          return w;
        },
        (results, [w]) => {
          inFlight -= w!;
          seen.push(...results);
        },
        5,
        ([w]) => w!,
      );
      expect(seen).toEqual(weights.map((w) => `${w} read next to the source`));
      weights.forEach((w, i) => {
        expect(w > 5 ? atPost[i] : atPost[i]! + w, `batch ${i}`).toBeLessThanOrEqual(w > 5 ? 0 : 5);
      });
      expect(Math.max(...atPost)).toBeGreaterThan(0); // batches did overlap
    } finally {
      await pool.close();
    }
  });

  it('a handler that throws rejects that batch with its message; the pool keeps working', async () => {
    const pool = new WorkerPool<{ factor: number }, number, string>({ module: fixture('echo-worker'), init: { factor: 1 }, threads: 1 });
    try {
      await expect(pool.run([1, -2])).rejects.toThrow('echo-worker: negative input -2');
      expect(await pool.run([5])).toEqual(['5 read next to the source']);
    } finally {
      await pool.close();
    }
  });

  it('a worker whose handler cannot be built fails every run', async () => {
    const pool = new WorkerPool<null, number, number>({ module: fixture('failing-worker'), init: null, threads: 1 });
    try {
      await expect(pool.run([1])).rejects.toThrow('failing-worker: no handler today');
    } finally {
      await pool.close();
    }
  });

  it('a worker module that cannot be bundled fails every run, naming what is missing', async () => {
    const pool = new WorkerPool<null, number, number>({ module: fixture('unbundlable-worker'), init: null, threads: 1 });
    try {
      await expect(pool.run([1])).rejects.toThrow(/no-such-module/);
    } finally {
      await pool.close();
    }
  });
});

describe('withoutTypeScriptLoader', () => {
  it('drops the flags npx tsx and node --import tsx add, and keeps every other flag', () => {
    expect(
      withoutTypeScriptLoader([
        '--require',
        '/p/node_modules/tsx/dist/preflight.cjs',
        '--import',
        'file:///p/node_modules/tsx/dist/loader.mjs',
        '--import',
        'tsx',
        '--import=tsx/esm',
        '--max-old-space-size=4096',
        '--import',
        './my-hooks.mjs',
        '--enable-source-maps',
      ]),
    ).toEqual(['--max-old-space-size=4096', '--import', './my-hooks.mjs', '--enable-source-maps']);
  });
});

describe('storeBundle', () => {
  it('writes a bundle once under its digest, touches it when reused, and removes bundles idle for a week', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prereg-bundles-'));
    try {
      const now = Date.now();
      const week = BUNDLE_MAX_IDLE_MS;
      const stale = join(dir, 'aaaaaaaaaaaaaaaaaaaaaaaa.mjs');
      const staleTemp = join(dir, 'bbbbbbbbbbbbbbbbbbbbbbbb.mjs.0123456789ab.tmp');
      const recent = join(dir, 'cccccccccccccccccccccccc.mjs');
      const other = join(dir, 'notes.txt');
      for (const f of [stale, staleTemp, recent, other]) writeFileSync(f, 'x');
      for (const f of [stale, staleTemp, other]) utimesSync(f, (now - week - 60_000) / 1000, (now - week - 60_000) / 1000);
      utimesSync(recent, (now - week + 60_000) / 1000, (now - week + 60_000) / 1000);

      const path = storeBundle('export {};\n', dir, now);
      expect(readFileSync(path, 'utf8')).toBe('export {};\n');
      expect(readdirSync(dir).sort()).toEqual([path.split('/').at(-1), 'cccccccccccccccccccccccc.mjs', 'notes.txt'].sort());

      // Reused later: the same path, its mtime moved on, so a long-running study never loses it.
      utimesSync(path, (now - week) / 1000, (now - week) / 1000);
      expect(storeBundle('export {};\n', dir, now + 1000)).toBe(path);
      expect(statSync(path).mtimeMs).toBeGreaterThan(now);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
