// `npm run bench [-- --quick] [--drift]`: secretform's performance targets, measured through the real `secretform` process
// against the dev server (on its own thread, 10 ms added latency per request), parallelism 10 (the default).
// Each figure is printed next to its floor measured in the same run (floor = requests x latency / parallelism,
// the requests counted by the server) and the ratio, at 1,000 / 3,000 / 10,000 resources so that a growth worse
// than linear shows. The default configuration is used (no SECRETFORM_STATE_KEY: every user its own password);
// the service has its usual KV v2 mount `secret/`. Exits non-zero when a target is missed.
import { spawn } from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import ts from 'typescript';
import { BenchUsageError, parseBenchArgs, USAGE, type BenchArgs } from './args';
import { findPostgresBin, startPostgres } from '../test/support/postgres';
import { secretEnv, seedFor } from './mix';
import { measureDrift, type DriftBenchKit } from './drift';
import { summariseProfile, summaryText } from './profile-summary';
import type { Seed } from '../src/devserver';
import { measureFleet } from './fleet';
import { measureOneMs } from './one-ms';
import type { Occupancy } from './dev-server-messages';

const ROOT = resolve(__dirname, '..');
const BIN = join(ROOT, 'bin', 'secretform.js');
const LATENCY_MS = 10;
/** A service in the same data centre: the client's CPU, not the network, is what a user waits for. */
const LOW_LATENCY_MS = 1;
const PARALLELISM = 10;
export const ROOT_TOKEN = 'bench-root-token';

