/**
 * `cdktf deploy '*'` over two stacks on two services, through the real terraform binary: each stack has its own
 * ServiceConnection (its own dev server, its own root token from its own variable), and each stack's bridge step
 * runs `secretform apply` for its stack against its connection. terraform applies both stack directories at
 * once, as `cdktf deploy '*'` does for independent stacks; SERVICE_ADDR points at nothing and SERVICE_TOKEN is
 * wrong, so a step that used them would fail. Checked on each server over HTTP, then destroyed the same way.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { BIN, cliEnv, createLinkedProject } from './cli-harness';
import { describeWithTerraform, runChild, TERRAFORM } from './terraform-harness';

jest.setTimeout(240_000);

const STACKS = ['staging', 'prod'] as const;
const TOKENS = { staging: 'staging-bridge-root-41aa', prod: 'prod-bridge-root-93cf' };
const PASSWORD = 'bridge-env-password-2d6e';

// The servers' addresses come from a file: synth passes the app only chosen variables.
const APP = `
const { App, TerraformStack } = require('cdktf');
const sf = require('secretform');
const addresses = require('./addresses.json');
const app = new App();
for (const name of ['staging', 'prod']) {
  const stack = new TerraformStack(app, name);
  new sf.ServiceConnection(stack, 'service', { address: addresses[name], tokenEnv: name.toUpperCase() + '_SERVICE_TOKEN' });
  const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  new sf.UserpassUser(stack, 'deployer', { mount: userpass, username: name + '-deployer', password: sf.SecretValue.fromEnv('BRIDGE_PASSWORD'), tokenTtl: '1h' });
}
app.synth();
`;

const servers = {} as Record<(typeof STACKS)[number], DevServer>;
let project: string;
let terraformEnv: NodeJS.ProcessEnv;

function run(command: string, args: string[], cwd: string): Promise<string> {
  return runChild(command, args, cwd, terraformEnv, 180_000);
}

/** terraform in every stack's directory at once, as `cdktf deploy '*'` / `cdktf destroy '*'` run independent stacks. */
function terraformInEveryStack(args: string[]): Promise<string[]> {
  return Promise.all(STACKS.map((stack) => run(TERRAFORM, [...args, '-input=false', '-no-color'], path.join(project, 'cdktf.out', 'stacks', stack))));
}

async function userOn(server: DevServer, name: string): Promise<Record<string, unknown> | undefined> {
  const result = await call(server, 'GET', `auth/userpass/users/${name}`);
  if (result.status === 404) return undefined;
  expect(result.status).toBe(200);
  return (result.body.data ?? result.body) as Record<string, unknown>;
}

describeWithTerraform('cdktf deploy \'*\' through terraform: each stack on its own service', () => {
  beforeAll(async () => {
    for (const stack of STACKS) servers[stack] = await startDevServer({ port: 0, rootToken: TOKENS[stack] });
    project = createLinkedProject('secretform-bridge-environments-', APP, 'cdktf');
    fs.writeFileSync(path.join(project, 'addresses.json'), JSON.stringify({ staging: servers.staging.url, prod: servers.prod.url }));
    const cliConfig = path.join(project, 'terraformrc');
    fs.writeFileSync(cliConfig, '');
    terraformEnv = {
      ...cliEnv({ url: 'http://127.0.0.1:1', rootToken: 'not-the-token-of-either-server' }),
      STAGING_SERVICE_TOKEN: TOKENS.staging,
      PROD_SERVICE_TOKEN: TOKENS.prod,
      TF_CLI_CONFIG_FILE: cliConfig,
      CHECKPOINT_DISABLE: '1',
      TF_IN_AUTOMATION: '1',
      BRIDGE_PASSWORD: PASSWORD,
    };
  });

  afterAll(async () => {
    for (const server of Object.values(servers)) await server.close();
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  test('deploy converges every stack on its own server only', async () => {
    await run(process.execPath, [BIN, 'synth'], project);
    await terraformInEveryStack(['init']);
    const outputs = await terraformInEveryStack(['apply', '-auto-approve']);
    for (const output of outputs) expect(output).toContain('terraform_data.secretform');
    expect(await userOn(servers.staging, 'staging-deployer')).toMatchObject({ token_ttl: 3600 });
    expect(await userOn(servers.staging, 'prod-deployer')).toBeUndefined();
    expect(await userOn(servers.prod, 'prod-deployer')).toMatchObject({ token_ttl: 3600 });
    expect(await userOn(servers.prod, 'staging-deployer')).toBeUndefined();
    for (const stack of STACKS) expect(Object.keys((await call(servers[stack], 'GET', 'sys/auth')).body.data as object)).toContain('userpass/');
    for (const stack of STACKS) {
      const login = await call(servers[stack], 'POST', `auth/userpass/login/${stack}-deployer`, { password: PASSWORD }, null);
      expect(login.status).toBe(200);
    }
    const state = STACKS.map((stack) => fs.readFileSync(path.join(project, '.secretform', `${stack}.state.json`), 'utf8')).join('\n');
    for (const token of Object.values(TOKENS)) expect([state, ...outputs].join('\n')).not.toContain(token);
  });

  test('destroy removes each stack\'s objects from its own server', async () => {
    await terraformInEveryStack(['destroy', '-auto-approve']);
    expect(await userOn(servers.staging, 'staging-deployer')).toBeUndefined();
    expect(await userOn(servers.prod, 'prod-deployer')).toBeUndefined();
    for (const stack of STACKS) {
      const mounts = await call(servers[stack], 'GET', 'sys/auth');
      expect(mounts.status).toBe(200);
      expect(Object.keys((mounts.body.data ?? mounts.body) as object)).not.toContain('userpass/');
    }
  });
});
