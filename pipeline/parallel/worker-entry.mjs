// Worker threads do not inherit the main thread's tsx loader: register it here, then load the
// TypeScript worker module named in workerData. The module exports `createHandler(init)`, which
// returns an async function mapping one batch to its results.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { createHandler } = await import(workerData.module);
const handle = await createHandler(workerData.init);
parentPort.on('message', async ({ id, batch }) => {
  try {
    parentPort.postMessage({ id, results: await handle(batch) });
  } catch (err) {
    parentPort.postMessage({ id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
  }
});