export interface Row {
  figure: string;
  size: number;
  seconds?: number;
  requests?: number;
  floorSeconds?: number;
  /** Upper bound of seconds / floor (or of seconds when there is no floor, or of seconds / reference). */
  target?: number;
  targetKind?: 'ratio' | 'seconds' | 'reference';
  /** For targetKind `reference`: the time of the reference measured in the same run (the bare client). */
  referenceSeconds?: number;
  /** What the reference is, in the target column (default: the bare client). */
  referenceName?: string;
  peakRssMb?: number;
  cpuSeconds?: number;
  /** How long the dev server's thread was busy during the run (its own work: parsing, handlers, hashing). */
  serverBusySeconds?: number;
  rssTargetMb?: number;
  note?: string;
  /** A check other than the time (no changes after apply, one request per resource) failed. */
  failed?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// The dev server on its own thread.

export interface BenchServer {
  url: string;
  /** Requests handled so far, and how long the server thread has been busy (ms). */
  requestCount(): Promise<{ count: number; busyMs: number }>;
  /** [method, path, query] of the last `last` requests. */
  lastRequests(last: number): Promise<[string, string, string][]>;
  /** The most requests in flight at once at the server since the last call (or its start). */
  maxInFlight(): Promise<number>;
  /** The server's requests in flight since the last call (or its start): mean, idle share, first request. */
  occupancy(): Promise<Occupancy>;
  close(): Promise<void>;
}

export function startServerThread(size: number, latencyMs = LATENCY_MS, seed: { secretMount?: boolean; seed?: Seed; requestLogCap?: number } = {}, cpuProfFile?: string): Promise<BenchServer> {
  const worker = new Worker(join(__dirname, 'dev-server-worker.ts'), {
    workerData: { port: 0, rootToken: ROOT_TOKEN, seed: seed.seed ?? seedFor(size, seed), latencyMs, cpuProfFile, ...(seed.requestLogCap === undefined ? {} : { requestLogCap: seed.requestLogCap }) },
    execArgv: ['--require', require.resolve('tsx/cjs')],
  });
  return benchServerOver(worker, (message) => worker.postMessage(message), async () => {
    await worker.terminate();
  });
}

/**
 * The bench's side of a dev server that answers dev-server-messages.ts's messages over `carrier` (a worker thread
 * or a child process: both emit `message` and `error`); resolves once the server says it is ready.
 */
export function benchServerOver(carrier: EventEmitter, send: (message: object) => void, release: () => Promise<void>): Promise<BenchServer> {
  const next = (kind: string) =>
    new Promise<{ kind: string; url?: string; count?: number; busyMs?: number; reads?: [string, string, string][]; max?: number; occupancy?: Occupancy }>((done, reject) => {
      const onError = (error: Error) => {
        carrier.off('message', onMessage);
        reject(error);
      };
      const onMessage = (message: { kind: string; message?: string }) => {
        if (message.kind !== 'error' && message.kind !== kind) return;
        carrier.off('message', onMessage);
        carrier.off('error', onError);
        if (message.kind === 'error') reject(new Error(message.message));
        else done(message);
      };
      carrier.on('message', onMessage);
      carrier.once('error', onError);
    });
  return next('ready').then(({ url }) => ({
    url: url!,
    requestCount: () => {
      const reply = next('count');
      send({ kind: 'count' });
      return reply.then((m) => ({ count: m.count!, busyMs: m.busyMs! }));
    },
    lastRequests: (last: number) => {
      const reply = next('reads');
      send({ kind: 'reads', last });
      return reply.then((m) => m.reads!);
    },
    maxInFlight: () => {
      const reply = next('in-flight');
      send({ kind: 'in-flight' });
      return reply.then((m) => m.max!);
    },
    occupancy: () => {
      const reply = next('occupancy');
      send({ kind: 'occupancy' });
      return reply.then((m) => m.occupancy!);
    },
    close: async () => {
      const closed = next('closed');
      send({ kind: 'close' });
      await closed;
      await release();
    },
  }));
}

// ---------------------------------------------------------------------------------------------------------------
// Running the real binary.

export interface CliRun {
  code: number | null;
  seconds: number;
  stdout: string;
  stderr: string;
  peakRssMb: number | undefined;
  /** CPU time of the secretform process (user + system). */
  cpuSeconds: number | undefined;
  timedOut: boolean;
}

export function runSecretform(args: string[], cwd: string, env: NodeJS.ProcessEnv, options: { timeoutS?: number; cpuProfDir?: string } = {}): Promise<CliRun> {
  return runNode([BIN, ...args], env, { ...options, cwd });
}

/** A node process, timed from spawn to exit, with its own peak RSS and CPU time. */
export { runNode as runNodeExport };
function runNode(args: string[], env: NodeJS.ProcessEnv, options: { cwd?: string; timeoutS?: number; cpuProfDir?: string } = {}): Promise<CliRun> {
  const rssDir = mkdtempSync(join(tmpdir(), 'secretform-bench-rss-'));
  const rssFile = join(rssDir, 'rss');
  const nodeArgs = ['--require', join(__dirname, 'child-rss.js')];
  if (options.cpuProfDir) nodeArgs.push('--cpu-prof', '--cpu-prof-dir', options.cpuProfDir);
  return new Promise((done) => {
    const started = performance.now();
    const child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: options.cwd ?? ROOT, env: { ...env, BENCH_RSS_FILE: rssFile }, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    let timedOut = false;
    const timers: NodeJS.Timeout[] = [];
    if (options.timeoutS !== undefined) {
      timers.push(setTimeout(() => {
        timedOut = true;
        child.kill('SIGTERM');
        timers.push(setTimeout(() => child.kill('SIGKILL'), 60_000));
      }, options.timeoutS * 1000));
    }
    child.on('close', (code) => {
      const seconds = (performance.now() - started) / 1000;
      for (const timer of timers) clearTimeout(timer);
      const usage = existsSync(rssFile) ? (JSON.parse(readFileSync(rssFile, 'utf8')) as { maxRssKb: number; cpuMicros: number }) : undefined;
      rmSync(rssDir, { recursive: true, force: true });
      done({
        code,
        seconds,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
        peakRssMb: usage && usage.maxRssKb / 1024,
        cpuSeconds: usage && usage.cpuMicros / 1e6,
        timedOut,
      });
    });
  });
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * A project directory whose cdktf app is the bench stack of `size` resources: bench/app.ts and bench/mix.ts
 * transpiled to plain JavaScript, as an app compiled before synth runs (no TypeScript loader in the timing).
 */
export function benchProject(size: number): string {
  const dir = mkdtempSync(join(tmpdir(), `secretform-bench-${size}-`));
  for (const name of ['app', 'mix']) {
    const source = readFileSync(join(__dirname, `${name}.ts`), 'utf8');
    const output = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
    writeFileSync(join(dir, `${name}.js`), output.outputText);
  }
  const app = `${JSON.stringify(process.execPath)} app.js`;
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app, output: 'cdktf.out' }, null, 2));
  return dir;
}

/** The environment of a user who configured nothing but the service (and the stack's secrets). */
export function defaultEnv(server: Pick<BenchServer, 'url'>, size: number): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'SYSTEMROOT']) if (process.env[name] !== undefined) env[name] = process.env[name];
  return { ...env, ...secretEnv(size), BENCH_SIZE: String(size), BENCH_ROOT: ROOT, SERVICE_ADDR: server.url, SERVICE_TOKEN: ROOT_TOKEN, NO_COLOR: '1' };
}

// ---------------------------------------------------------------------------------------------------------------
// The measurements of one size.

const PLAN_RUNS_SMALL = 3;
const POSTGRES_PLAN_RUNS = 5;

/** Time of a run, the requests the server saw during it and how long the server thread was busy meanwhile. */
export async function measured(server: BenchServer, run: () => Promise<CliRun>): Promise<CliRun & { requests: number; serverBusySeconds: number }> {
  const before = await server.requestCount();
  const result = await run();
  const after = await server.requestCount();
  return { ...result, requests: after.count - before.count, serverBusySeconds: (after.busyMs - before.busyMs) / 1000 };
}

