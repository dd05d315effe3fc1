// The loop every worker thread runs: build the handler once from workerData.init, then answer each
// posted batch { id, batch } with { id, results } or { id, error }.
import { parentPort, workerData } from 'node:worker_threads';

export type HandlerFactory = (init: unknown) => Promise<(batch: unknown[]) => Promise<unknown[]>>;

export async function serveBatches(createHandler: HandlerFactory): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('serveBatches runs in a worker thread');
  const handle = await createHandler((workerData as { init: unknown }).init);
  port.on('message', async ({ id, batch }: { id: number; batch: unknown[] }) => {
    try {
      port.postMessage({ id, results: await handle(batch) });
    } catch (err) {
      port.postMessage({ id, error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
    }
  });
}
