// A small pool of worker threads that maps batches in order. Verification is CPU-bound
// (Ed25519, SHA-256, CMS), so it runs on every core; results come back in input order so that
// everything downstream stays deterministic.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

export interface PoolOptions<TInit> {
  /** A worker module exporting nothing; it receives `init` as workerData (see worker-entry.mjs). */
  module: URL;
  init: TInit;
  threads?: number;
}

interface Pending<TOut> {
  resolve: (value: TOut[]) => void;
  reject: (error: Error) => void;
}

/** Worker entry shim: registers tsx in the worker, then loads the TypeScript worker module. */
const ENTRY = new URL('./worker-entry.mjs', import.meta.url);

export class WorkerPool<TInit, TIn, TOut> {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, Pending<TOut>>();
  private readonly load: number[] = [];
  private nextId = 0;
  private failure: Error | null = null;

  constructor(options: PoolOptions<TInit>) {
    const threads = Math.max(1, options.threads ?? availableParallelism());
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(ENTRY, { workerData: { module: options.module.href, init: options.init } });
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
        if (code !== 0) this.fail(new Error(`verification worker exited with code ${code}`));
      });
      this.workers.push(worker);
      this.load.push(0);
    }
  }

  get size(): number {
    return this.workers.length;
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const p of this.pending.values()) p.reject(err);
    this.pending.clear();
  }

  /** Runs one batch on the least-loaded worker. */
  run(batch: TIn[]): Promise<TOut[]> {
    if (this.failure) return Promise.reject(this.failure);
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
   */
  async mapOrdered<TItem>(
    source: AsyncIterable<TItem[]>,
    toInput: (item: TItem) => TIn,
    sink: (results: TOut[], items: TItem[]) => Promise<void> | void,
    inFlight = this.size * 2,
  ): Promise<void> {
    const queue: Array<{ items: TItem[]; promise: Promise<TOut[]> }> = [];
    const drainOne = async () => {
      const head = queue.shift()!;
      await sink(await head.promise, head.items);
    };
    for await (const items of source) {
      queue.push({ items, promise: this.run(items.map(toInput)) });
      if (queue.length >= inFlight) await drainOne();
    }
    while (queue.length > 0) await drainOne();
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
