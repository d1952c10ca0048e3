// `npx tsx bench/changed-stacks.ts [--stacks N] [--objects M] [--runs R]`: the change-detection rows of issue 35, through the
// real `secretform` process with PostgreSQL state, against the dev server on its own thread (10 ms added latency,
// parallelism 10). A fleet of N stacks (default 100) of M objects each (default 1,000: a userpass mount and its
// users), applied once; then a pull request changes one stack, and:
//   - `stacks --changed` after synth: under 1 s, and no request reaches the server (counted at the server);
//   - `plan --changed` (synth included) <= synth + 1.3x the plan of that one stack alone (`plan --no-synth
//     --stack NAME`), each measured in this run. Exits non-zero when a target is missed.
// Each figure is the median of R runs (default 3; at 100 x 1,000 each `plan --changed` synthesizes the fleet again).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { findPostgresBin, startPostgres } from '../test/support/postgres';
import { measured, runSecretform, startServerThread } from './run';

const ROOT = resolve(__dirname, '..');
const ROOT_TOKEN = 'bench-root-token';
const CHANGED_INDEX = 7;

function argValue(name: string, fallback: number, least = 2): number {
  const at = process.argv.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < least) throw new Error(`${name} takes a whole number of at least ${least}`);
  return value;
}

/** The fleet's app: N stacks, each a userpass mount and M - 1 users; BENCH_FLEET_CHANGED changes one user of one stack. */
function fleetProject(stacks: number, objects: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'secretform-bench-changed-'));
  writeFileSync(join(dir, 'main.js'), `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
const changed = process.env.BENCH_FLEET_CHANGED;
for (let s = 0; s < ${stacks}; s++) {
  const stack = new TerraformStack(app, 'fleet-' + s);
  const mount = new sf.AuthMount(stack, 'users', { path: 'fleet-' + s, type: 'userpass' });
  for (let u = 1; u < ${objects}; u++) {
    const ttl = changed === String(s) && u === 1 ? '2h' : '1h';
    new sf.UserpassUser(stack, 'u' + u, { mount, username: 'u' + u, password: sf.SecretValue.fromEnv('BENCH_FLEET_PASSWORD'), tokenTtl: ttl, tokenPolicies: ['default'] });
  }
}
app.synth();
`);
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: `${JSON.stringify(process.execPath)} main.js` }));
  return dir;
}

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

