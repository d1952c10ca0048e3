/**
 * One request budget per server, shared by every stack of a run, and the run's deadline, through the real binary
 * against the dev server: the requests in flight are measured at the server (not in the client under test), a
 * server that rate-limits (429 / 503 with Retry-After) is waited for as it asks and never read as an object's
 * absence, and one that rate-limits for ever fails the run at its deadline, naming the server and its answer,
 * with every state file as it was.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { BOB_PASSWORD, cliEnv, ROOT, runCli, transcript, type CliResult } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(180_000);

const STACKS = ['s0', 's1', 's2', 's3'];
const USERS_PER_STACK = 12;
/** Each request takes this long at the server: long enough for the stacks' requests to overlap there. */
const LATENCY_MS = 15;

/** Four independent stacks on SERVICE_ADDR's server, each a userpass mount with USERS_PER_STACK users and a KV mount. */
const APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
for (const name of ${JSON.stringify(STACKS)}) {
  const stack = new TerraformStack(app, name);
  const userpass = new sf.AuthMount(stack, 'userpass', { path: name + '-users', type: 'userpass' });
  for (let i = 0; i < ${USERS_PER_STACK}; i++) {
    new sf.UserpassUser(stack, 'user-' + i, { mount: userpass, username: 'user-' + i, password: sf.SecretValue.fromFile('user-password.txt'), tokenTtl: process.env.SF_E2E_TTL || '1h', tokenPolicies: ['default'] });
  }
  new sf.SecretsMount(stack, 'kv', { path: name + '-apps', type: 'kv', options: { version: '2' } });
}
app.synth();
`;

let server: DevServer;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'budget-root-token-3f8a', latencyMs: LATENCY_MS });
  project = tempDir('secretform-budget-e2e-');
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  writeFileSync(join(project, 'main.js'), APP);
  writeFileSync(join(project, 'user-password.txt'), `${BOB_PASSWORD}\n`);
  env = cliEnv(server);
});

afterAll(async () => {
  server?.faults.stopFailing();
  await server?.close();
});

const cli = (args: string[], extra: Record<string, string> = {}): Promise<CliResult> => runCli(args, project, { ...env, ...extra });
const states = (): string[] => STACKS.map((stack) => readFileSync(join(project, '.secretform', `${stack}.state.json`), 'utf8'));
type StackReport = { stack: string; resource_changes: { address: string; actions: string[] }[] };
/** The changes a JSON plan report lists (no-ops left out); fails unless every stack asked for was planned. */
function changesOf(result: CliResult, stacks: readonly string[] = STACKS): string[] {
  const report = JSON.parse(result.stdout) as StackReport | { stacks: StackReport[] };
  const planned = 'stacks' in report ? report.stacks : [report];
  expect(planned.map((stack) => stack.resource_changes.length)).toEqual(stacks.map(() => USERS_PER_STACK + 2));
  return planned.flatMap((stack) => stack.resource_changes).filter((change) => change.actions.join() !== 'no-op').map((change) => `${change.address} ${change.actions.join('+')}`);
}

test('apply and plan over four stacks at --parallelism 4 never have more than 4 requests in flight at the server', async () => {
  server.inFlight.resetMax();
  const applied = await cli(['apply', '--stack', '*', '--auto-approve', '--parallelism', '4']);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
  const applyMax = server.inFlight.max;

  server.inFlight.resetMax();
  const planned = await cli(['plan', '--stack', '*', '--no-synth', '--parallelism', '4', '--format', 'json']);
  expect(planned.code).toBe(0);
  expect(changesOf(planned)).toEqual([]);
  const planMax = server.inFlight.max;
  // At most the budget, and the budget used: the stacks' requests do overlap at the server.
  expect([applyMax <= 4, planMax <= 4, planMax >= 3]).toEqual([true, true, true]);
});

test('a 429 with Retry-After, more times in a row than the retry count, is waited for: the plan is right, nothing "deleted outside"', async () => {
  const before = server.requestLog.length;
  // --parallelism 1 on one stack: the same request gets every 429 (Retry-After: 0), five in a row.
  server.faults.failNext(5, 429, 0);
  const planned = await cli(['plan', '--stack', 's0', '--no-synth', '--parallelism', '1', '--format', 'json']);
  expect(planned.stderr).toBe('');
  expect(planned.code).toBe(0);
  expect(changesOf(planned, ['s0'])).toEqual([]);
  expect(planned.stdout).not.toMatch(/outside|deleted/i);
  expect(server.requestLog.slice(before).filter((entry) => entry.status === 429)).toHaveLength(5);
});

test('429 and 503 with Retry-After across four stacks sharing a budget: every stack planned right', async () => {
  const before = server.requestLog.length;
  server.faults.failNext(6, 429, 1);
  server.faults.failNext(2, 503, 1);
  const planned = await cli(['plan', '--stack', '*', '--no-synth', '--parallelism', '4', '--format', 'json']);
  expect(planned.stderr).toBe('');
  expect(planned.code).toBe(0);
  expect(changesOf(planned)).toEqual([]);
  const statuses = server.requestLog.slice(before).map((entry) => entry.status);
  expect([statuses.filter((status) => status === 429).length, statuses.filter((status) => status === 503).length]).toEqual([6, 2]);
});

test('a server answering 429 for ever: apply fails at the deadline naming the server and the answer, every state as it was', async () => {
  const before = states();
  server.faults.failEvery(429, 1);
  const started = Date.now();
  let applied: CliResult;
  try {
    // A change in every stack (token_ttl), so that an apply would write if it could.
    applied = await cli(['apply', '--stack', '*', '--auto-approve', '--parallelism', '4', '--timeout', '3s'], { SF_E2E_TTL: '2h' });
  } finally {
    server.faults.stopFailing();
  }
  const seconds = (Date.now() - started) / 1000;
  expect(applied.code).toBe(1);
  expect(applied.stderr).toContain(`was not done before the run's deadline (--timeout 3s)`);
  expect(applied.stderr).toContain(`The server at ${server.url} last answered HTTP 429 with Retry-After: 1`);
  expect(applied.stderr).toContain('the run reached its deadline (--timeout)');
  // Synth runs before the deadline's clock starts; the run then stops at it, not after every retry of every read.
  expect(seconds).toBeLessThan(30);
  expect(states()).toEqual(before);
  // And the stacks are fine once the server is: the change is still there to apply.
  const planned = await cli(['plan', '--stack', '*', '--no-synth', '--format', 'json']);
  expect(planned.code).toBe(0);
  expect(changesOf(planned)).toHaveLength(STACKS.length * USERS_PER_STACK);
}, 120_000);

test('no output of any run holds a secret value', () => {
  for (const text of transcript) expect(text).not.toContain(BOB_PASSWORD);
});
