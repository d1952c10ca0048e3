/**
 * The synth child process (the user's app) gets only what an app needs: the process basics and the variables the
 * user names, never the service token, the state key or location, a client key, nor a secret's variable. The app
 * here writes its whole environment to a file while it synthesizes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { ALICE_PASSWORD, cliEnv, createProject, ROOT, runCli } from './cli-harness';

jest.setTimeout(120_000);

const APP = `
const fs = require('node:fs');
const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});
const sf = require(${JSON.stringify(join(ROOT, 'dist'))});
fs.writeFileSync('env-dump.json', JSON.stringify(process.env));
const app = new App();
const stack = new TerraformStack(app, 'e2e');
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
new sf.UserpassUser(stack, 'alice', { mount: userpass, username: 'alice', password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD') });
app.synth();
`;

const STATE_URL = 'postgres://sf:db-password-7c1e@127.0.0.1:5432/sf';
const CLIENT_KEY = '/tmp/client-key-path-3b9d.pem';
const NPM_TOKEN = 'npm-auth-token-value-0a4f';

let server: DevServer;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-synth-env-root' });
});

afterAll(async () => {
  await server?.close();
});

function dump(project: string): Record<string, string> {
  return JSON.parse(readFileSync(join(project, 'env-dump.json'), 'utf8')) as Record<string, string>;
}

function expectNoCredential(project: string, env: Record<string, string>): void {
  const text = readFileSync(join(project, 'env-dump.json'), 'utf8');
  for (const value of [server.rootToken, 'e2e-state-key', ALICE_PASSWORD, STATE_URL, CLIENT_KEY, NPM_TOKEN]) expect(text).not.toContain(value);
  for (const name of Object.keys(env)) {
    expect(name.startsWith('SERVICE_')).toBe(false);
    expect(name.startsWith('SECRETFORM_')).toBe(false);
  }
}

describe('the environment of the synth child process', () => {
  test('holds the process basics and --synth-env names, never the token, state key, state URL, client key or secrets', async () => {
    const project = createProject();
    writeFileSync(join(project, 'main.js'), APP);
    const env = cliEnv(server, {
      SECRETFORM_STATE: STATE_URL,
      SERVICE_CLIENT_KEY: CLIENT_KEY,
      NODE_AUTH_TOKEN: NPM_TOKEN,
      SF_E2E_STAGE: 'staging',
      SF_E2E_REGION: 'eu-1',
      NODE_DEBUG: 'child_process',
      TZ: 'UTC',
    });

    // First synth: no earlier output, so the secret's variable is known to nobody; it is not a basic, not named.
    const first = await runCli(['synth', '--synth-env', 'SF_E2E_STAGE'], project, env);
    expect(first.code).toBe(0);
    const firstEnv = dump(project);
    expectNoCredential(project, firstEnv);
    expect(firstEnv.PATH).toBe(env.PATH);
    expect(firstEnv.HOME).toBe(env.HOME);
    expect(firstEnv.TZ).toBe('UTC');
    expect(firstEnv.NODE_DEBUG).toBe('child_process');
    expect(firstEnv.SF_E2E_STAGE).toBe('staging');
    expect(firstEnv.SF_E2E_REGION).toBeUndefined();
    expect(firstEnv.CDKTF_OUTDIR).toBe(join(project, 'cdktf.out'));
    // NODE_DEBUG=child_process prints the child's environment: still nothing secret in what the user sees.
    for (const value of [server.rootToken, 'e2e-state-key', ALICE_PASSWORD, STATE_URL]) expect(first.stderr + first.stdout).not.toContain(value);

    // Synth before plan, asking for every SF_E2E_* variable: the one a SecretValue.fromEnv of the previous
    // output names is still held back (the denylist wins over what the user asks for).
    // (plan itself needs a usable service configuration and the default state file.)
    const planEnv = { ...env };
    delete planEnv.SERVICE_CLIENT_KEY;
    delete planEnv.SECRETFORM_STATE;
    const planned = await runCli(['plan', '--synth-env', 'SF_E2E_*'], project, planEnv);
    expect(planned.code).toBe(0);
    const secondEnv = dump(project);
    expectNoCredential(project, secondEnv);
    expect(secondEnv.SF_E2E_ALICE_PASSWORD).toBeUndefined();
    expect(secondEnv.SF_E2E_STAGE).toBe('staging');
    expect(secondEnv.SF_E2E_REGION).toBe('eu-1');
    expect(secondEnv.PATH).toBe(env.PATH);
  });
});
