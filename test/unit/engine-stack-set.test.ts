/**
 * The engine's one path over a stack set, called directly against a dev server started here: applySavedPlan of a
 * plan of two stacks (dependency order, one outcome each), the one global order in which a run takes its stacks'
 * locks, and a run of one stack as a set of one.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { AuthMount, SecretValue, UserpassUser } from '../../src';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { apply, createSavedPlan, applySavedPlan, plan, type ProgressEvent, type StackSetOptions } from '../../src/engine';
import { lockStateFile, readLockHolder } from '../../src/engine/state/state-lock';
import { tempDir } from '../support/temp-dir';

const ROOT_TOKEN = 'stack-set-root';
// `app` depends on `base`: dependency order is base, app; sorted (lock) order is app, base.
const BASE = 'base';
const APP = 'app';

let server: DevServer;
let dir: string;
let options: StackSetOptions & { desired: { kind: 'synth-output'; outdir: string } };

beforeEach(async () => {
  server = await startDevServer({ port: 0, rootToken: ROOT_TOKEN });
  dir = tempDir('secretform-stack-set-');
  const outdir = join(dir, 'cdktf.out');
  const app = new App({ outdir });
  const stacks = [BASE, APP].map((name) => {
    const stack = new TerraformStack(app, name);
    const mount = new AuthMount(stack, 'userpass', { path: `${name}-users`, type: 'userpass' });
    new UserpassUser(stack, 'ci', { mount, username: `${name}-ci`, password: SecretValue.fromEnv('STACK_SET_PASSWORD'), tokenPolicies: ['default'] });
    return stack;
  });
  stacks[1].addDependency(stacks[0]);
  app.synth();
  const env = { SERVICE_ADDR: server.url, SERVICE_TOKEN: ROOT_TOKEN, SECRETFORM_STATE_KEY: 'stack-set-key', STACK_SET_PASSWORD: 'stack-set-password-1' };
  options = { desired: { kind: 'synth-output', outdir }, cwd: dir, env };
});

afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const statePathOf = (stack: string) => join(dir, '.secretform', `${stack}.state.json`);

test('applySavedPlan over two stacks applies them in dependency order, one outcome each', async () => {
  const made = await createSavedPlan({ ...options, stacks: [APP, BASE] });
  if (!made.ok) throw made.error;
  const set = made.value.saved!;
  expect(set.plans.map((saved) => saved.stack)).toEqual([BASE, APP]);
  expect(set.dependencies).toEqual({ [BASE]: [], [APP]: [BASE] });

  const events: ProgressEvent[] = [];
  const applied = await applySavedPlan(set, { cwd: dir, env: options.env, onProgress: (event) => events.push(event) });
  if (!applied.ok) throw applied.error;
  expect(applied.value.confirmed).toBe(true);
  expect(applied.value.stacks.map((outcome) => [outcome.stack, outcome.status])).toEqual([[BASE, 'done'], [APP, 'done']]);
  for (const outcome of applied.value.stacks) {
    if (outcome.status !== 'done') throw new Error(`${outcome.stack} not done`);
    expect(outcome.value.plan.stack).toBe(outcome.stack);
    expect(outcome.value.succeeded).toBe(true);
    expect(outcome.value.outcomes.map((operation) => `${operation.action} ${operation.address}`).sort())
      .toEqual([`create ${outcome.stack}/ci`, `create ${outcome.stack}/userpass`]);
  }
  // Every write of `app` starts after the last write of `base`, the stack it waits for; each event names its stack.
  const operations = events.filter((event) => event.kind === 'operation-start' || event.kind === 'operation-done');
  const lastOfBase = operations.map((event) => event.stack).lastIndexOf(BASE);
  const firstOfApp = operations.map((event) => event.stack).indexOf(APP);
  expect(lastOfBase).toBeGreaterThanOrEqual(0);
  expect(firstOfApp).toBeGreaterThan(lastOfBase);
  expect((await fetch(`${server.url}/v1/auth/${APP}-users/users/${APP}-ci`, { headers: { 'x-service-token': ROOT_TOKEN } })).status).toBe(200);

  // The same file again: each stack's plan was applied already, so the run is refused as a whole.
  const again = await applySavedPlan(set, { cwd: dir, env: options.env });
  expect(again.ok).toBe(false);
  if (!again.ok) expect(again.error.code).toBe('plan_already_applied');
});

test('a run takes its stacks\' locks in one global order (sorted names), not in dependency order', async () => {
  // Another command holds `base`'s lock: the run over both waits for it, holding `app`'s lock already (sorted
  // order takes `app` first even though `base` runs first). In dependency order it would hold no lock while waiting.
  const held = await lockStateFile(statePathOf(BASE), { command: 'test holder', timeoutMs: 0 });
  if (!held.ok) throw held.error;
  const run = apply({ ...options, stacks: [BASE, APP], lockTimeoutMs: 20_000 });
  const appLock = await waitFor(() => readLockHolder(statePathOf(APP)));
  expect(appLock.command).toBe('secretform apply');
  expect(readLockHolder(statePathOf(BASE))?.command).toBe('test holder');
  await held.value.release();

  const result = await run;
  if (!result.ok) throw result.error;
  expect(result.value.stacks.map((outcome) => [outcome.stack, outcome.status])).toEqual([[BASE, 'done'], [APP, 'done']]);
  expect(readLockHolder(statePathOf(APP))).toBeUndefined();
  expect(readLockHolder(statePathOf(BASE))).toBeUndefined();
});

test('a run of one stack is a set of one: one outcome, its progress naming no stack', async () => {
  const events: ProgressEvent[] = [];
  const planned = await plan({ ...options, stack: APP, onProgress: (event) => events.push(event) });
  if (!planned.ok) throw planned.error;
  expect(planned.value.map((outcome) => [outcome.stack, outcome.status])).toEqual([[APP, 'done']]);
  expect(events.length).toBeGreaterThan(0);
  expect(events.every((event) => event.stack === undefined)).toBe(true);

  // Over both stacks, every event names its stack.
  const both: ProgressEvent[] = [];
  const plannedBoth = await plan({ ...options, stacks: [BASE, APP], onProgress: (event) => both.push(event) });
  if (!plannedBoth.ok) throw plannedBoth.error;
  expect(plannedBoth.value.map((outcome) => outcome.stack)).toEqual([BASE, APP]);
  expect(new Set(both.map((event) => event.stack))).toEqual(new Set([BASE, APP]));
});

async function waitFor<T>(read: () => T | undefined, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
