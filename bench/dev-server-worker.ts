// The bench's dev server, on its own thread (and so its own core), as a real service would be: the engine's
// timings then measure the engine, not the emulator sharing its event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { startDevServer, type DevServerOptions } from '../src/devserver';

async function run(): Promise<void> {
  const server = await startDevServer(workerData as DevServerOptions);
  parentPort!.postMessage({ kind: 'ready', url: server.url });
  parentPort!.on('message', (message: { kind: string; last?: number }) => {
    // `busyMs`: how long this thread's event loop has been busy since it started (the server's own work).
    if (message.kind === 'count') parentPort!.postMessage({ kind: 'count', count: server.requestCount, busyMs: performance.eventLoopUtilization().active });
    // The method, path and query of the last `last` requests (the log keeps no body), for the bare client.
    if (message.kind === 'reads') {
      const { last } = message as { kind: string; last: number };
      parentPort!.postMessage({ kind: 'reads', reads: server.requestLog.slice(-last).map((entry) => [entry.method, entry.path, entry.query]) });
    }
    if (message.kind === 'close') {
      void server.close().then(() => {
        parentPort!.postMessage({ kind: 'closed' });
        parentPort!.close();
      });
    }
  });
}

run().catch((err) => parentPort!.postMessage({ kind: 'error', message: err instanceof Error ? (err.stack ?? String(err)) : String(err) }));
