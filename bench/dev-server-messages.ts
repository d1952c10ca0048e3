// What the bench asks its dev server (on a thread of its own or in a process of its own) and how the server
// answers: the same messages whichever carries them, so that the bench's side reads one protocol.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { startDevServer, type DevServerOptions } from '../src/devserver';

export interface BenchServerOptions extends DevServerOptions {
  /** `--cpu-prof`: the server's CPU profile is written here when it closes (what the service's side costs). */
  cpuProfFile?: string;
}

/** A message from the bench to its server. */
export interface BenchServerMessage {
  kind: 'count' | 'in-flight' | 'occupancy' | 'reads' | 'close';
  /** For `reads`: how many of the latest requests. */
  last?: number;
}

/** How often the server samples its requests in flight for `occupancy`. */
const OCCUPANCY_SAMPLE_MS = 5;

/**
 * The server's requests in flight sampled every OCCUPANCY_SAMPLE_MS since the last ask: their mean, the share of
 * samples with none, and when the first request came. The most in flight says the budget was held; these say
 * whether the client kept it full (a fleet whose first request waits for every stack's load, or whose last stacks
 * leave a server idle while others finish, shows it here).
 */
export interface Occupancy {
  mean: number;
  idleShare: number;
  /** Milliseconds from the ask before to the first sample with a request in flight; undefined when none was. */
  firstBusyMs?: number;
}

export function occupancySampler(current: () => number): { take(): Occupancy; stop(): void } {
  let since = performance.now();
  let samples = 0;
  let sum = 0;
  let idle = 0;
  let firstBusyMs: number | undefined;
  const timer = setInterval(() => {
    const inFlight = current();
    samples++;
    sum += inFlight;
    if (inFlight === 0) idle++;
    else firstBusyMs ??= performance.now() - since;
  }, OCCUPANCY_SAMPLE_MS);
  // The sampler never keeps the server's process or thread alive.
  timer.unref();
  return {
    take: () => {
      const taken = { mean: samples === 0 ? 0 : sum / samples, idleShare: samples === 0 ? 1 : idle / samples, ...(firstBusyMs === undefined ? {} : { firstBusyMs }) };
      since = performance.now();
      samples = sum = idle = 0;
      firstBusyMs = undefined;
      return taken;
    },
    stop: () => clearInterval(timer),
  };
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

/**
 * Starts the dev server, posts `ready` with its address (or `error` with why it could not start, e.g. the port is
 * taken), then answers each message `onMessage` delivers. `closed` is posted once the server has closed, then
 * `done` runs (the carrier lets go).
 */
export async function serveBench(
  { cpuProfFile, ...options }: BenchServerOptions,
  post: (message: object) => void,
  onMessage: (handle: (message: BenchServerMessage) => void) => void,
  done: () => void,
): Promise<void> {
  const profile = cpuProfFile ? startProfile(cpuProfFile) : undefined;
  let server: Awaited<ReturnType<typeof startDevServer>>;
  try {
    server = await startDevServer(options);
  } catch (err) {
    post({ kind: 'error', message: err instanceof Error ? (err.stack ?? String(err)) : String(err) });
    done();
    return;
  }
  post({ kind: 'ready', url: server.url });
  const occupancy = occupancySampler(() => server.inFlight.current);
  onMessage((message) => {
    // `busyMs`: how long this event loop has been busy since it started (the server's own work).
    if (message.kind === 'count') post({ kind: 'count', count: server.requestCount, busyMs: performance.eventLoopUtilization().active });
    // The most requests the server worked on at once since the last ask (each ask starts a new measure).
    if (message.kind === 'in-flight') {
      post({ kind: 'in-flight', max: server.inFlight.max });
      server.inFlight.resetMax();
    }
    if (message.kind === 'occupancy') post({ kind: 'occupancy', occupancy: occupancy.take() });
    // The method, path and query of the last `last` requests (the log keeps no body), for the bare client.
    if (message.kind === 'reads') post({ kind: 'reads', reads: server.requestLog.slice(-(message.last ?? 0)).map((entry) => [entry.method, entry.path, entry.query]) });
    if (message.kind === 'close') {
      occupancy.stop();
      void server.close()
        .then(() => profile?.stop())
        .then(() => {
          post({ kind: 'closed' });
          done();
        });
    }
  });
}
