/**
 * The fleet bench's dev servers, each in a process of its own (bench/dev-server-process.ts): the plan being
 * measured shares no thread, heap or garbage collector with them, and neither does the bench. `ports` fixes
 * where they listen (0: a free port each), so that a synth output, which embeds their addresses, can be reused
 * by a later bench run (bench/fleet-synth-cache.ts).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { FLEET_LATENCY_MS } from './args';
import { benchServerOver, ROOT_TOKEN, type BenchServer } from './run';

/** One dev server process on `port`, with no mount, `latencyMs` added to each answer, logging `requestLogCap` requests. */
export function startServerProcess(port: number, latencyMs: number, requestLogCap: number, cpuProfFile?: string): Promise<BenchServer> {
  const options = { host: '127.0.0.1', port, rootToken: ROOT_TOKEN, seed: { mounts: [] }, latencyMs, requestLogCap, ...(cpuProfFile ? { cpuProfFile } : {}) };
  const child = spawn(process.execPath, ['--require', require.resolve('tsx/cjs'), join(__dirname, 'dev-server-process.ts')], {
    env: { PATH: process.env.PATH, BENCH_SERVER_OPTIONS: JSON.stringify(options) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // A server that could not start (its port taken) says so and exits; one that never said anything has died.
  child.once('exit', (code, signal) => child.emit('message', { kind: 'error', message: `the dev server process on port ${port} exited (${signal ?? `code ${code}`})` }));
  return benchServerOver(child, (message) => child.send(message), async () => {
    await exited;
  }).catch(async (error: Error) => {
    child.kill();
    await exited;
    throw error;
  });
}

/**
 * `count` servers on `ports` (or free ports when none are given); all or none: when one cannot start, those that
 * did are closed again and the error says which port failed.
 */
export async function startFleetServers(count: number, requestLogCap: number, ports?: readonly number[]): Promise<BenchServer[]> {
  const started = await Promise.allSettled(Array.from({ length: count }, (_, i) => startServerProcess(ports?.[i] ?? 0, FLEET_LATENCY_MS, requestLogCap)));
  const servers = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    await Promise.all(servers.map((server) => server.close()));
    throw failed.reason;
  }
  return servers;
}
