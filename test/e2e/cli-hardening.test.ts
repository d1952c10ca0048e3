/**
 * The CLI against the dev server where issue 9 found it wrong: constructs synthesized without validation,
 * drift that the code now matches, and constructs whose id changed (moves, `state mv`).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { cliEnv, createProject, ROOT, runCli } from './cli-harness';

jest.setTimeout(120_000);

/**
 * Users from SF_E2E_USERS as `constructId:username[:ttl]`, optionally with validation skipped
 * (SF_E2E_SKIP_VALIDATION=1); `bob` depends on alice's construct through the mount only, so `SF_E2E_KV_AFTER`
 * names a construct the KV mount is made to wait for (a recorded dependency).
 */
const APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App({ skipValidation: process.env.SF_E2E_SKIP_VALIDATION === '1' });
const stack = new TerraformStack(app, 'e2e');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
for (const entry of (process.env.SF_E2E_USERS || '').split(',').filter(Boolean)) {
  const [id, username, ttl] = entry.split(':');
  new sf.UserpassUser(stack, id, { mount: userpass, username, password: sf.SecretValue.fromFile('user-password.txt'), tokenTtl: ttl || '1h' });
}
app.synth();
`;

let server: DevServer;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-hardening-root' });
});

afterAll(async () => {
  await server?.close();
});

function project(): string {
  const dir = createProject();
  writeFileSync(join(dir, 'main.js'), APP);
  return dir;
}

function envWith(extra: Record<string, string>): NodeJS.ProcessEnv {
  return cliEnv(server, { SECRETFORM_SYNTH_ENV: 'SF_E2E_USERS,SF_E2E_SKIP_VALIDATION', ...extra });
}

async function userOnServer(name: string): Promise<Record<string, unknown> | undefined> {
  const read = await call(server, 'GET', `auth/userpass/users/${name}`);
  return read.status === 200 ? read.body.data : undefined;
}

function stateOf(dir: string): { resources: Record<string, { id: string; dependencies: string[]; attributes: Record<string, unknown> }> } {
  return JSON.parse(readFileSync(join(dir, '.secretform', 'e2e.state.json'), 'utf8'));
}

describe('a construct synthesized without validation (App skipValidation)', () => {
  test('fails plan and apply with exit 1, naming the construct and the problem; the live object stays', async () => {
    const dir = project();
    const valid = envWith({ SF_E2E_USERS: 'skipper:skipper' });
    expect((await runCli(['apply', '--auto-approve'], dir, valid)).code).toBe(0);
    expect(await userOnServer('skipper')).toBeDefined();

    const invalid = envWith({ SF_E2E_USERS: 'skipper:skipper:forever', SF_E2E_SKIP_VALIDATION: '1' });
    const planned = await runCli(['plan', '--detailed-exitcode'], dir, invalid);
    expect(planned.code).toBe(1);
    expect(planned.stderr).toContain('e2e/skipper: tokenTtl');
    expect(planned.stderr).toContain('"forever"');
    expect(planned.stderr).toContain('skipValidation');
    const applied = await runCli(['apply', '--auto-approve', '--no-synth'], dir, invalid);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain('e2e/skipper: tokenTtl');
    expect(applied.stdout).not.toContain('destroy');
    expect(await userOnServer('skipper')).toBeDefined();
    expect(Object.keys(stateOf(dir).resources)).toContain('e2e/skipper');
  });
});

describe('drift that the code now matches', () => {
  test('apply records the refreshed state, so the next plan shows no change', async () => {
    const dir = project();
    expect((await runCli(['apply', '--auto-approve'], dir, envWith({ SF_E2E_USERS: 'drifter:drifter:30m' }))).code).toBe(0);
    const changed = await call(server, 'POST', 'auth/userpass/users/drifter', { token_ttl: 3600 });
    expect(changed.status).toBeLessThan(300);

    const now = envWith({ SF_E2E_USERS: 'drifter:drifter:1h' });
    const drifted = await runCli(['plan', '--detailed-exitcode'], dir, now);
    expect(drifted.code).toBe(2);
    expect(drifted.stdout).toContain('e2e/drifter has changed');

    const applied = await runCli(['apply', '--auto-approve'], dir, now);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('Nothing to apply.');
    expect(applied.stdout).toContain('e2e/drifter: refreshed state recorded');
    expect(stateOf(dir).resources['e2e/drifter'].attributes.token_ttl).toBe(3600);

    const clean = await runCli(['plan', '--detailed-exitcode'], dir, now);
    expect(clean.stdout).toContain('No changes.');
    expect(clean.code).toBe(0);
  });
});

describe('a construct whose id changed (same object)', () => {
  test('plan says "has moved to" (text, markdown) and previous_address (JSON); apply records the move on its own', async () => {
    const dir = project();
    expect((await runCli(['apply', '--auto-approve'], dir, envWith({ SF_E2E_USERS: 'old-id:mover' }))).code).toBe(0);
    const before = server.requestLog.length;

    const renamed = envWith({ SF_E2E_USERS: 'new-id:mover' });
    const text = await runCli(['plan', '--detailed-exitcode'], dir, renamed);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('# e2e/old-id has moved to e2e/new-id');
    expect(text.stdout).toContain('Plan: 0 to add, 0 to change, 0 to destroy.');
    const markdown = await runCli(['plan', '--no-synth', '--format', 'markdown'], dir, renamed);
    expect(markdown.stdout).toContain('# e2e/old-id has moved to e2e/new-id');
    const json = JSON.parse((await runCli(['plan', '--no-synth', '--format', 'json'], dir, renamed)).stdout);
    const change = json.resource_changes.find((c: { address: string }) => c.address === 'e2e/new-id');
    expect(change).toMatchObject({ address: 'e2e/new-id', previous_address: 'e2e/old-id', actions: ['no-op'] });
    expect(json.resource_changes.map((c: { address: string }) => c.address)).not.toContain('e2e/old-id');

    const applied = await runCli(['apply', '--auto-approve', '--no-synth'], dir, renamed);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain('e2e/old-id: moved to e2e/new-id in state');
    expect(applied.stdout).toContain('Apply complete! Resources: 0 added, 0 changed, 0 destroyed.');
    const resources = stateOf(dir).resources;
    expect(resources['e2e/new-id'].id).toBe('auth/userpass/users/mover');
    expect(resources['e2e/old-id']).toBeUndefined();
    // Nothing was written on the service.
    expect(server.requestLog.slice(before).filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST')).toEqual([]);
    const clean = await runCli(['plan', '--no-synth', '--detailed-exitcode'], dir, renamed);
    expect(clean.code).toBe(0);
  });

  test('state mv renames an entry under the lock, updates dependencies, and refuses bad or taken addresses', async () => {
    const dir = project();
    const env = envWith({ SF_E2E_USERS: 'first:mv-first,second:mv-second' });
    expect((await runCli(['apply', '--auto-approve'], dir, env)).code).toBe(0);
    // The users depend on the mount: moving the mount must update what they record.
    const moved = await runCli(['state', 'mv', 'e2e/userpass', 'e2e/auth'], dir, env);
    expect(moved.stderr).toContain('Warning: e2e/auth is not in the synthesized code');
    expect(moved.code).toBe(0);
    expect(moved.stdout).toContain('Moved e2e/userpass to e2e/auth in state.');
    const resources = stateOf(dir).resources;
    expect(resources['e2e/auth'].id).toBe('sys/auth/userpass');
    expect(resources['e2e/userpass']).toBeUndefined();
    expect(resources['e2e/first'].dependencies).toEqual(['e2e/auth']);
    expect(resources['e2e/second'].dependencies).toEqual(['e2e/auth']);

    const taken = await runCli(['state', 'mv', 'e2e/first', 'e2e/second'], dir, env);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('e2e/second is already in state');
    const missing = await runCli(['state', 'mv', 'e2e/nobody', 'e2e/someone'], dir, env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('e2e/nobody is not in state');
    const otherStack = await runCli(['state', 'mv', 'e2e/first', 'prod/first'], dir, env);
    expect(otherStack.code).toBe(1);
    expect(otherStack.stderr).toContain('is not an address of stack e2e');
    // TO free in state but a construct of another type in the code.
    expect((await runCli(['state', 'rm', 'e2e/first'], dir, env)).code).toBe(0);
    const typeClash = await runCli(['state', 'mv', 'e2e/auth', 'e2e/first'], dir, env);
    expect(typeClash.code).toBe(1);
    expect(typeClash.stderr).toContain('a resource keeps its type when it moves');
    expect(Object.keys(stateOf(dir).resources).sort()).toEqual(['e2e/auth', 'e2e/second']);
    expect(stateOf(dir).resources['e2e/second'].dependencies).toEqual(['e2e/auth']);
  });
});

const CLOUD_APP = `
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
const app = new App();
const stack = new TerraformStack(app, 'e2e');
const backend = new sf.CloudSecretBackend(stack, 'cloud', {
  path: 'cloud-norm', subscriptionId: 'sub-1', tenantId: 'tenant-1', clientId: 'client-1', clientSecret: sf.SecretValue.fromEnv('SF_E2E_CLOUD_SECRET'),
});
new sf.CloudSecretRole(stack, 'role', { backend, name: 'deployer', cloudRoles: [{ scope: '/subscriptions/sub-1', roleName: 'Reader' }] });
app.synth();
`;

describe('one normalisation for every command', () => {
  test('a cloud role given by name (the server fills role_id): no drift in plan, apply or destroy', async () => {
    const dir = createProject();
    writeFileSync(join(dir, 'main.js'), CLOUD_APP);
    const env = cliEnv(server, { SF_E2E_CLOUD_SECRET: 'cloud-norm-secret-4d2a' });
    expect((await runCli(['apply', '--auto-approve'], dir, env)).code).toBe(0);
    const role = await call(server, 'GET', 'cloud-norm/roles/deployer');
    expect(JSON.stringify(role.body.data)).toContain('role_id');

    const planned = await runCli(['plan', '--no-synth', '--detailed-exitcode'], dir, env);
    expect(planned.code).toBe(0);
    const destroyPlan = await runCli(['destroy', '--no-synth', '--auto-approve'], dir, env);
    expect(destroyPlan.code).toBe(0);
    expect(destroyPlan.stdout).not.toContain('changed outside of secretform');
    expect(destroyPlan.stdout).not.toContain('role_id');
    expect(destroyPlan.stdout).toContain('Destroy complete! Resources: 3 destroyed.');
  });
});
