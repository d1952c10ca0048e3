// The bench's dev server, on its own thread (and so its own core), as a real service would be: the engine's
// timings then measure the engine, not the emulator sharing its event loop.
import { parentPort, workerData } from 'node:worker_threads';
import { serveBench, type BenchServerOptions } from './dev-server-messages';

void serveBench(
  workerData as BenchServerOptions,
  (message) => parentPort!.postMessage(message),
  (handle) => parentPort!.on('message', handle),
  () => parentPort!.close(),
);
