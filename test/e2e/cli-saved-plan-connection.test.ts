/**
 * An edited saved plan never sends the token anywhere (issue 34 item 1). Without SECRETFORM_STATE_KEY the MAC's
 * key is read from the service, so a file whose `connection` names another address (a spy server here) with
 * another token variable would have that service receive the token before the MAC is checked. `apply PLANFILE`
 * refuses such a file, one stack or several, or a stack with its own ServiceConnection whose address was edited,
 * before any request: the spy receives nothing. The legitimate plan of the same project still applies (against
 * the environment, or the synth output it was made with, named with --output).
 */
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { objectOfConnection } from '../../src/engine/setup/desired';
import { startRawServer, type RawServer } from './client-raw-server';
import { cliEnv, createProject, createTwoStackProject, ROOT, runCli, type CliResult } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

const CI_PASSWORD = 'ci-password-the-spy-must-never-see-7d3a';

let server: DevServer;
let spy: RawServer;

beforeEach(async () => {
  server = await startDevServer({ port: 0, rootToken: 'saved-plan-connection-root' });
  spy = await startRawServer(() => ({ status: 200, body: { data: { data: { key: 'attacker-key' } } } }));
});

afterEach(async () => {
  await spy?.close();
  await server?.close();
});

/** The service key is kept on the service (no SECRETFORM_STATE_KEY); CI_PW holds a password of the CI. */
const env = () => cliEnv(server, { SECRETFORM_STATE_KEY: undefined, CI_PW: CI_PASSWORD });

/** The connection an attacker writes into the file: the spy's address, the token from CI_PW. */
const attackerConnection = () => objectOfConnection({ construct: 'Stack/Evil', address: spy.url, tokenEnv: 'CI_PW', skipVerify: false });

function expectRefusedWithoutRequest(result: CliResult): void {
  expect(result.code).toBe(1);
  expect(spy.requests).toEqual([]);
  expect(spy.connections()).toBe(0);
  // The refusal names both services (and the variables, never their values).
  expect(result.stderr).toContain(spy.url);
  expect(result.stderr).toContain('CI_PW');
  expect(result.stderr).toContain(server.url);
  expect(result.stderr).toContain('nothing was sent');
  expect(result.stdout + result.stderr).not.toContain(CI_PASSWORD);
}

test('a one-stack plan file edited to name another service is refused before any request', async () => {
  const project = createProject();
  // A first apply creates the stack's key on the service, so the plan carries a MAC checked with that key.
  expect((await runCli(['apply', '--auto-approve'], project, env())).code).toBe(0);
  const planFile = join(project, 'plan.json');
  const planned = await runCli(['plan', '--out', planFile], project, env());
  expect(planned.code).toBe(0);

  const original = readFileSync(planFile, 'utf8');
  const edited = JSON.parse(original) as Record<string, unknown>;
  edited.connection = attackerConnection();
  writeFileSync(planFile, JSON.stringify(edited));
  expectRefusedWithoutRequest(await runCli(['apply', planFile], project, env()));

  // Without a synth output the environment is what the run would use: refused all the same.
  rmSync(join(project, 'cdktf.out'), { recursive: true, force: true });
  expectRefusedWithoutRequest(await runCli(['apply', planFile], project, env()));

  // The plan as written still applies (no synth output: the environment's service, which the plan names too).
  writeFileSync(planFile, original);
  const applied = await runCli(['apply', planFile], project, env());
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
});

test('a plan file of two stacks with one edited to name another service is refused before any request', async () => {
  const project = createTwoStackProject();
  const planFile = join(project, 'plan.json');
  const planned = await runCli(['plan', '--out', planFile], project, env());
  expect(planned.code).toBe(0);

  const original = readFileSync(planFile, 'utf8');
  const edited = JSON.parse(original) as { stacks: { stack: string; connection?: unknown }[] };
  expect(edited.stacks.map((plan) => plan.stack)).toEqual(['blue', 'green']);
  edited.stacks[1].connection = attackerConnection();
  writeFileSync(planFile, JSON.stringify(edited));
  // plan --out wrote each stack's fingerprint key (its only write); the apply writes nothing.
  const sentBefore = server.requestLog.length;
  const refused = await runCli(['apply', planFile], project, env());
  expectRefusedWithoutRequest(refused);
  expect(refused.stderr).toContain('stack green');
  // Nothing was applied on the real service either: the refusal comes before the first stack's run.
  expect(server.requestLog.slice(sentBefore).filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST')).toEqual([]);

  writeFileSync(planFile, original);
  const applied = await runCli(['apply', planFile], project, env());
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
});

/** A project whose stack `ops` names its service with a ServiceConnection: the address from SF_E2E_ADDR, the token from OPS_TOKEN. */
function connectionProject(): string {
  const dir = tempDir('secretform-saved-plan-connection-');
  writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  writeFileSync(join(dir, 'main.js'), `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
const stack = new TerraformStack(app, 'ops');
new sf.ServiceConnection(stack, 'service', { address: process.env.SF_E2E_ADDR, tokenEnv: 'OPS_TOKEN' });
new sf.SecretsMount(stack, 'kv', { path: 'ops-apps', type: 'kv', options: { version: '2' } });
app.synth();
`);
  return dir;
}

test("a plan file whose stack's ServiceConnection address was edited is refused before any request, token variable kept", async () => {
  const project = connectionProject();
  // SERVICE_ADDR leads nowhere: the stack's own connection is the service.
  const opsEnv = () => cliEnv({ url: 'http://127.0.0.1:1', rootToken: 'not-a-token' }, {
    SECRETFORM_STATE_KEY: undefined, SF_E2E_ADDR: server.url, OPS_TOKEN: server.rootToken, SECRETFORM_SYNTH_ENV: 'SF_E2E_*',
  });
  expect((await runCli(['apply', '--auto-approve'], project, opsEnv())).code).toBe(0);
  const planFile = join(project, 'plan.json');
  expect((await runCli(['plan', '--out', planFile], project, opsEnv())).code).toBe(0);

  const original = readFileSync(planFile, 'utf8');
  const edited = JSON.parse(original) as { connection: Record<string, unknown> };
  expect(edited.connection).toMatchObject({ address: server.url, tokenEnv: 'OPS_TOKEN' });
  edited.connection = { ...edited.connection, address: spy.url };
  writeFileSync(planFile, JSON.stringify(edited));
  const refused = await runCli(['apply', planFile], project, opsEnv());
  expect(refused.code).toBe(1);
  expect(spy.requests).toEqual([]);
  expect(spy.connections()).toBe(0);
  expect(refused.stderr).toContain(`the saved plan names the service ${spy.url} with the token from OPS_TOKEN for stack ops, but the synth output in ${join(project, 'cdktf.out')} (ops/service) names ${server.url} with the token from OPS_TOKEN, so nothing was sent`);
  expect(refused.stdout + refused.stderr).not.toContain(server.rootToken);

  // The plan as written applies against the synth output it was made with, here named with --output (moved away).
  writeFileSync(planFile, original);
  const moved = tempDir('secretform-saved-plan-output-');
  renameSync(join(project, 'cdktf.out'), join(moved, 'out'));
  const applied = await runCli(['apply', planFile, '--output', join(moved, 'out')], project, opsEnv());
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
});
