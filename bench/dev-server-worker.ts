// The bench's dev server, on its own thread (and so its own core), as a real service would be: the engine's
// timings then measure the engine, not the emulator sharing its event loop.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { parentPort, workerData } from 'node:worker_threads';
import { startDevServer, type DevServerOptions } from '../src/devserver';

interface WorkerData extends DevServerOptions {
  /** `--cpu-prof`: this thread's CPU profile is written here when the server closes (what the service's side costs). */
  cpuProfFile?: string;
}

/** A CPU profile of this thread, started now; `stop` writes it. */
function startProfile(file: string): { stop(): Promise<void> } {
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((done, reject) => session.post(method, params, (error, result) => (error ? reject(error) : done(result))));
  const started = post('Profiler.enable').then(() => post('Profiler.start'));
  return {
    stop: async () => {
      await started;
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      writeFileSync(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

async function run(): Promise<void> {
  const { cpuProfFile, ...options } = workerData as WorkerData;
  const profile = cpuProfFile ? startProfile(cpuProfFile) : undefined;
  const server = await startDevServer(options);
  parentPort!.postMessage({ kind: 'ready', url: server.url });
  parentPort!.on('message', (message: { kind: string; last?: number }) => {
    // `busyMs`: how long this thread's event loop has been busy since it started (the server's own work).
    if (message.kind === 'count') parentPort!.postMessage({ kind: 'count', count: server.requestCount, busyMs: performance.eventLoopUtilization().active });
    // The most requests the server worked on at once since the last ask (each ask starts a new measure).
    if (message.kind === 'in-flight') {
      parentPort!.postMessage({ kind: 'in-flight', max: server.inFlight.max });
      server.inFlight.resetMax();
    }
    // The method, path and query of the last `last` requests (the log keeps no body), for the bare client.
    if (message.kind === 'reads') {
      const { last } = message as { kind: string; last: number };
      parentPort!.postMessage({ kind: 'reads', reads: server.requestLog.slice(-last).map((entry) => [entry.method, entry.path, entry.query]) });
    }
    if (message.kind === 'close') {
      void server.close()
        .then(() => profile?.stop())
        .then(() => {
          parentPort!.postMessage({ kind: 'closed' });
          parentPort!.close();
        });
    }
  });
}

run().catch((err) => parentPort!.postMessage({ kind: 'error', message: err instanceof Error ? (err.stack ?? String(err)) : String(err) }));
