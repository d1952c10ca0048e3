/**
 * `npm run bench -- --one-ms [--sizes 10000] [--service-addr URL]`: the 1 ms row as the issue measured it (JSON
 * report, SECRETFORM_STATE_KEY set, parallelism 10), against the dev server on the bench's own thread, or against
 * any server at URL (SERVICE_TOKEN from the environment; it must hold the bench seed, bench/mix.ts `seedFor`, e.g.
 * `secretform dev-server --seed` in its own process, pinned to a core with taskset, or another implementation).
 * The bare client sends the plan's reads, computed from the synth output as the plan's read-ahead does (a server
 * that is not ours keeps no request log to replay), alternating with the plans.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDesiredSource } from '../src/engine/setup/desired-source';
import { getResourceType } from '../src/resources/registry';
import {
  benchProject, defaultEnv, failure, median, progress, ROOT_TOKEN, runNodeExport as runNode, runSecretform, startServerThread,
  type BenchServer, type CliRun, type Row,
} from './run';

const LATENCY_MS = 1;
const PARALLELISM = 10;
const RUNS = 3;
const TARGET = 1.5;

/** [method, path, query] of every distinct read the plan of the synthesized stack sends, in the plan's order. */
function planReads(outdir: string, stack: string): [string, string, string][] {
  const desired = loadDesiredSource({ desired: { kind: 'synth-output', outdir } }, stack);
  if (!desired.ok) throw new Error(desired.error.message);
  const seen = new Set<string>();
  const reads: [string, string, string][] = [];
  const resources = [...desired.value.resources].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  for (const resource of resources) {
    const call = getResourceType(resource.type).api(resource.spec).read;
    const read: [string, string, string] = [call.method, call.path, new URLSearchParams(call.query ?? {}).toString()];
    const key = read.join(' ');
    if (!seen.has(key)) reads.push(read);
    seen.add(key);
  }
  return reads;
}

export async function measureOneMs(size: number, serviceAddr: string | undefined, rows: Row[], notes: string[]): Promise<void> {
  const where = serviceAddr === undefined ? 'dev server thread' : serviceAddr;
  process.stdout.write(`measuring the 1 ms row at ${size.toLocaleString('en-US')} resources against ${where}...\n`);
  const project = benchProject(size);
  const server: BenchServer | undefined = serviceAddr === undefined ? await startServerThread(size, LATENCY_MS) : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'secretform-bench-one-ms-'));
  try {
    const url = serviceAddr ?? server!.url;
    const token = serviceAddr === undefined ? ROOT_TOKEN : process.env.SERVICE_TOKEN;
    if (token === undefined) throw new Error('--service-addr needs SERVICE_TOKEN, the token of that server');
    const env = { ...defaultEnv({ url }, size), SERVICE_TOKEN: token, SECRETFORM_STATE_KEY: 'bench-one-ms-state-key' };
    const synth = await runSecretform(['synth', '--synth-env', 'BENCH_ROOT', '--synth-env', 'BENCH_SIZE', '--synth-env', 'BENCH_STACK'], project, env);
    if (synth.code !== 0) throw new Error(failure(synth, 'synth'));
    const statePath = join(project, 'one-ms.state.json');
    const applied = await runSecretform(['apply', '--no-synth', '--auto-approve', '--state', statePath], project, env);
    progress('apply, 1 ms (setup)', applied);
    if (applied.code !== 0) throw new Error(failure(applied, 'apply (setup)'));
    const readsFile = join(dir, 'reads.json');
    const reads = planReads(join(project, 'cdktf.out'), 'bench');
    writeFileSync(readsFile, JSON.stringify({ url, parallelism: PARALLELISM, reads }));

    const plans: CliRun[] = [];
    const bares: CliRun[] = [];
    for (let i = 0; i < RUNS; i++) {
      plans.push(await runSecretform(['plan', '--no-synth', '--format', 'json', '--state', statePath], project, env));
      progress('plan, 1 ms, state key, JSON', plans[i]);
      bares.push(await runNode([join(__dirname, 'bare-client.js'), readsFile], { PATH: process.env.PATH, SERVICE_TOKEN: token }));
      progress('bare client, 1 ms', bares[i]);
    }
    const bad = [...plans, ...bares].find((run) => run.code !== 0);
    const planSeconds = median(plans.map((run) => run.seconds));
    const bareSeconds = median(bares.map((run) => run.seconds));
    rows.push({
      figure: `plan, 1 ms, state key, JSON (${where})`,
      size,
      seconds: bad ? undefined : planSeconds,
      requests: reads.length,
      floorSeconds: (reads.length * LATENCY_MS) / PARALLELISM / 1000,
      target: size === 10000 ? TARGET : undefined,
      targetKind: 'reference',
      referenceSeconds: bareSeconds,
      cpuSeconds: median(plans.map((run) => run.cpuSeconds ?? 0)),
      peakRssMb: Math.max(...plans.map((run) => run.peakRssMb ?? 0)),
      note: `${(planSeconds / bareSeconds).toFixed(2)}x the bare client (${bareSeconds.toFixed(2)} s, CPU ${median(bares.map((run) => run.cpuSeconds ?? 0)).toFixed(2)} s); median of ${RUNS}`,
      failed: bad ? failure(bad, plans.includes(bad) ? 'plan' : 'bare client') : undefined,
    });
    if (serviceAddr === undefined) notes.push('1 ms row: the dev server runs on a thread of the bench process; give --service-addr to measure against a server in its own process (or another implementation).');
  } finally {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}
