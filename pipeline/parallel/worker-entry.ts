// The entry every worker thread starts from when prereg runs compiled (dist/): import the worker
// module named in workerData, then serve its batches (worker-loop.ts).
import { workerData } from 'node:worker_threads';
import { serveBatches, type HandlerFactory } from './worker-loop.ts';

const { createHandler } = (await import((workerData as { module: string }).module)) as { createHandler: HandlerFactory };
await serveBatches(createHandler);