function changesIn(planJson: string): number {
  const plan = JSON.parse(planJson) as { resource_changes?: { actions: string[] }[] };
  return (plan.resource_changes ?? []).filter((change) => !(change.actions.length === 1 && change.actions[0] === 'no-op')).length;
}

export function failure(run: CliRun, what: string): string {
  if (run.timedOut) return `${what} did not finish`;
  return `${what} exited ${run.code}: ${run.stderr.trim().split('\n').slice(-3).join(' | ').slice(0, 300)}`;
}

export function progress(what: string, run: CliRun & { requests?: number }): void {
  process.stdout.write(`  ${what}: ${run.seconds.toFixed(2)} s${run.requests === undefined ? '' : `, ${run.requests} requests`}${run.code === 0 ? '' : ` (exit ${run.code}${run.timedOut ? ', stopped' : ''})`}\n`);
}

async function measureSize(size: number, args: BenchArgs, rows: Row[], serverMemory: Record<number, number>, notes: string[]): Promise<void> {
  const project = benchProject(size);
  const prof = args.cpuProfDir ? { cpuProfDir: resolve(args.cpuProfDir, String(size)) } : {};
  const server = await startServerThread(size);
  try {
    const env = defaultEnv(server, size);

    // Synth: the app builds `size` constructs and writes cdktf.out.
    // The app reads its size and paths from BENCH_* variables: named, as a user names an app's settings.
    const synth = await runSecretform(['synth', '--synth-env', 'BENCH_ROOT', '--synth-env', 'BENCH_SIZE', '--synth-env', 'BENCH_STACK'], project, env, prof);
    progress('synth', synth);
    if (synth.code !== 0) throw new Error(failure(synth, 'synth'));
    rows.push({ figure: 'synth', size, seconds: synth.seconds, target: size === 1000 ? 3 : undefined, targetKind: 'seconds', note: 'CPU and RSS: secretform only, not the app' , peakRssMb: synth.peakRssMb, cpuSeconds: synth.cpuSeconds });

    // Apply: every resource created, with the default configuration (the stack's key is created on the service).
    const applied = await measured(server, () => runSecretform(['apply', '--no-synth', '--auto-approve'], project, env, { ...prof, timeoutS: args.applyTimeoutS }));
    progress('apply', applied);
    const applyTarget = size === 1000 ? 1.3 : size === 10000 ? 1.5 : undefined;
    rows.push({
      figure: 'apply (creates)',
      size,
      seconds: applied.timedOut ? undefined : applied.seconds,
      requests: applied.requests,
      floorSeconds: (applied.requests * LATENCY_MS) / PARALLELISM / 1000,
      target: applyTarget,
      targetKind: 'ratio',
      peakRssMb: applied.peakRssMb,
      cpuSeconds: applied.cpuSeconds,
      serverBusySeconds: applied.serverBusySeconds,
      note: applied.timedOut ? `stopped after ${args.applyTimeoutS} s (state keeps what succeeded)` : undefined,
      failed: applied.code !== 0 && !applied.timedOut ? failure(applied, 'apply') : undefined,
    });

    // Plan: the daily case (refresh everything, find nothing to do when the apply finished).
    const runs = size <= 1000 ? PLAN_RUNS_SMALL : 1;
    const plans: (CliRun & { requests: number; serverBusySeconds: number })[] = [];
    for (let i = 0; i < runs; i++) {
      plans.push(await measured(server, () => runSecretform(['plan', '--no-synth', '--format', 'json'], project, env, prof)));
      progress('plan', plans[i]);
    }
    const planned = planRow('plan (default: no configuration)', size, plans, applied.timedOut ? undefined : 0, size === 1000 ? 1.2 : size === 10000 ? 1.3 : undefined, size === 10000 ? 400 : undefined);
    rows.push(planned);
    const bare = await measureBareClient(server, plans[plans.length - 1].requests, runs, prof.cpuProfDir && join(prof.cpuProfDir, 'bare-client'));
    progress('bare client, the same reads', bare);
    rows.push({
      figure: 'bare HTTP client, the plan\'s reads',
      size,
      seconds: bare.seconds,
      requests: bare.requests,
      floorSeconds: (bare.requests * LATENCY_MS) / PARALLELISM / 1000,
      serverBusySeconds: bare.serverBusySeconds,
      note: `reference: node + undici Pool + the same GETs, nothing else${runs > 1 ? `; median of ${runs}` : ''}`,
      failed: bare.code === 0 ? undefined : failure(bare, 'bare client'),
    });
    if (planned.seconds !== undefined && bare.code === 0) planned.note = [planned.note, `${(planned.seconds / bare.seconds).toFixed(2)}x the bare client`].filter(Boolean).join('; ');
    serverMemory[size] = process.memoryUsage().rss / 1024 / 1024;

    await measureLowLatency(size, project, args, rows, notes);
    if (size === 1000) await measurePostgresState(size, project, rows);

    if (size === 1000) {
      // The same with SECRETFORM_STATE_KEY (its own stack state, applied with that key).
      const keyed = { ...env, SECRETFORM_STATE_KEY: 'bench-state-key' };
      const statePath = join(project, 'keyed.state.json');
      const setup = await runSecretform(['apply', '--no-synth', '--auto-approve', '--state', statePath], project, keyed);
      if (setup.code !== 0) throw new Error(failure(setup, 'apply with a state key (setup)'));
      const keyedPlans: (CliRun & { requests: number; serverBusySeconds: number })[] = [];
      for (let i = 0; i < PLAN_RUNS_SMALL; i++) {
        keyedPlans.push(await measured(server, () => runSecretform(['plan', '--no-synth', '--format', 'json', '--state', statePath], project, keyed, prof)));
        progress('plan with a state key', keyedPlans[i]);
      }
      rows.push(planRow('plan (SECRETFORM_STATE_KEY)', size, keyedPlans, 0, 1.2, undefined));
    }
  } finally {
    await server.close();
    rmSync(project, { recursive: true, force: true });
  }
}

