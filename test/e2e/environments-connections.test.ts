/**
 * Each stack on its own service (issue 20): an app with a `staging` and a `prod` stack, each with a
 * ServiceConnection to its own dev server (different root tokens, read from STAGING_SERVICE_TOKEN and
 * PROD_SERVICE_TOKEN), driven through the real binary. SERVICE_ADDR points at nothing and SERVICE_TOKEN is
 * wrong, so a run that used them would fail. Checked on each server over HTTP: each stack's objects are on its
 * own server only. The tests run in order on one project; the last one looks for the tokens everywhere.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runAction } from '../../src/cli/commands/action';
import { runExec } from '../../src/cli/commands/exec';
import { endCommand } from '../../src/cli/run/command-failure';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { fakeIo } from '../unit/cli-fake-io';
import { cliEnv, ROOT, runCli, transcript, type CliResult } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(180_000);

const STAGING_TOKEN = 'staging-root-token-3e7a91';
const PROD_TOKEN = 'prod-root-token-b04c58';
const STAGING_PASSWORD = 'staging-ci-password-61f0';
const PROD_PASSWORD = 'prod-ci-password-9d2b';

const APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
for (const name of ['staging', 'prod']) {
  const stack = new TerraformStack(app, name);
  new sf.ServiceConnection(stack, 'service', { address: process.env['SF_ENV_' + name.toUpperCase() + '_ADDR'], tokenEnv: name.toUpperCase() + '_SERVICE_TOKEN' });
  const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  new sf.UserpassUser(stack, 'ci', { mount: userpass, username: name + '-ci', password: sf.SecretValue.fromEnv(name.toUpperCase() + '_CI_PASSWORD'), tokenPolicies: ['default'] });
}
app.synth();
`;

let staging: DevServer;
let prod: DevServer;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  staging = await startDevServer({ port: 0, rootToken: STAGING_TOKEN });
  prod = await startDevServer({ port: 0, rootToken: PROD_TOKEN });
  project = tempDir('secretform-environments-');
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  writeFileSync(join(project, 'main.js'), APP);
  env = cliEnv({ url: 'http://127.0.0.1:1', rootToken: 'not-the-token-of-either-server' }, {
    STAGING_SERVICE_TOKEN: STAGING_TOKEN,
    PROD_SERVICE_TOKEN: PROD_TOKEN,
    STAGING_CI_PASSWORD: STAGING_PASSWORD,
    PROD_CI_PASSWORD: PROD_PASSWORD,
    SECRETFORM_SYNTH_ENV: 'SF_ENV_*',
    SF_ENV_STAGING_ADDR: staging.url,
    SF_ENV_PROD_ADDR: prod.url,
  });
});

afterAll(async () => {
  await staging?.close();
  await prod?.close();
});

function cli(args: string[], extra: Record<string, string | undefined> = {}): Promise<CliResult> {
  return runCli(args, project, { ...env, ...extra });
}

/** GET on a server with its own root token: the object, or undefined on 404. */
async function read(server: DevServer, apiPath: string): Promise<Record<string, unknown> | undefined> {
  const response = await fetch(`${server.url}/v1/${apiPath}`, { headers: { 'X-Service-Token': server.rootToken } });
  if (response.status === 404) return undefined;
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Record<string, unknown> }).data;
}

test('synth writes each stack\'s connection as names only', async () => {
  const result = await cli(['synth']);
  expect(result.stderr).not.toContain('Error');
  expect(result.code).toBe(0);
  for (const [name, server] of [['staging', staging], ['prod', prod]] as const) {
    const config = JSON.parse(readFileSync(join(project, 'cdktf.out', 'stacks', name, 'cdk.tf.json'), 'utf8'));
    expect(config['//'].secretform.connection).toEqual({
      version: 1, construct: `${name}/service`, address: server.url, tokenEnv: `${name.toUpperCase()}_SERVICE_TOKEN`, skipVerify: false,
    });
  }
});

test('a connection whose token variable is unset fails its stack, naming the stack and the variable, before any request', async () => {
  const before = [staging.requestCount, prod.requestCount];
  const result = await cli(['plan', '--no-synth', '--stack', 'staging'], { STAGING_SERVICE_TOKEN: undefined });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('stack staging: STAGING_SERVICE_TOKEN is not set');
  expect(result.stderr).toContain('staging/service');
  expect([staging.requestCount, prod.requestCount]).toEqual(before);
});

test('a refused token is reported as the connection\'s variable, not SERVICE_TOKEN', async () => {
  const result = await cli(['plan', '--no-synth', '--stack', 'prod'], { PROD_SERVICE_TOKEN: 'a-revoked-token' });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('PROD_SERVICE_TOKEN is probably wrong, expired or revoked');
  expect(result.stderr).not.toMatch(/(?<!PROD_)SERVICE_TOKEN/);
  expect(result.stderr).not.toContain('a-revoked-token');
});

