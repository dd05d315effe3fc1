// Worker threads for the line checks of ingest and validate (SPEC §5.1). Checks 1–5 of a line
// depend on nothing but the line (submission.ts checkLine), so batches of split lines are checked
// on worker threads (check-worker.ts) while the main thread reads and splits, takes the outcomes
// back in file order (WorkerPool.mapOrdered), runs check 6 (duplicates) and appends. Small runs
// are checked on the main thread: starting workers costs more than they save there.
import { availableParallelism } from 'node:os';
import { WorkerPool } from '../parallel/pool.ts';
import { PreregError } from '../reasons.ts';
import type { LineCheckInit, PackedLines } from './check-worker.ts';
import type { AcceptedKey, Outcome, SubmissionChecker } from './submission.ts';

const WORKER = new URL('./check-worker.ts', import.meta.url);

/** Below this many bytes of submissions in a run, the lines are checked on the main thread. */
export const LINE_WORKERS_MIN_BYTES = 16 * 1024 * 1024;

/**
 * Bytes of lines posted and not yet taken back, at most (inFlightWeight): enough to keep the
 * workers busy while the main thread appends (an appender flush holds it for a while), and the
 * bound on what the batches in flight and their outcomes hold in memory.
 */
export const LINE_BYTES_IN_FLIGHT = 16 * 1024 * 1024;

/** A batch's share of LINE_BYTES_IN_FLIGHT: its bytes, and for each line what its outcome may hold beyond them. */
export function inFlightWeight(batch: PackedLines): number {
  return batch.bytes.length + batch.line_no.length * 512;
}

/**
 * Set to `on` or `off` in the environment, a run checks its lines on worker threads, or on the
 * main thread, whatever its size: for measuring each path (bench:ingest --workers) and for the
 * tests that compare the two on small inputs. Unset, lineWorkersPay decides.
 */
export const LINE_WORKERS_ENV = 'PREREG_LINE_WORKERS';

/** Workers checking as `checker` does: scanFile takes their outcomes through that checker's admit. */
export interface LineWorkers {
  checker: SubmissionChecker;
  pool: WorkerPool<LineCheckInit, PackedLines, Outcome<AcceptedKey>[]>;
}

/**
 * Whether worker threads are worth starting for a run of `totalBytes` on a machine of `cores`:
 * a run large enough to repay their start-up, and a second core. They add CPU (the lines and
 * outcomes posted both ways, a second JIT and heap: ≈ 30 % more for 200 MB); on two quiet cores
 * they made validate ≈ 20 % and ingest ≈ 12 % faster (docs/performance.md, "Ingest and validate").
 */
export function lineWorkersPay(totalBytes: number, cores = availableParallelism(), minBytes = LINE_WORKERS_MIN_BYTES): boolean {
  return totalBytes >= minBytes && cores >= 2;
}

/**
 * Worker threads checking lines as `checker` does when lineWorkersPay says so (or the
 * environment, LINE_WORKERS_ENV), else null: check on the main thread. `threads` defaults to one
 * per core; ingest, whose main thread is busy appending, takes one fewer. The caller closes them.
 */
export function startLineWorkers(
  totalBytes: number,
  checker: SubmissionChecker,
  options: { threads?: number; env?: NodeJS.ProcessEnv; cores?: number } = {},
): LineWorkers | null {
  const forced = options.env?.[LINE_WORKERS_ENV];
  if (forced !== undefined && forced !== 'on' && forced !== 'off') {
    throw new PreregError(
      'USAGE',
      `$${LINE_WORKERS_ENV} must be "on" or "off" (or unset: the run's size decides), got ${JSON.stringify(forced)}`,
    );
  }
  if (forced === 'off' || (forced !== 'on' && !lineWorkersPay(totalBytes, options.cores))) return null;
  const threads = Math.max(1, options.threads ?? availableParallelism());
  const { items, fastPath, systems, attemptsPerItem } = checker.config;
  const init: LineCheckInit = {
    items: items === null ? null : [...items],
    fastPath,
    systems: systems === null ? null : [...systems],
    attemptsPerItem,
  };
  return { checker, pool: new WorkerPool<LineCheckInit, PackedLines, Outcome<AcceptedKey>[]>({ module: WORKER, init, threads }) };
}