/**
 * The plan's reads sent again by bench/bare-client.js (a fresh node process doing nothing but those requests), timed
 * the same way: what any client pays on this machine against this server.
 */
export async function measureBareClient(server: BenchServer, requests: number, runs: number, cpuProfDir?: string): Promise<CliRun & { requests: number; serverBusySeconds: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'secretform-bench-reads-'));
  try {
    const readsFile = join(dir, 'reads.json');
    writeFileSync(readsFile, JSON.stringify({ url: server.url, parallelism: PARALLELISM, reads: await server.lastRequests(requests) }));
    const results: (CliRun & { requests: number; serverBusySeconds: number })[] = [];
    for (let i = 0; i < runs; i++) {
      results.push(await measured(server, () => runNode([join(__dirname, 'bare-client.js'), readsFile], { PATH: process.env.PATH, SERVICE_TOKEN: ROOT_TOKEN }, cpuProfDir ? { cpuProfDir } : {})));
    }
    const failed = results.find((run) => run.code !== 0);
    if (failed) return failed;
    return { ...results[0], seconds: median(results.map((run) => run.seconds)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function planRow(figure: string, size: number, plans: (CliRun & { requests: number; serverBusySeconds: number })[], expectedChanges: number | undefined, target: number | undefined, rssTargetMb: number | undefined, latencyMs = LATENCY_MS): Row {
  const bad = plans.find((run) => run.code !== 0);
  if (bad) return { figure, size, failed: failure(bad, 'plan') };
  const requests = Math.max(...plans.map((run) => run.requests));
  const changes = Math.max(...plans.map((run) => changesIn(run.stdout)));
  const problems: string[] = [];
  if (expectedChanges !== undefined && changes !== expectedChanges) problems.push(`${changes} changes planned, expected ${expectedChanges}`);
  if (requests > size) problems.push(`${requests} requests for ${size} resources (at most one per resource)`);
  return {
    figure,
    size,
    seconds: median(plans.map((run) => run.seconds)),
    requests,
    floorSeconds: floorOf(requests, latencyMs),
    target,
    targetKind: 'ratio',
    peakRssMb: Math.max(...plans.map((run) => run.peakRssMb ?? 0)),
    cpuSeconds: median(plans.map((run) => run.cpuSeconds ?? 0)),
    serverBusySeconds: median(plans.map((run) => run.serverBusySeconds)),
    rssTargetMb,
    note: expectedChanges === undefined ? `${changes} changes left by the unfinished apply` : plans.length > 1 ? `median of ${plans.length}` : undefined,
    failed: problems.length > 0 ? problems.join('; ') : undefined,
  };
}

/** The time the requests take at `latencyMs` each, `PARALLELISM` at a time: what no client can beat. */
function floorOf(requests: number, latencyMs: number): number {
  return (requests * latencyMs) / PARALLELISM / 1000;
}

/**
 * The same stack against a server 1 ms away (same data centre), its own state: the plan against the bare client
 * sending the same reads at the same latency, the apply against its floor, and the client's CPU per resource.
 */
async function measureLowLatency(size: number, project: string, args: BenchArgs, rows: Row[], notes: string[]): Promise<void> {
  const prof = args.cpuProfDir ? { cpuProfDir: resolve(args.cpuProfDir, `${size}-1ms`) } : {};
  // With --cpu-prof the dev server thread is profiled too: what the service's side of the 1 ms runs costs.
  const serverProfile = prof.cpuProfDir && join(prof.cpuProfDir, 'dev-server.cpuprofile');
  if (prof.cpuProfDir) mkdirSync(prof.cpuProfDir, { recursive: true });
  const server = await startServerThread(size, LOW_LATENCY_MS, {}, serverProfile);
  try {
    const env = defaultEnv(server, size);
    const statePath = join(project, 'low-latency.state.json');
    const applied = await measured(server, () => runSecretform(['apply', '--no-synth', '--auto-approve', '--state', statePath], project, env, { ...prof, timeoutS: args.applyTimeoutS }));
    progress('apply, 1 ms', applied);
    // At 1 ms the service's own work (the dev server hashes each user's password with bcrypt) takes longer than the
    // round trips: no client finishes before the server has done it, so the target is against the larger of the two.
    const floor = floorOf(applied.requests, LOW_LATENCY_MS);
    const serverBound = applied.serverBusySeconds > floor;
    rows.push({
      figure: 'apply (creates), 1 ms latency',
      size,
      seconds: applied.timedOut ? undefined : applied.seconds,
      requests: applied.requests,
      floorSeconds: floor,
      target: size === 10000 ? 2 : undefined,
      targetKind: 'reference',
      referenceSeconds: Math.max(floor, applied.serverBusySeconds),
      note: serverBound ? `server-bound: its busy time ${applied.serverBusySeconds.toFixed(2)} s is above the floor; ${(applied.seconds / applied.serverBusySeconds).toFixed(2)}x it` : undefined,
      peakRssMb: applied.peakRssMb,
      cpuSeconds: applied.cpuSeconds,
      serverBusySeconds: applied.serverBusySeconds,
      failed: applied.code !== 0 ? failure(applied, 'apply') : undefined,
    });
    // The plan and its reference alternate, each run of the bare client sending the reads of the plan just before
    // it: both see the machine as it is at that moment (its speed drifts by several percent over minutes), and
    // each figure is a median of PLAN_RUNS_SMALL at every size.
    const plans: (CliRun & { requests: number; serverBusySeconds: number })[] = [];
    const bares: (CliRun & { requests: number; serverBusySeconds: number })[] = [];
    for (let i = 0; i < PLAN_RUNS_SMALL; i++) {
      plans.push(await measured(server, () => runSecretform(['plan', '--no-synth', '--format', 'json', '--state', statePath], project, env, prof)));
      progress('plan, 1 ms', plans[i]);
      bares.push(await measureBareClient(server, plans[i].requests, 1, prof.cpuProfDir && join(prof.cpuProfDir, 'bare-client')));
      progress('bare client, 1 ms', bares[i]);
    }
    const planned = planRow('plan, 1 ms latency', size, plans, 0, undefined, undefined, LOW_LATENCY_MS);
    const failedBare = bares.find((run) => run.code !== 0);
    const bare = failedBare ?? {
      ...bares[0],
      seconds: median(bares.map((run) => run.seconds)),
      cpuSeconds: median(bares.map((run) => run.cpuSeconds ?? 0)),
      serverBusySeconds: median(bares.map((run) => run.serverBusySeconds)),
    };
    if (bare.code === 0 && planned.seconds !== undefined) {
      planned.targetKind = 'reference';
      planned.referenceSeconds = bare.seconds;
      planned.target = size === 10000 ? 1.5 : undefined;
      planned.note = [planned.note, `${(planned.seconds / bare.seconds).toFixed(2)}x the bare client`].filter(Boolean).join('; ');
    }
    rows.push(planned, {
      figure: 'bare HTTP client, the plan\'s reads, 1 ms',
      size,
      seconds: bare.seconds,
      requests: bare.requests,
      floorSeconds: floorOf(bare.requests, LOW_LATENCY_MS),
      cpuSeconds: bare.cpuSeconds,
      serverBusySeconds: bare.serverBusySeconds,
      note: 'reference of the 1 ms plan',
      failed: bare.code === 0 ? undefined : failure(bare, 'bare client'),
    });
  } finally {
    await server.close();
  }
  if (serverProfile && existsSync(serverProfile)) notes.push(`dev server thread at 1 ms, ${size.toLocaleString('en-US')} resources (apply, plans, bare client): ${summaryText(summariseProfile(serverProfile))} (${serverProfile})`);
}

/**
 * A team's default: state in PostgreSQL, no other setting, on a server without a KV v2 mount `secret/` (the
 * fingerprint key then lives in the state database's own table).
 */
async function measurePostgresState(size: number, project: string, rows: Row[]): Promise<void> {
  const figure = 'plan (PostgreSQL state, no secret/ mount)';
  const found = findPostgresBin();
  if (!('bin' in found)) {
    rows.push({ figure, size, note: `not measured: ${found.missing}` });
    return;
  }
  const pg = await startPostgres();
  const server = await startServerThread(size, LATENCY_MS, { secretMount: false });
  try {
    const env = { ...defaultEnv(server, size), SECRETFORM_STATE: pg.url('bench') };
    const setup = await runSecretform(['apply', '--no-synth', '--auto-approve'], project, env);
    if (setup.code !== 0) throw new Error(failure(setup, 'apply with PostgreSQL state (setup)'));
    // The rows the setup wrote would wake the database's autovacuum during the plans, on the same two cores (a
    // team's database runs elsewhere): its work is done now. Five plans: the PostgreSQL row varied most.
    const admin = await pg.admin();
    try {
      await admin.query('VACUUM ANALYZE');
    } finally {
      await admin.end();
    }
    const plans: (CliRun & { requests: number; serverBusySeconds: number })[] = [];
    for (let i = 0; i < POSTGRES_PLAN_RUNS; i++) {
      plans.push(await measured(server, () => runSecretform(['plan', '--no-synth', '--format', 'json'], project, env)));
      progress('plan with PostgreSQL state', plans[i]);
    }
    rows.push(planRow(figure, size, plans, 0, 1.3, undefined));
  } finally {
    await server.close();
    pg.stop();
  }
}

/**
 * `--huge`: plan and apply of `size` resources against the dev server with no added latency (what secretform
 * itself costs), time and peak RSS; synth, with the app alone and cdktf alone (the same number of plain
 * terraform_data resources) shown apart.
 */
async function measureHuge(size: number, args: BenchArgs, rows: Row[]): Promise<void> {
  const project = benchProject(size);
  const server = await startServerThread(size, 0);
  try {
    const env = defaultEnv(server, size);
    const appEnv = { ...env, CDKTF_OUTDIR: join(project, 'app-only.out') };
    const appOnly = await runNode([join(project, 'app.js')], appEnv, { cwd: project });
    progress('app alone', appOnly);
    const plain = await runNode([join(project, 'app.js')], { ...appEnv, BENCH_PLAIN: '1' }, { cwd: project });
    progress('cdktf alone', plain);
    rows.push(
      { figure: 'huge: cdktf alone (plain terraform_data)', size, seconds: plain.seconds, peakRssMb: plain.peakRssMb, cpuSeconds: plain.cpuSeconds, failed: plain.code === 0 ? undefined : failure(plain, 'cdktf app') },
      { figure: 'huge: the app alone (cdktf + secretform constructs)', size, seconds: appOnly.seconds, peakRssMb: appOnly.peakRssMb, cpuSeconds: appOnly.cpuSeconds, note: `${(appOnly.seconds / plain.seconds).toFixed(2)}x cdktf alone (one run each)`, failed: appOnly.code === 0 ? undefined : failure(appOnly, 'app') },
    );
    const synth = await runSecretform(['synth', '--synth-env', 'BENCH_ROOT', '--synth-env', 'BENCH_SIZE', '--synth-env', 'BENCH_STACK'], project, env);
    progress('synth', synth);
    if (synth.code !== 0) throw new Error(failure(synth, 'synth'));
    rows.push({ figure: 'huge: secretform synth (runs the app)', size, seconds: synth.seconds, peakRssMb: synth.peakRssMb, cpuSeconds: synth.cpuSeconds, note: 'CPU and RSS: secretform only' });
    const applied = await measured(server, () => runSecretform(['apply', '--no-synth', '--auto-approve'], project, env, { timeoutS: args.applyTimeoutS }));
    progress('apply', applied);
    rows.push({ figure: 'huge: apply (creates), no latency', size, seconds: applied.timedOut ? undefined : applied.seconds, requests: applied.requests, peakRssMb: applied.peakRssMb, cpuSeconds: applied.cpuSeconds, serverBusySeconds: applied.serverBusySeconds, rssTargetMb: size === 100000 ? 1536 : undefined, failed: applied.code !== 0 ? failure(applied, 'apply') : undefined });
    const planned = await measured(server, () => runSecretform(['plan', '--no-synth', '--format', 'json'], project, env));
    progress('plan', planned);
    rows.push({ ...planRow('huge: plan, no latency', size, [planned], applied.code === 0 ? 0 : undefined, undefined, size === 100000 ? 1536 : undefined, 0), floorSeconds: undefined });
  } finally {
    await server.close();
    rmSync(project, { recursive: true, force: true });
  }
}

/** How long this machine takes to start node and do nothing (what `version` cannot go below). */
async function nodeStartSeconds(): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await new Promise((done) => spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).on('close', done));
    times.push((performance.now() - started) / 1000);
  }
  return median(times);
}