async function main(): Promise<void> {
  const stacks = argValue('--stacks', 100);
  const objects = argValue('--objects', 1000);
  const RUNS = argValue('--runs', 3, 1);
  const found = findPostgresBin();
  if (!('bin' in found)) throw new Error(`PostgreSQL is needed: ${found.missing}`);
  process.stdout.write(`change detection bench: ${stacks} stacks x ${objects} objects, PostgreSQL state, 10 ms added latency; load average ${loadavg().map((l) => l.toFixed(1)).join(', ')} on ${cpus().length} cores\n`);
  const built = await new Promise<number | null>((done) => spawn(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { stdio: 'inherit' }).on('close', done));
  if (built !== 0) throw new Error('tsc -p tsconfig.build.json failed');
  const bundled = await new Promise<number | null>((done) => spawn(process.execPath, [join(ROOT, 'scripts', 'bundle-cli.js')], { stdio: 'inherit' }).on('close', done));
  if (bundled !== 0) throw new Error('scripts/bundle-cli.js failed');

  const pg = await startPostgres();
  const server = await startServerThread(1000);
  const project = fleetProject(stacks, objects);
  const changedStack = `fleet-${CHANGED_INDEX}`;
  const base: NodeJS.ProcessEnv = {};
  for (const name of ['PATH', 'HOME', 'TMPDIR', 'LANG']) if (process.env[name] !== undefined) base[name] = process.env[name];
  const env = { ...base, SERVICE_ADDR: server.url, SERVICE_TOKEN: ROOT_TOKEN, SECRETFORM_STATE: pg.url('bench_changed'), SECRETFORM_STATE_KEY: 'bench-key', BENCH_FLEET_PASSWORD: 'bench-fleet-password', NO_COLOR: '1' };
  const lines: string[] = [];
  let missed = false;
  const check = (ok: boolean, text: string) => {
    lines.push(`${ok ? 'OK    ' : 'MISSED'} ${text}`);
    if (!ok) missed = true;
  };
  try {
    const synth0 = await runSecretform(['synth', '--synth-env', 'BENCH_FLEET_CHANGED'], project, env);
    if (synth0.code !== 0) throw new Error(`synth failed: ${synth0.stderr}`);
    process.stdout.write(`synth of the fleet: ${synth0.seconds.toFixed(1)} s; applying it (setup, not measured)...\n`);
    // Every stack in one run: the run's stacks share at most 10 connections to the database (the test cluster
    // allows 50), however many stacks it applies.
    const setupStarted = performance.now();
    const setup = await runSecretform(['apply', '--no-synth', '--stack', '*', '--auto-approve'], project, env);
    if (setup.code !== 0) throw new Error(`apply failed: ${setup.stderr.slice(-2000)}`);
    process.stdout.write(`apply: ${((performance.now() - setupStarted) / 1000).toFixed(1)} s\n`);

    const changedEnv = { ...env, BENCH_FLEET_CHANGED: String(CHANGED_INDEX) };
    const synth = await runSecretform(['synth', '--synth-env', 'BENCH_FLEET_CHANGED'], project, changedEnv);
    if (synth.code !== 0) throw new Error(`synth failed: ${synth.stderr}`);

    const listings = [];
    for (let i = 0; i < RUNS; i++) listings.push(await measured(server, () => runSecretform(['stacks', '--changed', '--no-synth', '--format', 'github-matrix'], project, changedEnv)));
    const listing = listings[0];
    const stacksSeconds = median(listings.map((run) => run.seconds));
    const stacksRequests = listings.reduce((sum, run) => sum + run.requests, 0);
    check(listing.code === 0 && listing.stdout === `{"include":[{"stack":"${changedStack}","wave":0}]}\n`, `stacks --changed lists ${changedStack} alone: ${listing.stdout.trim()}${listing.stderr ? ` (stderr: ${listing.stderr.trim()})` : ''}`);
    // References from the same run: starting node, and a command that reads the synth output of every stack and
    // no state (`graph`), so that a loaded machine's share of the figure shows.
    const nodeStart = [];
    const graph = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      await new Promise((done) => spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' }).on('close', done));
      nodeStart.push((performance.now() - started) / 1000);
      graph.push((await runSecretform(['graph', '--no-synth'], project, changedEnv)).seconds);
    }
    lines.push(`       references (median of ${RUNS}): node -e 0 ${median(nodeStart).toFixed(2)} s; secretform graph --no-synth (reads every stack's synth output, no state) ${median(graph).toFixed(2)} s`);
    const stacksCpu = median(listings.map((run) => run.cpuSeconds ?? Number.NaN));
    check(stacksSeconds < 1, `stacks --changed after synth: ${stacksSeconds.toFixed(2)} s (median of ${RUNS}), target < 1 s; less node's start: ${(stacksSeconds - median(nodeStart)).toFixed(2)} s; its CPU time (user + system): ${stacksCpu.toFixed(2)} s`);
    check(stacksRequests === 0, `stacks --changed: ${stacksRequests} requests at the server over ${RUNS} runs, target 0`);

    const alone = [];
    for (let i = 0; i < RUNS; i++) alone.push(await measured(server, () => runSecretform(['plan', '--no-synth', '--stack', changedStack, '--format', 'json'], project, changedEnv)));
    const changed = [];
    for (let i = 0; i < RUNS; i++) {
      changed.push(await measured(server, () => runSecretform(['plan', '--changed', '--synth-env', 'BENCH_FLEET_CHANGED', '--format', 'json'], project, changedEnv)));
    }
    const aloneSeconds = median(alone.map((run) => run.seconds));
    const changedSeconds = median(changed.map((run) => run.seconds));
    const budget = synth.seconds + 1.3 * aloneSeconds;
    check(changed.every((run) => run.code === 0) && alone.every((run) => run.code === 0), 'every plan exited 0');
    check(changed[0].requests === alone[0].requests, `plan --changed sent ${changed[0].requests} requests, the plan of ${changedStack} alone ${alone[0].requests}`);
    check(changedSeconds <= budget, `plan --changed (synth included): ${changedSeconds.toFixed(2)} s (median of ${RUNS}) <= synth ${synth.seconds.toFixed(2)} s + 1.3 x plan of ${changedStack} alone ${aloneSeconds.toFixed(2)} s = ${budget.toFixed(2)} s (ratio over synth: ${((changedSeconds - synth.seconds) / aloneSeconds).toFixed(2)}x)`);
  } finally {
    await server.close();
    pg.stop();
    rmSync(project, { recursive: true, force: true });
  }
  process.stdout.write(`${lines.join('\n')}\nload average at the end: ${loadavg().map((l) => l.toFixed(1)).join(', ')}\n`);
  if (missed) process.exitCode = 1;
}

main().catch((error) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
