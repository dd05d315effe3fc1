// Helpers of the ingest tests: valid submission lines, files written with their line offsets,
// a study copy with a freeze, and SQL over the store.
import { DuckDBInstance } from '@duckdb/node-api';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { copyExampleStudy, runCli } from '../support/cli.ts';

export interface SubmissionFields {
  format?: unknown;
  system_id?: unknown;
  item_id?: unknown;
  attempt?: unknown;
  answer?: unknown;
  evidence?: unknown;
  receipts?: unknown;
  [extra: string]: unknown;
}

/** A valid submission line (no newline) answering mp-001, with fields overridden. */
export function submissionLine(fields: SubmissionFields = {}): string {
  return JSON.stringify({
    format: 'prereg.submission/1',
    system_id: 'sys-a',
    item_id: 'mp-001',
    attempt: 1,
    answer: { text: "Selon l'article R2122-8, 40 000 € HT.", refused: false, truncated: false },
    evidence: [],
    ...fields,
  });
}

/** Lines joined by "\n" (each ends in one), with each line's byte offset. */
export function jsonl(lines: ReadonlyArray<string | Buffer>): { data: Buffer; offsets: number[] } {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let at = 0;
  for (const line of lines) {
    const b = typeof line === 'string' ? Buffer.from(line, 'utf8') : line;
    offsets.push(at);
    parts.push(b, Buffer.from('\n'));
    at += b.length + 1;
  }
  return { data: Buffer.concat(parts), offsets };
}

export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * A scratch copy of the example study, frozen (freeze.json made if the example has none yet), with
 * an empty inputs/submissions/.
 */
export async function frozenStudy(
  options: { maxLineBytes?: number; maxSystems?: number } = {},
): Promise<{ root: string; submissions: string; cleanup: () => void }> {
  const study = copyExampleStudy();
  const limits = {
    ...(options.maxLineBytes !== undefined ? { max_line_bytes: options.maxLineBytes } : {}),
    ...(options.maxSystems !== undefined ? { max_systems: options.maxSystems } : {}),
  };
  // The tests' lines come from systems of their own (sys-a, sys-b…) with any attempt: a study that
  // registers none, declaring so (binding none), and declares no protocol, so that no line is
  // SYSTEM_UNREGISTERED or ATTEMPT_OUT_OF_PROTOCOL; bounds are the study's (study.json limits).
  // Then refreeze.
  const path = join(study.root, 'preregistration/study.json');
  const { systems: _registered, protocol: _protocol, ...config } = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  writeFileSync(
    path,
    `${JSON.stringify({ ...config, binding: 'none', ...(Object.keys(limits).length > 0 ? { limits } : {}) }, null, 2)}\n`,
  );
  const r = await runCli(['freeze', '--root', study.root, '--replace', '--reason', 'test refreeze', '--json']);
  if (r.code !== 0) throw new Error(`freeze failed: ${r.stdout}${r.stderr}`);
  // The tests write the submissions they need: whatever the example ships is set aside.
  const submissions = join(study.root, 'inputs/submissions');
  rmSync(submissions, { recursive: true, force: true });
  mkdirSync(submissions);
  return { ...study, submissions };
}

/** Rows of a query over a DuckDB file, opened read-only, as JSON-friendly objects. */
export async function query(dbPath: string, sql: string): Promise<Record<string, unknown>[]> {
  const instance = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
  try {
    const c = await instance.connect();
    try {
      return (await c.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
    } finally {
      c.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

/** path → SHA-256 of every file under dir, with mtimes, to show a stage modified nothing. */
export function snapshotTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else out[relative(dir, p)] = `${sha256(readFileSync(p))} ${st.mtimeMs}`;
    }
  };
  walk(dir);
  return out;
}