test('each stack is applied on its own server only, whatever SERVICE_ADDR says', async () => {
  for (const name of ['staging', 'prod']) {
    const result = await cli(['apply', '--no-synth', '--stack', name, '--auto-approve']);
    expect(result.stderr).not.toContain('Error');
    expect(result.code).toBe(0);
  }
  expect(await read(staging, 'auth/userpass/users/staging-ci')).toMatchObject({ token_policies: ['default'] });
  expect(await read(staging, 'auth/userpass/users/prod-ci')).toBeUndefined();
  expect(await read(prod, 'auth/userpass/users/prod-ci')).toMatchObject({ token_policies: ['default'] });
  expect(await read(prod, 'auth/userpass/users/staging-ci')).toBeUndefined();
  const plan = await cli(['plan', '--no-synth', '--stack', 'prod', '--detailed-exitcode']);
  expect(plan.code).toBe(0);
});

test('a saved plan is applied on the service of its stack\'s connection', async () => {
  const planFile = join(project, 'prod.plan.json');
  const planned = await cli(['plan', '--no-synth', '--stack', 'prod', '--out', planFile], { PROD_CI_PASSWORD: `${PROD_PASSWORD}-rotated` });
  expect(planned.stderr).not.toContain('Error');
  expect(planned.code).toBe(0);
  const saved = JSON.parse(readFileSync(planFile, 'utf8'));
  expect(saved.connection).toMatchObject({ address: prod.url, tokenEnv: 'PROD_SERVICE_TOKEN' });
  const before = staging.requestCount;
  const prodBefore = prod.requestLog.length;
  const applied = await cli(['apply', planFile], { PROD_CI_PASSWORD: `${PROD_PASSWORD}-rotated` });
  expect(applied.stderr).not.toContain('Error');
  expect(applied.code).toBe(0);
  expect(staging.requestCount).toBe(before);
  expect(prod.requestLog.slice(prodBefore).some((entry) => entry.method === 'POST' && entry.path === 'auth/userpass/users/prod-ci/password' && entry.status < 300)).toBe(true);
  // Back to the password the other tests log in with.
  expect((await cli(['apply', '--no-synth', '--stack', 'prod', '--auto-approve'])).code).toBe(0);
});

test('action finds the stack from the address and uses its connection', async () => {
  const before = staging.requestCount;
  const result = await cli(['action', 'login', 'prod/ci', '--no-synth', '--format', 'json']);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toHaveProperty('client_token');
  expect(staging.requestCount).toBe(before);
  expect(prod.requestLog.at(-1)).toMatchObject({ method: 'POST', path: 'auth/userpass/login/prod-ci', status: 200 });
});

test('import finds the stack from the address and reads through its connection', async () => {
  const removed = await cli(['state', 'rm', 'prod/ci', '--stack', 'prod']);
  expect(removed.code).toBe(0);
  const before = staging.requestCount;
  const prodBefore = prod.requestLog.length;
  const imported = await cli(['import', 'prod/ci', 'auth/userpass/users/prod-ci', '--no-synth']);
  expect(imported.stderr).toBe('');
  expect(imported.code).toBe(0);
  expect(imported.stdout).toContain('Imported auth/userpass/users/prod-ci as prod/ci');
  expect(staging.requestCount).toBe(before);
  expect(prod.requestLog.slice(prodBefore).some((entry) => entry.method === 'GET' && entry.path === 'auth/userpass/users/prod-ci')).toBe(true);
  // The password is re-sent once (an import records no fingerprint), then the stack is as the code says.
  expect((await cli(['apply', '--no-synth', '--stack', 'prod', '--auto-approve'])).code).toBe(0);
});

test('exec finds the stack from the address; the child gets neither token variable nor any SERVICE_*/SECRETFORM_*', async () => {
  const before = prod.requestCount;
  const result = await cli(['exec', 'staging/ci', '--no-synth', '--', process.execPath, '-e', 'process.stdout.write(JSON.stringify(Object.keys(process.env)))']);
  expect(result.code).toBe(0);
  const names = JSON.parse(result.stdout) as string[];
  expect(names).not.toContain('STAGING_SERVICE_TOKEN');
  expect(names).not.toContain('PROD_SERVICE_TOKEN');
  expect(names).not.toContain('STAGING_CI_PASSWORD');
  expect(names.filter((name) => name.startsWith('SERVICE_') || name.startsWith('SECRETFORM_'))).toEqual([]);
  expect(prod.requestCount).toBe(before);
  expect(staging.requestLog.at(-1)).toMatchObject({ method: 'POST', path: 'auth/userpass/login/staging-ci', status: 200 });
});

