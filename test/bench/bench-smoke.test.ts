// npm run bench must keep working (it is not run by CI otherwise): a tiny run, no timing asserted.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/cli.ts';

it('bench/verify.ts runs end to end on 200 items and prints every figure', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-bench-'));
  try {
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', 'bench/verify.ts', '--items', '200', '--seconds', '0.2', '--rounds', '1', '--dir', dir],
      {
        cwd: PROJECT_ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const figures = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>;
    expect(figures.items).toBe(200);
    for (const key of [
      'raw_ed25519_per_s',
      'two_thread_ed25519_per_s',
      'floor_per_s',
      'no_token_per_s',
      'ratio',
      'no_token_cpu_us_per_proof',
      'with_token_per_s',
      'with_token_cpu_us_per_proof',
      'batch_per_s',
      'batch_cpu_us_per_proof',
      'floor_ed25519_per_proof',
    ]) {
      expect(figures[key], key).toBeGreaterThan(0);
    }
    // prereg verify DIR and the reference peer, side by side, on three sets of files.
    const files = (
      figures as unknown as {
        files: Array<{ label: string; count: number; prereg: { wall: number }; peer: { wall: number }; ratio: number }>;
      }
    ).files;
    expect(files.map((f) => [f.label, f.count])).toEqual([
      ['100 items, no tokens', 100],
      ['100 items, no tokens', 100],
      ['100 items, one RFC 3161 token each', 100],
    ]);
    for (const f of files)
      expect(
        [f.prereg.wall, f.peer.wall, f.ratio].every((x) => x > 0),
        f.label,
      ).toBe(true);
    // prereg's CPU per item, in Ed25519 verifies measured in the same run; the no-token sets' target 1.5.
    expect(out.match(/prereg CPU \d+ µs per item = \d+\.\d\d Ed25519 verifies of \d+\.\d µs/g)).toHaveLength(3);
    expect(out.match(/Ed25519 verifies of \d+\.\d µs \(target <= 1\.5\)/g)).toHaveLength(2);
    expect(out).toContain('verify stage, 100 proofs without tokens');
    // 100 batch-anchored proofs are two batches (64 + 36): two tokens verified, not 100.
    expect([figures.batch_tokens_proofs, figures.batch_tokens_verified]).toEqual([100, 2]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

it('bench/verify.ts --only files prints one Ed25519 verify, prereg CPU per item in it, and by thread', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-bench-'));
  try {
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', 'bench/verify.ts', '--items', '200', '--seconds', '0.2', '--rounds', '1', '--dir', dir, '--only', 'files'],
      { cwd: PROJECT_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const figures = JSON.parse(out.trim().split('\n').at(-1)!) as {
      ed25519_cpu_us: number;
      files: Array<{ cpuTarget?: number; threads: { main: number; busiest: number[]; rest: number } | null }>;
    };
    expect(figures.ed25519_cpu_us).toBeGreaterThan(0);
    expect(figures.files.map((f) => f.cpuTarget)).toEqual([1.5, 1.5, undefined]);
    expect(out.match(/prereg CPU \d+ µs per item = \d+\.\d\d Ed25519 verifies/g)).toHaveLength(3);
    // prereg's CPU by thread, from one more run: the main thread verified every file.
    for (const f of figures.files) {
      expect(f.threads!.main).toBeGreaterThan(0);
      expect(f.threads!.busiest).toHaveLength(2);
    }
    expect(out.match(/by thread \(one more run\), µs per item: main \d+, the 2 busiest others/g)).toHaveLength(3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);

it('bench/startup.mjs times the compiled CLI and prints every figure', () => {
  const out = execFileSync(process.execPath, ['bench/startup.mjs', '--runs', '1'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const figures = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>;
  for (const key of ['--help', 'explain', 'check-anchors']) expect(figures[key], key).toBeGreaterThan(0);
}, 120_000);

it('bench/ingest.ts runs validate and ingest on a generated file and prints every figure', () => {
  const dir = mkdtempSync(join(tmpdir(), 'prereg-bench-ingest-'));
  try {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'bench/ingest.ts', '--megabytes', '1', '--dir', dir], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const figures = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, number>;
    for (const key of ['megabytes', 'validate_mb_per_s', 'validate_cpu_mb_per_s', 'ingest_mb_per_s', 'ingest_cpu_mb_per_s'])
      expect(figures[key], key).toBeGreaterThan(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 120_000);
