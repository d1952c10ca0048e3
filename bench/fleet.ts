/**
 * `npm run bench -- --fleet [--fleet-size 100x1000]`: a fleet of stacks on 4 dev servers (each on its own thread,
 * 10 ms added latency), a quarter of the stacks on each, parallelism 10. The plan of every stack in one run is
 * compared with a bare client sending the same reads at 10 in flight per server (measured right after it), and
 * printed beside the floor (the busiest server's reads x latency / 10), the most requests in flight seen at each
 * server (the budget: at most 10) and the plan's peak RSS. Synth of the app is measured apart.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import ts from 'typescript';
import {
  failure, median, progress, ROOT_TOKEN, runNodeExport as runNode, runSecretform, startServerThread,
  type BenchServer, type CliRun, type Row,
} from './run';
import { FLEET_SERVERS, type FleetSize } from './args';

const SERVERS = FLEET_SERVERS;
const LATENCY_MS = 10;
const PARALLELISM = 10;
const PLAN_TARGET = 1.3;
const RSS_TARGET_MB = 1536;
const PLAN_RUNS = 3;

/** Requests each server handled during `run`, and the most it had in flight at once meanwhile. */
export async function perServer<T>(servers: BenchServer[], run: () => Promise<T>): Promise<{ result: T; requests: number[]; maxInFlight: number[] }> {
  const before = await Promise.all(servers.map((server) => server.requestCount()));
  await Promise.all(servers.map((server) => server.maxInFlight()));
  const result = await run();
  const after = await Promise.all(servers.map((server) => server.requestCount()));
  const maxInFlight = await Promise.all(servers.map((server) => server.maxInFlight()));
  return { result, requests: after.map((count, i) => count.count - before[i].count), maxInFlight };
}

function fleetProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'secretform-bench-fleet-'));
  const source = readFileSync(join(__dirname, 'fleet-app.ts'), 'utf8');
  const output = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
  writeFileSync(join(dir, 'fleet-app.js'), output.outputText);
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: `${JSON.stringify(process.execPath)} fleet-app.js`, output: 'cdktf.out' }, null, 2));
  return dir;
}

