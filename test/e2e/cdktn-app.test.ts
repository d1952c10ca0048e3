/**
 * An app written with CDK Terrain (cdktn 0.24, no cdktf in its node_modules): `secretform synth`, plan and apply
 * through the real binary, then the `cdktn deploy` bridge through terraform (what `cdktn deploy`/`cdktn
 * destroy` run; cdktn's own CLI needs Node >= 22.19, the library does not).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { cliEnv, createLinkedProject, runCli } from './cli-harness';

jest.setTimeout(120_000);

const TERRAFORM = process.env.SECRETFORM_TEST_TERRAFORM ?? '/usr/local/bin/terraform';
const haveTerraform = fs.existsSync(TERRAFORM);
if (!haveTerraform && process.env.CI === 'true') throw new Error(`terraform not found at ${TERRAFORM}: the cdktn deploy test cannot run`);

const APP = `
const { App, TerraformStack } = require('cdktn');
const sf = require('secretform');
const app = new App();
const stack = new TerraformStack(app, 'terrain');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
new sf.UserpassUser(stack, 'carol', { mount: userpass, username: 'carol', password: sf.SecretValue.fromEnv('CAROL_PASSWORD'), tokenTtl: '30m' });
app.synth();
`;

let server: DevServer;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cdktn-root' });
  project = createLinkedProject('secretform-cdktn-app-', APP, 'cdktn');
  const cliConfig = path.join(project, 'terraformrc');
  fs.writeFileSync(cliConfig, '');
  env = { ...cliEnv(server), CAROL_PASSWORD: 'carol-password-0d0d', TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1' };
});

afterAll(async () => {
  await server?.close();
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

function terraform(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(TERRAFORM, [...args, '-input=false', '-no-color'], { cwd: path.join(project, 'cdktf.out', 'stacks', 'terrain'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(output) : reject(new Error(`terraform ${args.join(' ')} failed (${code}):\n${output}`))));
  });
}

describe('a cdktn app', () => {
  test('secretform synth, apply and plan work through the app\'s cdktn', async () => {
    const synth = await runCli(['synth'], project, env);
    expect(synth.stderr).toBe('');
    expect(synth.stdout).toContain('synthesized 1 stack to cdktf.out: terrain');
    const config = JSON.parse(fs.readFileSync(path.join(project, 'cdktf.out', 'stacks', 'terrain', 'cdk.tf.json'), 'utf8'));
    expect(config.resource.terraform_data.secretform.lifecycle).toEqual({ create_before_destroy: true });
    const apply = await runCli(['apply', '--auto-approve'], project, env);
    expect(apply.code).toBe(0);
    expect((await call(server, 'GET', 'auth/userpass/users/carol')).body.data).toMatchObject({ token_ttl: 1800 });
    const plan = await runCli(['plan', '--detailed-exitcode'], project, env);
    expect(plan.code).toBe(0);
  });

  (haveTerraform ? test : test.skip)('the deploy bridge converges and destroys through terraform', async () => {
    await call(server, 'POST', 'auth/userpass/users/carol', { token_ttl: 60 });
    await terraform(['init']);
    await terraform(['apply', '-auto-approve']);
    expect((await call(server, 'GET', 'auth/userpass/users/carol')).body.data).toMatchObject({ token_ttl: 1800 });
    await terraform(['destroy', '-auto-approve']);
    expect((await call(server, 'GET', 'auth/userpass/users/carol')).status).toBe(404);
  });
});
