/**
 * `npm run bench -- --fleet [--fleet-size 100x1000] [--fleet-cache DIR]`: a fleet of stacks on 4 dev servers (each
 * in a process of its own, 10 ms added latency), a quarter of the stacks on each, parallelism 10. The plan of every
 * stack in one run is compared with a bare client sending the same reads at 10 in flight per server (measured
 * right after it), and printed beside the floor (the busiest server's reads x latency / 10), the most requests in
 * flight seen at each server (the budget: at most 10) and the plan's peak RSS. Synth is measured apart, beside the
 * same number of plain cdktf resources (cdktf's own cost), and its output is kept in a cache (by default
 * $TMPDIR/secretform-bench-fleet-cache; bench/fleet-synth-cache.ts) for the next run of the same size and code,
 * whose servers then listen on the same ports: synth of 100 x 1,000 takes many minutes and runs once.
 */
import { FLEET_LATENCY_MS, FLEET_SERVERS, type FleetSize } from './args';
import { startFleet } from './fleet-setup';
import { defaultFleetCacheDir } from './fleet-synth-cache';
import {
  failure, median, progress, ROOT_TOKEN, runNodeExport as runNode, runSecretform, type BenchServer, type CliRun, type Row,
} from './run';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Occupancy } from './dev-server-messages';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SERVERS = FLEET_SERVERS;
const LATENCY_MS = FLEET_LATENCY_MS;
const PARALLELISM = 10;
const PLAN_TARGET = 1.3;
const RSS_TARGET_MB = 1536;
const PLAN_RUNS = 3;

/**
 * Requests each server handled during `run`, the most it had in flight at once meanwhile, and how full it was kept
 * (dev-server-messages.ts's occupancy: mean in flight, idle share, first request).
 */
export async function perServer<T>(servers: BenchServer[], run: () => Promise<T>): Promise<{ result: T; requests: number[]; maxInFlight: number[]; occupancy: Occupancy[] }> {
  const before = await Promise.all(servers.map((server) => server.requestCount()));
  await Promise.all(servers.map((server) => server.maxInFlight()));
  await Promise.all(servers.map((server) => server.occupancy()));
  const result = await run();
  const occupancy = await Promise.all(servers.map((server) => server.occupancy()));
  const after = await Promise.all(servers.map((server) => server.requestCount()));
  const maxInFlight = await Promise.all(servers.map((server) => server.maxInFlight()));
  return { result, requests: after.map((count, i) => count.count - before[i].count), maxInFlight, occupancy };
}

/** The servers' occupancy in one line: mean in flight, share of time idle and the first request, each server's. */
export function occupancyText(occupancy: readonly Occupancy[]): string {
  const first = occupancy.map((o) => (o.firstBusyMs === undefined ? '-' : (o.firstBusyMs / 1000).toFixed(2))).join('/');
  return `mean in flight ${occupancy.map((o) => o.mean.toFixed(1)).join('/')}, idle ${occupancy.map((o) => `${Math.round(100 * o.idleShare)}%`).join('/')}, first request after ${first} s`;
}

