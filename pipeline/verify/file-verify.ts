// `prereg verify FILE|DIR…`: proofs, evidence items, AER-1 timelines and single receipts outside
// a study, with the same code and reason codes as the pipeline (SPEC §9), on the stage's engine:
// worker threads fed batches of paths (each file is read, parsed and verified in its worker,
// verify/files-worker.ts), results handed on in the order given as batches complete.
// Directories are walked in sorted order for *.json and *.jsonl (submission) files.
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildVerifyContext, type VerifyContextInputs } from '../evidence/task/index.ts';
import { WorkerPool } from '../parallel/pool.ts';
import { PreregError } from '../reasons.ts';
import { verifyFile, type FileVerification } from './file-task.ts';
import { shown } from '../text/display.ts';

export { fileVerified, kindOf, type FileKind, type FileVerification } from './file-task.ts';

const WORKER = new URL('./files-worker.ts', import.meta.url);
/** Below this many files, starting worker threads costs more than it saves. */
const POOL_THRESHOLD = 64;
/** Paths per batch posted to a worker: enough to amortise a message, small enough to stream. */
const FILES_PER_BATCH = 64;

export function expandPaths(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) throw new PreregError('FILE_NOT_FOUND', `${shown(p)} does not exist`, { path: p });
    if (st.isDirectory()) {
      // The entries' types come with the listing (no lstat per file; a symbolic link is not a directory).
      const entries = readdirSync(p, { withFileTypes: true }).sort((a, b) => Buffer.compare(Buffer.from(a.name), Buffer.from(b.name)));
      out.push(...expandPaths(entries.filter((e) => e.name.endsWith('.json') || e.name.endsWith('.jsonl') || e.isDirectory()).map((e) => join(p, e.name))));
    } else {
      out.push(p);
    }
  }
  return out;
}

/**
 * Verifies every file, calling `onResult` for each in the order given (as soon as it and every
 * file before it are done), and returns all results in that order.
 */
export async function verifyFiles(files: readonly string[], inputs: VerifyContextInputs, onResult: (r: FileVerification) => void = () => {}): Promise<FileVerification[]> {
  const results: FileVerification[] = [];
  const take = (r: FileVerification) => {
    results.push(r);
    onResult(r);
  };
  if (files.length < POOL_THRESHOLD) {
    const ctx = buildVerifyContext(inputs);
    for (const file of files) (await verifyFile(file, ctx)).forEach(take);
    return results;
  }
  const pool = new WorkerPool<VerifyContextInputs, string, FileVerification[]>({ module: WORKER, init: inputs });
  try {
    const batches = async function* () {
      for (let i = 0; i < files.length; i += FILES_PER_BATCH) yield files.slice(i, i + FILES_PER_BATCH);
    };
    await pool.mapOrdered(batches(), (file) => file, (batch) => batch.forEach((perFile) => perFile.forEach(take)));
  } finally {
    await pool.close();
  }
  return results;
}
