// `prereg verify FILE|DIR…`: proofs, evidence items, AER-1 timelines and single receipts outside
// a study, with the same code and reason codes as the pipeline (SPEC §9). One JavaScript thread
// reads, parses and checks the files, many at once, and hands each signature's arithmetic to
// other threads (evidence/signature-check.ts): libuv's pool for a few files, one signature thread
// per core fed in batches from 256 on. Every core works, and only one isolate runs the
// verification code to warm: two verifying worker threads cost ≈ 0.45 s of CPU each before they
// ran warm, more than the Ed25519 verifies of 4,000 files (docs/performance.md). Results are
// handed on in the order given. Directories are walked in sorted order for *.json and *.jsonl
// (submission) files.
import { lstatSync, readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { buildVerifyContext, type VerifyContext, type VerifyContextInputs } from '../evidence/task/index.ts';
import { checkOnSignatureThreads, checkOnThreadPool } from '../evidence/signature-check.ts';
import { WorkerPool } from '../parallel/pool.ts';
import type { SignatureBatch } from '../evidence/signature-check.ts';
import { sortByCodePoint } from '../formats/canonical-json.ts';
import { PreregError } from '../reasons.ts';
import { verifyFile, type FileVerification } from './file-task.ts';
import { shown } from '../text/display.ts';

export { fileVerified, kindOf, type FileKind, type FileVerification } from './file-task.ts';

/** Files in progress at once: enough to keep the signature threads busy while this thread parses the next batches. */
const IN_FLIGHT = 256;

export function expandPaths(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const st = lstatSync(p, { throwIfNoEntry: false });
    if (!st) throw new PreregError('FILE_NOT_FOUND', `${shown(p)} does not exist`, { path: p });
    if (st.isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

/** A directory's *.json and *.jsonl files and subdirectories, by name in code-point order (the UTF-8 bytes'). */
function walk(dir: string, out: string[]): void {
  // The entries' types come with the listing (no lstat per file; a symbolic link is not a directory).
  const entries = new Map<string, Dirent>();
  for (const e of readdirSync(dir, { withFileTypes: true })) entries.set(e.name, e);
  for (const name of sortByCodePoint([...entries.keys()])) {
    const path = join(dir, name);
    if (entries.get(name)!.isDirectory()) walk(path, out);
    else if (name.endsWith('.json') || name.endsWith('.jsonl')) out.push(path);
  }
}

/** From this many files on, signature threads are worth their start (≈ 30 ms of CPU each); below, libuv's pool. */
const THREADS_FROM = 256;

const SIGNATURE_WORKER = new URL('../parallel/signature-worker.ts', import.meta.url);

/**
 * Verifies every file, calling `onResult` for each in the order given (as soon as it and every
 * file before it are done), and returns all results in that order. From THREADS_FROM files on,
 * the signatures are checked on one thread per core (parallel/signature-worker.ts), fed in
 * batches; they need no trust material, so they boot while this thread parses the first files.
 */
export async function verifyFiles(
  files: readonly string[],
  inputs: VerifyContextInputs,
  onResult: (r: FileVerification) => void = () => {},
): Promise<FileVerification[]> {
  const threads =
    files.length >= THREADS_FROM
      ? new WorkerPool<undefined, SignatureBatch, boolean[]>({ module: SIGNATURE_WORKER, init: undefined })
      : null;
  try {
    return await verifyInOrder(files, buildVerifyContext(inputs, threads ? checkOnSignatureThreads(threads) : checkOnThreadPool), onResult);
  } finally {
    await threads?.close();
  }
}

async function verifyInOrder(
  files: readonly string[],
  ctx: VerifyContext,
  onResult: (r: FileVerification) => void,
): Promise<FileVerification[]> {
  const results: FileVerification[] = [];
  const running: Array<Promise<FileVerification[]>> = [];
  let next = 0;
  const start = () => {
    const file = verifyFile(files[next++]!, ctx);
    file.catch(() => {}); // a failure (a bug) surfaces where its file is awaited, in order
    running.push(file);
  };
  // Each file runs on this thread until its signature goes to the pool; the next one starts meanwhile.
  while (next < files.length && running.length < IN_FLIGHT) start();
  while (running.length > 0) {
    for (const r of await running.shift()!) {
      results.push(r);
      onResult(r);
    }
    if (next < files.length) start();
  }
  return results;
}