describe('action and exec work on the stack their address starts with', () => {
  const requestCounts = () => [staging.requestCount, prod.requestCount];
  const mismatch = (given: string, address: string, own: string) =>
    `Error: --stack ${given} does not hold ${address}: an address starts with its stack's name, so it is in stack ${own}. ` +
    `Drop --stack (the address names its stack), or give --stack ${own}\n`;

  test('a --stack other than the address\'s stack is refused, naming both and the fix, before the app runs or any request', async () => {
    const before = requestCounts();
    // An app that fails, into an output of its own: had it run, its failure would be the error.
    const app = ['--app', `${JSON.stringify(process.execPath)} -e "process.exit(3)"`, '--output', tempDir('secretform-no-app-')];
    const action = await cli(['action', 'login', 'prod/ci', '--stack', 'staging', '--format', 'json', ...app]);
    expect(action.stderr).toBe(mismatch('staging', 'prod/ci', 'prod'));
    expect(action.code).toBe(1);
    expect(action.stdout).toBe('');
    const exec = await cli(['exec', 'staging/ci', '--stack', 'prod', ...app, '--', process.execPath, '-e', 'process.stdout.write("the command ran")']);
    expect(exec.stderr).toBe(mismatch('prod', 'staging/ci', 'staging'));
    expect(exec.code).toBe(1);
    expect(exec.stdout).toBe('');
    expect(requestCounts()).toEqual(before);
  });

  test('several --stack reaching the commands themselves are refused, not replaced by the address\'s stack', async () => {
    const before = requestCounts();
    const stack = ['staging', 'prod'];
    const actionIo = fakeIo({ cwd: project, env });
    expect(endCommand(actionIo, await runAction('login', 'prod/ci', { stack, synth: false, format: 'json' }, actionIo))).toBe(1);
    expect(actionIo.stderr.text).toBe('Error: --stack was given 2 times ("staging", "prod"); action works on one stack: give --stack once, with that stack\'s name\n');
    expect(actionIo.stdout.text).toBe('');
    const execIo = fakeIo({ cwd: project, env });
    expect(endCommand(execIo, await runExec('prod/ci', [process.execPath, '-e', 'process.stdout.write("the command ran")'], { stack, synth: false }, execIo))).toBe(1);
    expect(execIo.stderr.text).toBe('Error: --stack was given 2 times ("staging", "prod"); exec works on one stack: give --stack once, with that stack\'s name\n');
    expect(requestCounts()).toEqual(before);
  });

  test('a --stack naming a stack the synth output lacks is refused as plan refuses it, before any request', async () => {
    const before = requestCounts();
    const plan = await cli(['plan', '--no-synth', '--stack', 'qa']);
    expect(plan.stderr).toBe('Error: there is no stack "qa"; stacks: prod, staging\n');
    const action = await cli(['action', 'login', 'qa/ci', '--no-synth', '--stack', 'qa']);
    expect(action.stderr).toBe(plan.stderr);
    expect(action.code).toBe(1);
    const exec = await cli(['exec', 'qa/ci', '--no-synth', '--stack', 'qa', '--', process.execPath, '-e', 'process.stdout.write("the command ran")']);
    expect(exec.stderr).toBe(plan.stderr);
    expect(exec.code).toBe(1);
    expect(exec.stdout).toBe('');
    expect(requestCounts()).toEqual(before);
  });

  test('--stack naming the address\'s own stack: the operation runs on that stack\'s service', async () => {
    const before = staging.requestCount;
    const result = await cli(['action', 'login', 'prod/ci', '--no-synth', '--stack', 'prod', '--format', 'json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveProperty('client_token');
    expect(staging.requestCount).toBe(before);
  });
});

test('no token appears in the synth output, state, saved plans, JSON plans or any output', async () => {
  const json = await cli(['plan', '--no-synth', '--stack', 'staging', '--format', 'json']);
  expect(json.code).toBe(0);
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir)) {
      const file = join(dir, entry);
      if (statSync(file).isDirectory()) walk(file);
      else files.push(readFileSync(file, 'utf8'));
    }
  };
  walk(join(project, 'cdktf.out'));
  walk(join(project, '.secretform'));
  files.push(readFileSync(join(project, 'prod.plan.json'), 'utf8'));
  const everything = [...files, ...transcript].join('\n');
  expect(files.length).toBeGreaterThan(4);
  for (const token of [STAGING_TOKEN, PROD_TOKEN]) expect(everything).not.toContain(token);
});
