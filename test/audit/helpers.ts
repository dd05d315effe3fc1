// Helpers of the audit tests: an emitted run of the example study, copies of it, one-byte flips.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { expect } from 'vitest';
import type { AuditReport } from '../../pipeline/audit/rails.ts';
import { auditorFlags } from '../support/auditor.ts';
import { copyExampleStudy, runCli, TEST_OPERATOR_ARGS } from '../support/cli.ts';

export interface EmittedStudy {
  root: string;
  /** outputs/<run_id>/ written by `prereg run` with the TEST-ONLY keys. */
  dir: string;
  cleanup: () => void;
}

/** A scratch copy of the example study, run end to end with the TEST-ONLY operator keys. */
export async function emittedStudy(): Promise<EmittedStudy> {
  const study = copyExampleStudy();
  const r = await runCli(['run', '--root', study.root, ...TEST_OPERATOR_ARGS, '--json']);
  expect(r.code, r.stdout + r.stderr).toBe(0);
  return { root: study.root, dir: r.json.dir as string, cleanup: study.cleanup };
}

/** A scratch directory removed by the returned cleanup. */
export function scratchDir(prefix: string): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Flips one bit of one byte of `file`: at `offset`, or at the `index`-th byte of the first
 * occurrence of `needle` (so a test can keep the file meaningful, e.g. a letter inside a string).
 * Returns the offset flipped.
 */
export function flipByte(file: string, at: number | { needle: string; index?: number; after?: string }): number {
  const bytes = readFileSync(file);
  let offset: number;
  if (typeof at === 'number') {
    offset = at;
  } else {
    const from = at.after === undefined ? 0 : bytes.indexOf(at.after);
    expect(from, `${at.after} in ${file}`).toBeGreaterThanOrEqual(0);
    const found = bytes.indexOf(at.needle, from);
    expect(found, `${at.needle} in ${file}`).toBeGreaterThanOrEqual(0);
    offset = found + (at.index ?? 0);
  }
  expect(offset).toBeLessThan(bytes.length);
  bytes[offset] = bytes[offset]! ^ 0x01;
  writeFileSync(file, bytes);
  return offset;
}

/**
 * `prereg audit DIR --root ROOT --json` with the auditor's own roots, keys and expected freeze
 * digest (default: the example's, test/support/auditor.ts), returning the exit code and the report.
 */
export async function audit(
  dir: string,
  root: string,
  flags: readonly string[] = auditorFlags(),
): Promise<{ code: number; report: AuditReport; stderr: string }> {
  const r = await runCli(['audit', dir, '--root', root, ...flags, '--json']);
  return { code: r.code, report: r.json as AuditReport, stderr: r.stderr };
}

/** The failed rails' names, in report order. */
export function failedRails(report: AuditReport): string[] {
  return report.rails.filter((r) => !r.ok).map((r) => r.name);
}

/** Every file under `dir` with its bytes, by relative path. */
export function treeOf(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else out.set(relative(dir, path), readFileSync(path));
    }
  };
  walk(dir);
  return out;
}

export function copyTree(from: string, to: string): string {
  cpSync(from, to, { recursive: true });
  return to;
}