/** `cpuProfDir`: a CPU profile of each fleet plan is written there (bench's --cpu-prof). */
export async function measureFleet(size: FleetSize, applyTimeoutS: number, rows: Row[], notes: string[], cpuProfDir?: string): Promise<void> {
  const label = `${size.stacks} stacks x ${size.objects.toLocaleString('en-US')} on ${SERVERS} servers`;
  const total = size.stacks * size.objects;
  process.stdout.write(`measuring a fleet: ${label}...\n`);
  const servers = await Promise.all(Array.from({ length: SERVERS }, () => startServerThread(0, LATENCY_MS, { seed: { mounts: [] }, requestLogCap: Math.ceil(size.stacks / SERVERS) * size.objects * 2 })));
  const project = fleetProject();
  try {
    const base: NodeJS.ProcessEnv = {};
    for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[name] !== undefined) base[name] = process.env[name];
    const env: NodeJS.ProcessEnv = {
      ...base,
      BENCH_ROOT: join(__dirname, '..'),
      FLEET_STACKS: String(size.stacks),
      FLEET_OBJECTS: String(size.objects),
      FLEET_SERVERS: servers.map((server) => server.url).join(','),
      FLEET_PASSWORD_HASH: bcrypt.hashSync('fleet-user-password', 4),
      SERVICE_TOKEN: ROOT_TOKEN,
      SECRETFORM_STATE_KEY: 'bench-fleet-state-key',
      NO_COLOR: '1',
    };

    const synth = await runSecretform(['synth', '--synth-env', 'FLEET_*', '--synth-env', 'BENCH_ROOT'], project, env);
    progress('fleet synth', synth);
    if (synth.code !== 0) throw new Error(failure(synth, 'fleet synth'));
    rows.push({ figure: `fleet synth (${label})`, size: total, seconds: synth.seconds, peakRssMb: synth.peakRssMb, cpuSeconds: synth.cpuSeconds, note: 'the app (cdktf and our constructs) included; CPU and RSS: secretform only' });

    const applied = await perServer(servers, () => runSecretform(['apply', '--stack', '*', '--no-synth', '--auto-approve'], project, env, { timeoutS: applyTimeoutS }));
    progress('fleet apply', applied.result);
    const applyFailed = applied.result.code === 0 ? undefined : failure(applied.result, 'fleet apply');
    rows.push({
      figure: `fleet apply (${label})`,
      size: total,
      seconds: applied.result.timedOut ? undefined : applied.result.seconds,
      requests: applied.requests.reduce((a, b) => a + b, 0),
      floorSeconds: (Math.max(...applied.requests) * LATENCY_MS) / PARALLELISM / 1000,
      peakRssMb: applied.result.peakRssMb,
      cpuSeconds: applied.result.cpuSeconds,
      note: `in flight at most ${applied.maxInFlight.join(' / ')} at the servers`,
      failed: applyFailed ?? budgetProblem(applied.maxInFlight),
    });
    if (applyFailed) return;

    // Plan and bare client alternate, the bare client sending the reads of the plan just before it: both see the
    // machine as it is at that moment.
    const plans: { run: CliRun; requests: number[]; maxInFlight: number[] }[] = [];
    const bares: { run: CliRun; maxInFlight: number[] }[] = [];
    for (let i = 0; i < PLAN_RUNS; i++) {
      const planned = await perServer(servers, () => runSecretform(['plan', '--stack', '*', '--no-synth'], project, env, cpuProfDir === undefined ? {} : { cpuProfDir }));
      progress('fleet plan', planned.result);
      plans.push({ run: planned.result, requests: planned.requests, maxInFlight: planned.maxInFlight });
      if (planned.result.code !== 0) break;
      const bare = await bareFleet(servers, planned.requests);
      progress('bare client, the same reads', bare.result);
      bares.push({ run: bare.result, maxInFlight: bare.maxInFlight });
    }
    const failedPlan = plans.find((plan) => plan.run.code !== 0);
    const changed = plans.find((plan) => !/No changes/.test(plan.run.stdout));
    const requests = plans[0].requests;
    const floor = (Math.max(...requests) * LATENCY_MS) / PARALLELISM / 1000;
    const bareSeconds = median(bares.map((bare) => bare.run.seconds));
    const planSeconds = median(plans.map((plan) => plan.run.seconds));
    const maxInFlight = requests.map((_, server) => Math.max(...plans.map((plan) => plan.maxInFlight[server])));
    rows.push({
      figure: `fleet plan, every stack (${label})`,
      size: total,
      seconds: failedPlan ? undefined : planSeconds,
      requests: requests.reduce((a, b) => a + b, 0),
      floorSeconds: floor,
      target: PLAN_TARGET,
      targetKind: 'reference',
      referenceSeconds: bareSeconds,
      peakRssMb: Math.max(...plans.map((plan) => plan.run.peakRssMb ?? 0)),
      rssTargetMb: RSS_TARGET_MB,
      cpuSeconds: median(plans.map((plan) => plan.run.cpuSeconds ?? 0)),
      note: `${(planSeconds / bareSeconds).toFixed(2)}x the bare client (${bareSeconds.toFixed(2)} s), ${(planSeconds / floor).toFixed(2)}x the floor; reads per server ${requests.join(' / ')}; in flight at most ${maxInFlight.join(' / ')} at the servers; median of ${plans.length}`,
      failed: failedPlan ? failure(failedPlan.run, 'fleet plan') : changed ? 'the plan after apply is not "No changes"' : budgetProblem(maxInFlight),
    });
    rows.push({
      figure: `fleet bare HTTP client, the plan's reads (${label})`,
      size: total,
      seconds: bareSeconds,
      requests: requests.reduce((a, b) => a + b, 0),
      floorSeconds: floor,
      note: `reference: node + an undici Pool per server, ${PARALLELISM} in flight each, the same GETs; in flight at most ${bares.map((bare) => bare.maxInFlight.join('/')).join(', ')}; median of ${bares.length}`,
      failed: bares.find((bare) => bare.run.code !== 0) && failure(bares.find((bare) => bare.run.code !== 0)!.run, 'bare client'),
    });
    notes.push(`fleet: floor = the busiest server's reads x ${LATENCY_MS} ms / ${PARALLELISM}; each server's requests in flight measured at the server (target: at most ${PARALLELISM}).`);
  } finally {
    await Promise.all(servers.map((server) => server.close()));
    rmSync(project, { recursive: true, force: true });
  }
}

function budgetProblem(maxInFlight: number[]): string | undefined {
  const over = maxInFlight.filter((max) => max > PARALLELISM);
  return over.length > 0 ? `a server had ${Math.max(...over)} requests in flight at once, above --parallelism ${PARALLELISM}` : undefined;
}

/** bench/bare-client.js sending each server the reads the plan sent it (the last `requests[i]` it handled). */
async function bareFleet(servers: BenchServer[], requests: number[]): Promise<{ result: CliRun; maxInFlight: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'secretform-bench-fleet-reads-'));
  try {
    const readsFile = join(dir, 'reads.json');
    const plan = await Promise.all(servers.map(async (server, i) => ({ url: server.url, parallelism: PARALLELISM, reads: await server.lastRequests(requests[i]) })));
    writeFileSync(readsFile, JSON.stringify({ servers: plan }));
    const sent = await perServer(servers, () => runNode([join(__dirname, 'bare-client.js'), readsFile], { PATH: process.env.PATH, SERVICE_TOKEN: ROOT_TOKEN }));
    return { result: sent.result, maxInFlight: sent.maxInFlight };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
