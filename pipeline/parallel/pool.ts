// A small pool of worker threads that maps batches in order. Verification is CPU-bound
// (Ed25519, SHA-256, CMS), so it runs on every core; results come back in input order so that
// everything downstream stays deterministic.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compiledWorkerBundle, RUNS_COMPILED, runningModule } from '../running-code.ts';

/**
 * A worker starts from its module's bundle (worker-bundle.ts): compiled (dist/, what `prereg`
 * runs), the one the build wrote beside the module's .js; from the TypeScript sources (tests,
 * bench, scripts under tsx), one bundled when the pool is first made.
 */
async function workerStart(module: URL): Promise<URL> {
  if (RUNS_COMPILED) return pathToFileURL(compiledWorkerBundle(fileURLToPath(runningModule(module))));
  const { workerBundle } = await import('./worker-bundle.ts');
  return workerBundle(module);
}

export interface PoolOptions<TInit> {
  /** A worker module exporting `createHandler(init)` (see worker-loop.ts), named by its .ts source. */
  module: URL;
  init: TInit;
  threads?: number;
}

/**
 * The parent's Node flags without tsx's (`npx tsx`, `node --import tsx`): a bundle is plain
 * JavaScript, and a worker inheriting the loader would start tsx and its loader thread for nothing.
 */
export function withoutTypeScriptLoader(execArgv: readonly string[]): string[] {
  const namesTsx = (specifier: string) => /(^|[/\\])tsx([/\\]|$)/.test(specifier);
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const flag = execArgv[i]!;
    const joined = /^--(?:import|require)=(.*)$/.exec(flag);
    if ((flag === '--import' || flag === '--require' || flag === '-r') && namesTsx(execArgv[i + 1] ?? '')) i++;
    else if (!(joined && namesTsx(joined[1]!))) out.push(flag);
  }
  return out;
}

interface Pending<TOut> {
  resolve: (value: TOut[]) => void;
  reject: (error: Error) => void;
}

export class WorkerPool<TInit, TIn, TOut> {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending<TOut>>();
  private readonly load: number[] = [];
  private readonly threads: number;
  /** Workers start once their bundle is built; run() and close() wait for it. */
  private readonly started: Promise<void>;
  private nextId = 0;
  private failure: Error | null = null;

  constructor(options: PoolOptions<TInit>) {
    this.threads = Math.max(1, options.threads ?? availableParallelism());
    // The workers get their own copy of init; the pool keeps none (the commitments the timelines'
    // workers start with grow with the study: docs/performance.md, "Bounded memory: ingest and verify").
    let init: TInit | null = options.init;
    const module = options.module;
    this.started = workerStart(module).then((start) => {
      for (let i = 0; i < this.threads; i++) this.startWorker(start, init as TInit, i);
      init = null;
    });
    this.started.catch((err: Error) => this.fail(err));
  }

  private startWorker(entry: URL, init: TInit, i: number): void {
    const worker = new Worker(entry, { workerData: { init }, execArgv: withoutTypeScriptLoader(process.execArgv) });
    worker.on('message', (msg: { id: number; results?: TOut[]; error?: string }) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      this.load[i]!--;
      if (msg.error !== undefined) p.reject(new Error(msg.error));
      else p.resolve(msg.results!);
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => {
      if (code !== 0) this.fail(new Error(`worker thread exited with code ${code}`));
    });
    this.workers.push(worker);
    this.load.push(0);
  }

  get size(): number {
    return this.threads;
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  /** Runs one batch on the least-loaded worker. */
  async run(batch: TIn[]): Promise<TOut[]> {
    await this.started;
    if (this.failure) throw this.failure;
    let target = 0;
    for (let i = 1; i < this.load.length; i++) if (this.load[i]! < this.load[target]!) target = i;
    const id = this.nextId++;
    this.load[target]!++;
    return new Promise<TOut[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.workers[target]!.postMessage({ id, batch });
    });
  }

  /**
   * Maps every batch of an async source, at most `inFlight` batches at once, and hands results to
   * `sink` in source order, with the source items they came from (`toInput` picks what is posted).
   * With `weight`, the bound is on the batches' total weight instead (e.g. their bytes); a batch
   * heavier than the bound still goes, alone.
   */
  async mapOrdered<TItem>(
    source: AsyncIterable<TItem[]>,
    toInput: (item: TItem) => TIn,
    sink: (results: TOut[], items: TItem[]) => Promise<void> | void,
    inFlight = this.size * 2,
    weight: (items: TItem[]) => number = () => 1,
  ): Promise<void> {
    const queue: Array<{ items: TItem[]; promise: Promise<TOut[]>; weight: number }> = [];
    let queued = 0;
    const drainOne = async () => {
      const head = queue.shift()!;
      queued -= head.weight;
      await sink(await head.promise, head.items);
    };
    for await (const items of source) {
      const w = weight(items);
      while (queue.length > 0 && queued + w > inFlight) await drainOne();
      const promise = this.run(items.map(toInput));
      // Should an earlier batch or the sink fail, this batch's failure (the pool closing) must not
      // be an unhandled rejection: a failure surfaces where its batch is awaited.
      promise.catch(() => {});
      queue.push({ items, promise, weight: w });
      queued += w;
    }
    while (queue.length > 0) await drainOne();
  }

  async close(): Promise<void> {
    await this.started.catch(() => undefined);
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