/** `cpuProfDir`: a CPU profile of each fleet plan is written there (bench's --cpu-prof). */
export async function measureFleet(size: FleetSize, applyTimeoutS: number, rows: Row[], notes: string[], cpuProfDir?: string, cacheDir = defaultFleetCacheDir()): Promise<void> {
  const label = `${size.stacks} stacks x ${size.objects.toLocaleString('en-US')} on ${SERVERS} servers`;
  const total = size.stacks * size.objects;
  process.stdout.write(`measuring a fleet: ${label}...\n`);
  const fleet = await startFleet(size, cacheDir, (line) => process.stdout.write(`${line}\n`));
  const { servers, project, env } = fleet;
  try {
    const { synth, plain } = fleet.synth;
    const when = fleet.cached ? `, measured ${fleet.synth.measuredAt} when the cached output was made (load ${fleet.synth.load.map((l) => l.toFixed(1)).join(' ')})` : '';
    rows.push({ figure: `fleet synth (${label})`, size: total, seconds: synth.seconds, peakRssMb: synth.peakRssMb, cpuSeconds: synth.cpuSeconds, note: `the app (cdktf and our constructs) included; CPU and RSS: secretform only; ${(synth.seconds / plain.seconds).toFixed(2)}x the plain cdktf app${when}` });
    rows.push({ figure: `fleet synth: plain cdktf app, as many resources (${label})`, size: total, seconds: plain.seconds, peakRssMb: plain.peakRssMb, cpuSeconds: plain.cpuSeconds, note: `cdktf's own cost: terraform_data resources, node fleet-app.js with FLEET_PLAIN=1${when}` });

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
    const plans: { run: CliRun; requests: number[]; maxInFlight: number[]; occupancy: Occupancy[] }[] = [];
    const bares: { run: CliRun; maxInFlight: number[]; occupancy: Occupancy[] }[] = [];
    for (let i = 0; i < PLAN_RUNS; i++) {
      const planned = await perServer(servers, () => runSecretform(['plan', '--stack', '*', '--no-synth'], project, env, cpuProfDir === undefined ? {} : { cpuProfDir }));
      progress('fleet plan', planned.result);
      plans.push({ run: planned.result, requests: planned.requests, maxInFlight: planned.maxInFlight, occupancy: planned.occupancy });
      if (planned.result.code !== 0) break;
      const bare = await bareFleet(servers, planned.requests);
      progress('bare client, the same reads', bare.result);
      bares.push({ run: bare.result, maxInFlight: bare.maxInFlight, occupancy: bare.occupancy });
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
      // The plan's CPU is compared with this: on a busy machine the wall ratio follows the CPU one.
      cpuSeconds: median(bares.map((bare) => bare.run.cpuSeconds ?? 0)),
      peakRssMb: Math.max(...bares.map((bare) => bare.run.peakRssMb ?? 0)),
      note: `reference: node + an undici Pool per server, ${PARALLELISM} in flight each, the same GETs; in flight at most ${bares.map((bare) => bare.maxInFlight.join('/')).join(', ')}; median of ${bares.length}`,
      failed: bares.find((bare) => bare.run.code !== 0) && failure(bares.find((bare) => bare.run.code !== 0)!.run, 'bare client'),
    });
    notes.push(`fleet: floor = the busiest server's reads x ${LATENCY_MS} ms / ${PARALLELISM}; each server's requests in flight measured at the server (target: at most ${PARALLELISM}).`);
    // How full each server was kept, run by run: the plan against the bare client's ${PARALLELISM} throughout.
    plans.forEach((plan, i) => notes.push(`fleet plan ${i + 1}: ${occupancyText(plan.occupancy)}; bare client after it: ${bares[i] === undefined ? '-' : occupancyText(bares[i].occupancy)}`));
  } finally {
    await fleet.close();
  }
}

function budgetProblem(maxInFlight: number[]): string | undefined {
  const over = maxInFlight.filter((max) => max > PARALLELISM);
  return over.length > 0 ? `a server had ${Math.max(...over)} requests in flight at once, above --parallelism ${PARALLELISM}` : undefined;
}

/** bench/bare-client.js sending each server the reads the plan sent it (the last `requests[i]` it handled). */
async function bareFleet(servers: BenchServer[], requests: number[]): Promise<{ result: CliRun; maxInFlight: number[]; occupancy: Occupancy[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'secretform-bench-fleet-reads-'));
  try {
    const readsFile = join(dir, 'reads.json');
    const plan = await Promise.all(servers.map(async (server, i) => ({ url: server.url, parallelism: PARALLELISM, reads: await server.lastRequests(requests[i]) })));
    writeFileSync(readsFile, JSON.stringify({ servers: plan }));
    const sent = await perServer(servers, () => runNode([join(__dirname, 'bare-client.js'), readsFile], { PATH: process.env.PATH, SERVICE_TOKEN: ROOT_TOKEN }));
    return { result: sent.result, maxInFlight: sent.maxInFlight, occupancy: sent.occupancy };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
