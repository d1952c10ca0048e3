/**
 * `npm run bench -- --one-ms [--sizes 10000] [--service-addr URL]`: the 1 ms row as the issue measured it (JSON
 * report, SECRETFORM_STATE_KEY set, parallelism 10), against `secretform dev-server` in a process of its own (as
 * the independent measurement ran it: a server thread inside the bench process would share the bench's process and
 * be a different setup), or against any server at URL (SERVICE_TOKEN from the environment; it must hold the bench
 * seed, bench/mix.ts `seedFor`, e.g. `secretform dev-server --no-defaults --seed FILE` started apart, or another
 * implementation). The bare client sends the plan's reads, computed from the synth output as the plan's read-ahead
 * does (a server that is not ours keeps no request log to replay), alternating with the plans.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadDesiredSource } from '../src/engine/setup/desired-source';
import { getResourceType } from '../src/resources/registry';
import { seedFor } from './mix';
import {
  benchProject, defaultEnv, failure, median, progress, ROOT_TOKEN, runNodeExport as runNode, runSecretform,
  type CliRun, type Row,
} from './run';
import { startServerProcess, type ServerProcess } from './server-process';

const LATENCY_MS = 1;
const PARALLELISM = 10;
const RUNS = 3;
const TARGET = 1.5;

/** [method, path, query] of every distinct read the plan of the synthesized stack sends, in the plan's order. */
export function planReads(outdir: string, stack: string): [string, string, string][] {
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

/** `cpuProfDir`: a CPU profile of every plan and bare client run is written there (`--cpu-prof DIR`). */
export async function measureOneMs(size: number, serviceAddr: string | undefined, rows: Row[], notes: string[], cpuProfDir?: string): Promise<void> {
  const where = serviceAddr === undefined ? 'dev server process' : serviceAddr;
  process.stdout.write(`measuring the 1 ms row at ${size.toLocaleString('en-US')} resources against ${where}...\n`);
  const project = benchProject(size);
  const dir = mkdtempSync(join(tmpdir(), 'secretform-bench-one-ms-'));
  let server: ServerProcess | undefined;
  try {
    if (serviceAddr === undefined) {
      const seedFile = join(dir, 'seed.json');
      writeFileSync(seedFile, JSON.stringify(seedFor(size)));
      server = await startServerProcess(['--no-defaults', '--seed', seedFile, '--latency-ms', String(LATENCY_MS), '--root-token', ROOT_TOKEN]);
    }
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

    // The server's CPU during each run (only for the server this bench started): how much of the two cores the
    // service took beside the client.
    const serverCpu = async (run: () => Promise<CliRun>): Promise<CliRun & { serverCpuSeconds?: number }> => {
      const before = server?.cpuSeconds();
      const result = await run();
      const after = server?.cpuSeconds();
      return { ...result, serverCpuSeconds: before === undefined || after === undefined ? undefined : after - before };
    };
    const profile = (what: string) => (cpuProfDir === undefined ? {} : { cpuProfDir: join(cpuProfDir, `${size}-one-ms`, what) });
    const plans: (CliRun & { serverCpuSeconds?: number })[] = [];
    const bares: (CliRun & { serverCpuSeconds?: number })[] = [];
    for (let i = 0; i < RUNS; i++) {
      plans.push(await serverCpu(() => runSecretform(['plan', '--no-synth', '--format', 'json', '--state', statePath], project, env, profile('plan'))));
      progress('plan, 1 ms, state key, JSON', plans[i]);
      bares.push(await serverCpu(() => runNode([join(__dirname, 'bare-client.js'), readsFile], { PATH: process.env.PATH, SERVICE_TOKEN: token }, profile('bare-client'))));
      progress('bare client, 1 ms', bares[i]);
    }
    const bad = [...plans, ...bares].find((run) => run.code !== 0);
    const planSeconds = median(plans.map((run) => run.seconds));
    const bareSeconds = median(bares.map((run) => run.seconds));
    const floorSeconds = (reads.length * LATENCY_MS) / PARALLELISM / 1000;
    const serverCpuText = (runs: { serverCpuSeconds?: number }[]) =>
      runs[0].serverCpuSeconds === undefined ? '' : `, server CPU ${median(runs.map((run) => run.serverCpuSeconds!)).toFixed(2)} s`;
    rows.push({
      figure: `plan, 1 ms, state key, JSON (${where})`,
      size,
      seconds: bad ? undefined : planSeconds,
      requests: reads.length,
      floorSeconds,
      target: size === 10000 ? TARGET : undefined,
      targetKind: 'reference',
      referenceSeconds: bareSeconds,
      cpuSeconds: median(plans.map((run) => run.cpuSeconds ?? 0)),
      peakRssMb: Math.max(...plans.map((run) => run.peakRssMb ?? 0)),
      note: `${(planSeconds / bareSeconds).toFixed(2)}x the bare client${serverCpuText(plans)}; median of ${RUNS}`,
      failed: bad ? failure(bad, plans.includes(bad) ? 'plan' : 'bare client') : undefined,
    }, {
      figure: `bare HTTP client, 1 ms, the plan's reads (${where})`,
      size,
      seconds: median(bares.map((run) => run.seconds)),
      requests: reads.length,
      floorSeconds,
      cpuSeconds: median(bares.map((run) => run.cpuSeconds ?? 0)),
      peakRssMb: Math.max(...bares.map((run) => run.peakRssMb ?? 0)),
      note: `reference of the 1 ms plan above${serverCpuText(bares)}; median of ${RUNS}, alternating with the plans`,
    });
  } finally {
    const stopped = await server?.close();
    if (stopped) notes.push(`1 ms row at ${size.toLocaleString('en-US')}: secretform dev-server in its own process: ${stopped}`);
    rmSync(dir, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}
