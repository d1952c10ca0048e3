/**
 * The `cdktf deploy` bridge through the real terraform binary: what `cdktf deploy` / `cdktf destroy` run in
 * `cdktf.out/stacks/<stack>` (`terraform init`, `terraform apply -auto-approve`, `terraform destroy
 * -auto-approve`), after each step checking the dev server: create, update, drift repaired, secret changed,
 * construct removed, destroy. The project uses the default bridge command (`npx --no-install secretform`), found
 * through its node_modules like a user's project. terraform never reaches a registry: terraform_data is built in.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { BIN, cliEnv, createLinkedProject } from './cli-harness';
import { describeWithTerraform, runChild, TERRAFORM } from './terraform-harness';

jest.setTimeout(180_000);

const APP = `
const { App, TerraformStack } = require('cdktf');
const sf = require('secretform');
// The code of each step: which users, which TTL (a file, since synth passes the app only chosen variables).
const code = require('./code.json');
const app = new App();
const stack = new TerraformStack(app, 'web');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
for (const name of code.users) {
  new sf.UserpassUser(stack, name, { mount: userpass, username: name, password: sf.SecretValue.fromEnv('BRIDGE_PASSWORD'), tokenTtl: code.ttl });
}
app.synth();
`;

let server: DevServer;
let project: string;
let stackDir: string;
let terraformEnv: NodeJS.ProcessEnv;

/** Runs a child without blocking this process (the dev server answers from it). Resolves to its output. */
function run(command: string, args: string[], cwd: string, extra: Record<string, string> = {}): Promise<string> {
  return runChild(command, args, cwd, { ...terraformEnv, ...extra });
}

let initialised = false;

/** Writes the app's code settings: users from BRIDGE_USERS (default alice,bob), TTL from BRIDGE_TTL (default 1h). */
function writeCode(extra: Record<string, string>): void {
  const users = (extra.BRIDGE_USERS ?? 'alice,bob').split(',').filter(Boolean);
  fs.writeFileSync(path.join(project, 'code.json'), JSON.stringify({ users, ttl: extra.BRIDGE_TTL ?? '1h' }));
}

/** What `cdktf deploy` does: synthesize, then terraform init (once is enough here) and apply in the stack's directory. */
async function deploy(extra: Record<string, string> = {}): Promise<string> {
  writeCode(extra);
  await run(process.execPath, [BIN, 'synth'], project, extra);
  if (!initialised) await run(TERRAFORM, ['init', '-input=false', '-no-color'], stackDir, extra);
  initialised = true;
  return run(TERRAFORM, ['apply', '-auto-approve', '-input=false', '-no-color'], stackDir, extra);
}

async function user(name: string): Promise<Record<string, unknown> | undefined> {
  const result = await call(server, 'GET', `auth/userpass/users/${name}`);
  if (result.status === 404) return undefined;
  expect(result.status).toBe(200);
  return (result.body.data ?? result.body) as Record<string, unknown>;
}

async function login(name: string, password: string): Promise<number> {
  return (await call(server, 'POST', `auth/userpass/login/${name}`, { password }, null)).status;
}

describeWithTerraform('cdktf deploy bridge through terraform (terraform_data, one stack-level step)', () => {
  beforeAll(async () => {
    server = await startDevServer({ port: 0, rootToken: 'bridge-root' });
    project = createLinkedProject('secretform-bridge-', APP, 'cdktf');
    stackDir = path.join(project, 'cdktf.out', 'stacks', 'web');
    const cliConfig = path.join(project, 'terraformrc');
    fs.writeFileSync(cliConfig, '');
    terraformEnv = {
      ...cliEnv(server),
      TF_CLI_CONFIG_FILE: cliConfig,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      BRIDGE_PASSWORD: 'bridge-password-one-7f3a',
    };
  });

  afterAll(async () => {
    await server?.close();
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  test('create: the first deploy makes every object', async () => {
    const output = await deploy();
    expect(output).toContain('terraform_data.secretform');
    expect(await user('alice')).toMatchObject({ token_ttl: 3600 });
    expect(await user('bob')).toBeDefined();
    expect(await login('alice', 'bridge-password-one-7f3a')).toBe(200);
  });

  test('update: a changed prop is applied by the next deploy', async () => {
    await deploy({ BRIDGE_TTL: '2h' });
    expect(await user('alice')).toMatchObject({ token_ttl: 7200 });
  });

  test('drift: a change made on the service is repaired by a deploy with unchanged code', async () => {
    const changed = await call(server, 'POST', 'auth/userpass/users/alice', { token_ttl: 60 });
    expect(changed.status).toBeLessThan(300);
    expect(await user('alice')).toMatchObject({ token_ttl: 60 });
    await deploy({ BRIDGE_TTL: '2h' });
    expect(await user('alice')).toMatchObject({ token_ttl: 7200 });
  });

  test('secret changed: a new password value reaches the service although no terraform attribute changed', async () => {
    await deploy({ BRIDGE_TTL: '2h', BRIDGE_PASSWORD: 'bridge-password-two-91cc' });
    expect(await login('alice', 'bridge-password-two-91cc')).toBe(200);
    expect(await login('alice', 'bridge-password-one-7f3a')).not.toBe(200);
  });

  test('construct removed: the object is deleted on the service', async () => {
    await deploy({ BRIDGE_TTL: '2h', BRIDGE_PASSWORD: 'bridge-password-two-91cc', BRIDGE_USERS: 'alice' });
    expect(await user('bob')).toBeUndefined();
    expect(await user('alice')).toBeDefined();
  });

  test('destroy: terraform destroy deletes every object of the stack', async () => {
    const extra = { BRIDGE_TTL: '2h', BRIDGE_PASSWORD: 'bridge-password-two-91cc', BRIDGE_USERS: 'alice' };
    writeCode(extra);
    await run(process.execPath, [BIN, 'synth'], project, extra);
    await run(TERRAFORM, ['destroy', '-auto-approve', '-input=false', '-no-color'], stackDir, extra);
    expect(await user('alice')).toBeUndefined();
    expect((await call(server, 'GET', 'sys/auth')).body).not.toHaveProperty('userpass/');
    const state = JSON.parse(fs.readFileSync(path.join(project, '.secretform', 'web.state.json'), 'utf8'));
    expect(Object.keys(state.resources)).toEqual([]);
  });
});
