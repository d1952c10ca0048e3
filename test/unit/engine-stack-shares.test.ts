/**
 * A plan over several large stacks on one server takes them a few at a time (stacks/server-shares.ts): with
 * --parallelism 1 the server's share is 300 objects, so stacks of 160 run one after another and the server sees
 * each stack's reads together, in the run's order, rather than every stack's reads interleaved to the end. The
 * plan itself is the same: every stack planned, no change after apply, outcomes in the run's order.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { AuthMount, SecretValue, UserpassUser } from '../../src';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { apply, plan, type StackSetOptions } from '../../src/engine';
import { OBJECTS_PER_SLOT } from '../../src/engine/stacks/server-shares';
import { tempDir } from '../support/temp-dir';

const ROOT_TOKEN = 'stack-shares-root';
const STACKS = ['s0', 's1', 's2'];
const USERS = 159;

let server: DevServer;
let dir: string;
let options: StackSetOptions;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: ROOT_TOKEN, requestLogCap: 100_000 });
  dir = tempDir('secretform-stack-shares-');
  const outdir = join(dir, 'cdktf.out');
  const app = new App({ outdir });
  for (const name of STACKS) {
    const stack = new TerraformStack(app, name);
    const mount = new AuthMount(stack, 'userpass', { path: `${name}-users`, type: 'userpass' });
    // A hash stored as given: the test measures the order of reads, not bcrypt.
    for (let i = 0; i < USERS; i++) new UserpassUser(stack, `u${i}`, { mount, username: `u${i}`, passwordHash: SecretValue.fromEnv('SHARES_HASH'), tokenPolicies: ['default'] });
  }
  app.synth();
  const env = { SERVICE_ADDR: server.url, SERVICE_TOKEN: ROOT_TOKEN, SECRETFORM_STATE_KEY: 'stack-shares-key', SHARES_HASH: '$2a$04$abcdefghijklmnopqrstuuJ8rBv1Zb5F9H0lJm0m8rR5Qe0d6mO1a' };
  options = { desired: { kind: 'synth-output', outdir }, cwd: dir, env, stacks: STACKS };
  const applied = await apply(options);
  if (!applied.ok) throw applied.error;
  expect(applied.value.stacks.every((outcome) => outcome.status === 'done')).toBe(true);
}, 120_000);

afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The stacks whose users the server was asked for since `from`, each run of one stack's reads named once. */
function stackRuns(from: number): string[] {
  const runs: string[] = [];
  for (const entry of server.requestLog.slice(from)) {
    const stack = /^auth\/(s\d)-users\/users\//.exec(entry.path)?.[1];
    if (stack !== undefined && runs.at(-1) !== stack) runs.push(stack);
  }
  return runs;
}

it('takes stacks larger than half the share one after another, each read in full before the next starts', async () => {
  expect(2 * (USERS + 1)).toBeGreaterThan(OBJECTS_PER_SLOT);
  const from = server.requestLog.length;
  const planned = await plan({ ...options, parallelism: 1 });
  if (!planned.ok) throw planned.error;
  expect(planned.value.map((outcome) => [outcome.stack, outcome.status])).toEqual(STACKS.map((stack) => [stack, 'done']));
  for (const outcome of planned.value) if (outcome.status === 'done') expect(outcome.value.changes.every((change) => change.action === 'no-op')).toBe(true);
  expect(stackRuns(from)).toEqual(STACKS);
}, 120_000);

it('runs the stacks at the same time when they fit the share together', async () => {
  const from = server.requestLog.length;
  // --parallelism 10: 3,000 objects for the server, and the three stacks hold 480.
  const planned = await plan({ ...options, parallelism: 10 });
  if (!planned.ok) throw planned.error;
  expect(planned.value.map((outcome) => outcome.status)).toEqual(['done', 'done', 'done']);
  expect(stackRuns(from).length).toBeGreaterThan(STACKS.length);
}, 120_000);