async function measureVersion(rows: Row[]): Promise<void> {
  const times: number[] = [];
  let output = '';
  for (let i = 0; i < 5; i++) {
    const run = await runSecretform(['version'], ROOT, { PATH: process.env.PATH });
    if (i === 0) rows.push({ figure: 'node -e 0 (for reference)', size: 0, seconds: await nodeStartSeconds() });
    times.push(run.seconds);
    output = run.stdout;
  }
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  rows.push({
    figure: 'secretform version',
    size: 0,
    seconds: median(times),
    target: 0.3,
    targetKind: 'seconds',
    note: 'median of 5',
    failed: output === `secretform ${version}\n` ? undefined : `printed ${JSON.stringify(output)}`,
  });
}

/** What bench/drift.ts needs of this file. */
const DRIFT_KIT: DriftBenchKit = {
  startServer: (size) => startServerThread(size),
  benchProject,
  env: defaultEnv,
  run: (args, cwd, env) => runSecretform(args, cwd, env),
  rootToken: ROOT_TOKEN,
  latencyMs: LATENCY_MS,
  parallelism: PARALLELISM,
};

// ---------------------------------------------------------------------------------------------------------------
// Report.

function verdict(row: Row): 'OK' | 'MISSED' | '' {
  if (row.failed) return 'MISSED';
  if (row.rssTargetMb !== undefined && (row.peakRssMb === undefined || row.peakRssMb > row.rssTargetMb)) return 'MISSED';
  if (row.target === undefined) return '';
  if (row.seconds === undefined) return 'MISSED';
  const value = row.targetKind === 'ratio' ? row.seconds / row.floorSeconds! : row.targetKind === 'reference' ? row.seconds / row.referenceSeconds! : row.seconds;
  return value <= row.target ? 'OK' : 'MISSED';
}

