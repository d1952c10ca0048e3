/**
 * The real `cdktn deploy` and `cdktn destroy` (CDK Terrain's CLI, cdktn-cli 0.24) on a cdktn app, through the
 * real terraform offline (TF_CLI_CONFIG_FILE pointing at an empty file, CHECKPOINT_DISABLE=1): the CLI
 * synthesizes, runs terraform, and the bridge's step runs `secretform apply` / `secretform destroy`.
 * cdktn-cli needs Node >= 22.19 and is not a devDependency (it would not install on Node 20): `.ci/run`
 * installs it into the tool cache and runs this file on Node 22 and 24 with SECRETFORM_TEST_CDKTN_CLI set to its binary.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { ok } from '../support/package-tarball';
import { cliEnv, createLinkedProject } from './cli-harness';

jest.setTimeout(300_000);

const TERRAFORM = process.env.SECRETFORM_TEST_TERRAFORM ?? '/usr/local/bin/terraform';
const CDKTN_CLI = process.env.SECRETFORM_TEST_CDKTN_CLI;
const [major, minor] = process.versions.node.split('.').map(Number);
const nodeCanRunCdktn = major > 22 || (major === 22 && minor >= 19);

const missing = !nodeCanRunCdktn
  ? `Node ${process.versions.node} < 22.19 (cdktn-cli's minimum; .ci/run runs this file on Node 22 and 24)`
  : !CDKTN_CLI || !fs.existsSync(CDKTN_CLI)
    ? `cdktn-cli not found (SECRETFORM_TEST_CDKTN_CLI=${CDKTN_CLI ?? ''}; .ci/run installs it)`
    : !fs.existsSync(TERRAFORM)
      ? `terraform not found at ${TERRAFORM}`
      : undefined;
if (missing) {
  // On Node 20 there is nothing to run; on Node >= 22.19 under CI a missing tool is a failure.
  if (nodeCanRunCdktn && process.env.CI === 'true') throw new Error(`the cdktn deploy test cannot run: ${missing}`);
  process.stderr.write(`SKIPPED: cdktn deploy through the real CLI: ${missing}\n`);
}
const describeWhenPossible = missing ? describe.skip : describe;

const APP = `
const { App, TerraformStack } = require('cdktn');
const sf = require('secretform');
const app = new App();
const stack = new TerraformStack(app, 'terrain');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
new sf.UserpassUser(stack, 'dave', { mount: userpass, username: 'dave', password: sf.SecretValue.fromEnv('DAVE_PASSWORD'), tokenTtl: '45m' });
app.synth();
`;
const DAVE_PASSWORD = 'dave-cdktn-deploy-password-7e1a';

let server: DevServer;
let project: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  if (missing) return;
  server = await startDevServer({ port: 0, rootToken: 'cdktn-deploy-root' });
  project = createLinkedProject('secretform-cdktn-deploy-', APP, 'cdktn');
  const cliConfig = path.join(project, 'terraformrc');
  fs.writeFileSync(cliConfig, '');
  env = { ...cliEnv(server), DAVE_PASSWORD, TF_CLI_CONFIG_FILE: cliConfig, CHECKPOINT_DISABLE: '1', CI: 'true' };
});

afterAll(async () => {
  await server?.close();
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

function cdktn(args: string[]): Promise<string> {
  return ok(process.execPath, [CDKTN_CLI!, ...args], project, env);
}

describeWhenPossible('cdktn deploy through the real CLI and terraform', () => {
  test('deploy creates the objects through the bridge, destroy removes them, and no output holds the secret', async () => {
    const deployed = await cdktn(['deploy', 'terrain', '--auto-approve']);
    expect((await call(server, 'GET', 'auth/userpass/users/dave')).body.data).toMatchObject({ token_ttl: 2700 });
    const destroyed = await cdktn(['destroy', 'terrain', '--auto-approve']);
    expect((await call(server, 'GET', 'auth/userpass/users/dave')).status).toBe(404);
    for (const output of [deployed, destroyed, fs.readFileSync(path.join(project, 'cdktf.out', 'stacks', 'terrain', 'cdk.tf.json'), 'utf8')]) {
      expect(output).not.toContain(DAVE_PASSWORD);
    }
  });
});
