// Commands load only what they use (pipeline/stages/registry.ts): the compiled CLI, run as a user
// runs it, with every module it loads recorded (test/support/record-loads.mjs).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../support/cli.ts';

const dir = mkdtempSync(join(tmpdir(), 'prereg-loads-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
/** The packages (node_modules/<name>) and prereg modules a CLI run loaded, and its exit code. */
function loadsOf(args: string[]): { code: number | null; packages: string[]; modules: string[]; stdout: string } {
  const record = join(dir, `loads-${runs++}.txt`);
  const r = spawnSync(process.execPath, ['--import', './test/support/record-loads.mjs', 'bin/prereg.mjs', ...args], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    env: { ...process.env, PREREG_RECORD_LOADS: record },
  });
  const urls = readFileSync(record, 'utf8').split('\n').filter(Boolean);
  const packages = new Set(urls.flatMap((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1] ?? []));
  return { code: r.status, packages: [...packages].sort(), modules: urls.filter((u) => u.includes('/dist/')), stdout: r.stdout };
}

describe('the compiled CLI loads only what a command uses', () => {
  it('`prereg --help` loads no package and no command module', () => {
    const r = loadsOf(['--help']);
    expect(r.code).toBe(0);
    expect(r.packages).toEqual([]);
    expect(r.modules.some((m) => (m.includes('/dist/stages/') || m.includes('/dist/commands/')) && !m.endsWith('/registry.js'))).toBe(
      false,
    );
  });

  it('`prereg explain` loads no package', () => {
    const r = loadsOf(['explain', 'PROOF_SIGNATURE_INVALID']);
    expect(r.code).toBe(0);
    expect(r.packages).toEqual([]);
  });

  it('`prereg mcp --help` loads no package: the MCP SDK only when the server runs', () => {
    const r = loadsOf(['mcp', '--help']);
    expect(r.code).toBe(0);
    expect(r.packages).toEqual([]);
  });

  it('`prereg docs` loads no package', () => {
    const r = loadsOf(['docs', 'intake', '--print']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# /);
    expect(r.packages).toEqual([]);
  });

  it('`prereg verify FILE` loads neither DuckDB nor esbuild, and it ran from dist/', () => {
    const r = loadsOf([
      'verify',
      'test/fixtures/real/arkforge-production/proof_2026_07.json',
      '--root',
      dir,
      '--trust',
      'preregistration/trust',
    ]);
    expect(r.code).toBe(1); // the example's trust policy does not pin ArkForge's real key
    expect(r.modules.some((m) => m.endsWith('/dist/verify/file-verify.js'))).toBe(true);
    expect(r.packages.filter((p) => p.startsWith('@duckdb/') || p === 'esbuild' || p === 'tsx')).toEqual([]);
    // pkijs and asn1js come from the build's bundle of their ES module builds (vendor/pki.js), not
    // from the CommonJS files Node would scan for named exports.
    expect(r.modules.some((m) => m.endsWith('/dist/vendor/pki.js'))).toBe(true);
    expect(r.packages.filter((p) => p === 'pkijs' || p === 'asn1js' || p === 'ajv')).toEqual([]);
  });

  /** `prereg verify DIR --json` of `count` copies of one evidence item: every file VERIFIED, in order, and the loads. */
  function verifyCopies(name: string, count: number) {
    const files = join(dir, name);
    mkdirSync(files);
    const item = JSON.parse(readFileSync(join(PROJECT_ROOT, 'inputs/submissions/sys-honest.jsonl'), 'utf8').split('\n')[0]!).evidence[0];
    const names = Array.from({ length: count }, (_, i) => `e${String(i).padStart(3, '0')}.json`);
    for (const n of names) writeFileSync(join(files, n), JSON.stringify(item));
    const r = loadsOf(['verify', files, '--json']);
    const lines = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { file: string; status: string });
    expect([r.code, lines.map((l) => l.file.slice(files.length + 1))]).toEqual([0, names]);
    expect(lines.every((l) => l.status === 'VERIFIED')).toBe(true);
    return { ...r, workers: r.modules.filter((m) => /-worker(\.bundle)?\.js$/.test(m)) };
  }

  it('`prereg verify DIR` of 70 files verifies them on its own thread, from dist/, and prints every file in order', () => {
    const r = verifyCopies('many', 70);
    // No worker thread to start and warm below 256 files: the signatures go to libuv's pool (docs/performance.md).
    expect(r.workers).toEqual([]);
    expect(r.modules.some((m) => m.endsWith('/dist/verify/file-verify.js'))).toBe(true);
    expect(r.packages.filter((p) => p.startsWith('@duckdb/') || p === 'esbuild' || p === 'tsx')).toEqual([]);
  });

  it('`prereg verify DIR` of 300 files checks their signatures on threads started from the signature bundle, nothing else', () => {
    const r = verifyCopies('more', 300);
    expect(r.workers.length).toBeGreaterThanOrEqual(1);
    expect(r.workers.every((m) => m.endsWith('/dist/parallel/signature-worker.bundle.js'))).toBe(true);
  });

  it('a study stage does load DuckDB (the recorder is not blind)', () => {
    const r = loadsOf(['ingest', '--root', dir]);
    expect(r.packages).toContain('@duckdb/node-api');
  });
});