function targetText(row: Row): string {
  if (row.target === undefined) return '';
  if (row.targetKind === 'ratio') return `<= ${row.target}x`;
  if (row.targetKind === 'reference' && row.referenceName !== undefined) return `<= ${row.target}x ${row.referenceName}`;
  if (row.targetKind === 'reference') return row.figure.startsWith('apply') ? `<= ${row.target}x floor or server busy` : `<= ${row.target}x bare client`;
  return `<= ${row.target} s`;
}

function table(rows: Row[]): string {
  const header = ['figure', 'resources', 'time s', 'requests', 'floor s', 'ratio', 'target', 'CPU s', 'CPU ms/resource', 'peak RSS MB', 'server busy s', 'result', 'note'];
  const lines = rows.map((row) => [
    row.figure,
    row.size === 0 ? '' : row.size.toLocaleString('en-US'),
    row.seconds === undefined ? '-' : row.seconds.toFixed(2),
    row.requests === undefined ? '' : String(row.requests),
    row.floorSeconds === undefined ? '' : row.floorSeconds.toFixed(2),
    row.floorSeconds === undefined || row.seconds === undefined ? '' : `${(row.seconds / row.floorSeconds).toFixed(2)}x`,
    [targetText(row), row.rssTargetMb ? `<= ${row.rssTargetMb} MB` : ''].filter(Boolean).join(', '),
    row.cpuSeconds === undefined ? '' : row.cpuSeconds.toFixed(2),
    row.cpuSeconds === undefined || row.size === 0 ? '' : ((row.cpuSeconds * 1000) / row.size).toFixed(3),
    row.peakRssMb === undefined || row.peakRssMb === 0 ? '' : row.peakRssMb.toFixed(0),
    row.serverBusySeconds === undefined ? '' : row.serverBusySeconds.toFixed(2),
    verdict(row),
    [row.note, row.failed].filter(Boolean).join('; '),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i].length)));
  const format = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [format(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...lines.map(format)].join('\n');
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2));
  if (args.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (args.cpuProfDir) mkdirSync(args.cpuProfDir, { recursive: true });
  process.stdout.write(
    `secretform bench: load average ${loadavg().map((load) => load.toFixed(1)).join(", ")}; node ${process.version}, ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), ${process.platform}/${process.arch}; ` +
      (args.synthShapes
        ? `synth only (no service), stacks x objects: ${args.synthShapes.map((shape) => `${shape.stacks} x ${shape.size}`).join(', ')}\n`
        : `${args.fleet ? 'dev servers in processes of their own' : args.oneMs ? (args.serviceAddr ? `the server at ${args.serviceAddr}` : 'dev server in a process of its own') : 'dev server on its own thread'}, ${args.huge ? 'no added latency' : `${LATENCY_MS} ms added latency per request (and ${LOW_LATENCY_MS} ms for the 1 ms rows)`}, parallelism ${PARALLELISM}; ${args.fleet ? `a fleet of ${args.fleet.stacks} stacks x ${args.fleet.objects} on 4 servers` : `sizes ${args.sizes.join(', ')}`}\n`),
  );
  process.stdout.write('building dist/ and its CLI bundle (the secretform binary runs from it)...\n');
  const built = await new Promise<number | null>((done) => spawn(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' }).on('close', done));
  if (built !== 0) throw new Error('tsc -p tsconfig.build.json failed');
  const bundled = await new Promise<number | null>((done) => spawn(process.execPath, [join(ROOT, 'scripts', 'bundle-cli.js')], { stdio: 'inherit' }).on('close', done));
  if (bundled !== 0) throw new Error('scripts/bundle-cli.js failed');

  const rows: Row[] = [];
  const serverMemory: Record<number, number> = {};
  const notes: string[] = [];
  if (args.synthShapes) {
    // Loaded here: synth-compare.ts uses this module's helpers.
    const { measureSynthShape } = await import('./synth-compare');
    for (const shape of args.synthShapes) {
      process.stdout.write(`measuring synth, ${shape.stacks} x ${shape.size.toLocaleString('en-US')} objects...\n`);
      rows.push(...await measureSynthShape(shape, args, notes));
    }
  }
  if (args.fleet) {
    await measureFleet(args.fleet, args.applyTimeoutS, rows, notes, args.cpuProfDir && resolve(args.cpuProfDir, 'fleet'), args.fleetCacheDir && resolve(args.fleetCacheDir));
  } else if (args.oneMs) {
    for (const size of args.sizes) await measureOneMs(size, args.serviceAddr, rows, notes, args.cpuProfDir && resolve(args.cpuProfDir));
  } else if (!args.huge && !args.drift && !args.synth) await measureVersion(rows);
  for (const size of args.fleet || args.oneMs || args.synth ? [] : args.sizes) {
    process.stdout.write(`measuring ${size.toLocaleString('en-US')} resources${args.huge ? ' (simulation, no added latency)' : args.drift ? ' (drift rows only)' : ''}...\n`);
    if (args.huge) await measureHuge(size, args, rows);
    else if (args.drift) await measureDrift(size, DRIFT_KIT, rows);
    else await measureSize(size, args, rows, serverMemory, notes);
    // The drift rows of a full run: at 10,000, as issue 32 asks (alone: `npm run bench -- --drift`).
    if (!args.huge && !args.drift && size === 10000) {
      process.stdout.write('measuring the drift rows at 10,000 resources...\n');
      await measureDrift(size, DRIFT_KIT, rows);
    }
  }
  rows.sort((a, b) => a.figure.localeCompare(b.figure) || a.size - b.size);
  process.stdout.write(`\n${table(rows)}\n\n`);
  const latencies = args.oneMs ? `${LOW_LATENCY_MS} ms` : `${LATENCY_MS} ms (${LOW_LATENCY_MS} ms in the 1 ms rows)`;
  process.stdout.write(`floor = requests x ${latencies} / ${PARALLELISM}; CPU s and peak RSS are the secretform process's own (user + system time, maxRSS); server busy s: the dev server thread's event loop (its work is inside the latency until it saturates).\n`);
  process.stdout.write(`load average at the end: ${loadavg().map((load) => load.toFixed(1)).join(', ')} (on ${cpus().length} cores; a loaded machine stretches every time)\n`);
  for (const note of notes) process.stdout.write(`${note}\n`);
  // Only the default rows run the server on the bench's thread; the fleet and the 1 ms row start processes.
  if (Object.keys(serverMemory).length > 0) {
    process.stdout.write(`dev server (bench process with the server thread) RSS after each size: ${Object.entries(serverMemory).map(([size, mb]) => `${size}: ${mb.toFixed(0)} MB`).join(', ')}\n`);
  }
  const summary = summaryLine(rows);
  process.stdout.write(`${summary.line}\n`);
  if (summary.missed) process.exitCode = 1;
}

/**
 * The run's last line: the rows that missed, else that every target was met, or, when no row carries a target
 * (`--one-ms --sizes 1000`: the targets are at 10,000), that none applies rather than a pass nothing earned.
 */
export function summaryLine(rows: readonly Row[]): { line: string; missed: boolean } {
  const missed = rows.filter((row) => verdict(row) === 'MISSED');
  if (missed.length > 0) return { line: `MISSED: ${missed.map((row) => `${row.figure}${row.size ? ` at ${row.size}` : ''}`).join(', ')}`, missed: true };
  const targeted = rows.some((row) => row.target !== undefined || row.rssTargetMb !== undefined);
  return { line: targeted ? 'every target met' : 'no target applies to the rows measured (the figures are for reference)', missed: false };
}

if (require.main === module) {
  main().catch((err) => {
    if (err instanceof BenchUsageError) {
      process.stderr.write(`bench: ${err.message}\n${USAGE}\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exitCode = 1;
  });
}
