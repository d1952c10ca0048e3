// The bench's dev server, on its own thread (and so its own core), as a real service would be: the engine's
// timings then measure the engine, not the emulator sharing its event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { startDevServer, type DevServerOptions } from '../src/devserver';

async function run(): Promise<void> {
  const server = await startDevServer(workerData as DevServerOptions);
  parentPort!.postMessage({ kind: 'ready', url: server.url });
  parentPort!.on('message', (message: { kind: string }) => {
    if (message.kind === 'count') parentPort!.postMessage({ kind: 'count', count: server.requestCount });
    if (message.kind === 'close') {
      void server.close().then(() => {
        parentPort!.postMessage({ kind: 'closed' });
        parentPort!.close();
      });
    }
  });
}

run().catch((err) => parentPort!.postMessage({ kind: 'error', message: err instanceof Error ? (err.stack ?? String(err)) : String(err) }));
