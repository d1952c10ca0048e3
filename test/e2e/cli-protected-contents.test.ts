/**
 * A protected object is never deleted through the object it lives in (docs/guardrails.md): a `protect: true`
 * user whose unprotected auth mount the code names by its path string. Removing the mount from the code (with
 * or without --target of the mount alone) would delete the user with it on the service: plan and apply refuse
 * before any write, naming the user and its mount and how to proceed. The real binary against a
 * dev server; its request log proves nothing was written.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { ROOT, cliEnv, runCli } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

let server: DevServer;
let project: string;
let env: NodeJS.ProcessEnv;
const writes = (from: number) => server.requestLog.slice(from).filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');

/** The app: the auth mount `people` (unless `mount` is false) and alice in it, protected (unless `protect` is false), naming it by path. */
function writeApp(options: { mount: boolean; protect?: boolean }): void {
  const lines = [
    `const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});`,
    `const sf = require(${JSON.stringify(join(ROOT, 'dist'))});`,
    'const app = new App();',
    "const stack = new TerraformStack(app, 'held');",
  ];
  if (options.mount) lines.push("new sf.AuthMount(stack, 'people', { path: 'people', type: 'userpass' });");
  lines.push(
    `new sf.UserpassUser(stack, 'alice', { mount: 'people', username: 'alice', password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD'), protect: ${options.protect !== false} });`,
    'app.synth();',
  );
  writeFileSync(join(project, 'main.js'), `${lines.join('\n')}\n`);
}

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'held-e2e-root' });
  project = tempDir('secretform-held-e2e-');
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  env = cliEnv(server);
  writeApp({ mount: true });
  const applied = await runCli(['apply', '--auto-approve'], project, env);
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
});

afterAll(async () => {
  await server?.close();
});

const REFUSAL = 'held/alice (auth/people/users/alice): lives in held/people (sys/auth/people), which the plan would delete, taking it with it; it is protected';

test('the mount removed from the code: plan and apply refuse naming the user and its mount, nothing is written', async () => {
  writeApp({ mount: false });
  const from = server.requestLog.length;
  const plan = await runCli(['plan'], project, env);
  expect(plan.code).toBe(1);
  expect(plan.stderr).toContain(REFUSAL);
  expect(plan.stderr).toContain('Keep held/people (put its construct back, or leave it out of the run), or remove `protect` from held/alice');
  expect(plan.stdout).not.toContain('1 destroyed');
  const apply = await runCli(['apply', '--auto-approve', '--no-synth'], project, env);
  expect(apply.code).toBe(1);
  expect(apply.stderr).toContain(REFUSAL);
  expect(apply.stderr).toContain('nothing was changed');
  expect(writes(from)).toEqual([]);
  expect((await call(server, 'GET', 'auth/people/users/alice')).status).toBe(200);
});

test('apply --target of the removed mount alone refuses: the user goes with it though the run did not select it', async () => {
  const from = server.requestLog.length;
  const apply = await runCli(['apply', '--auto-approve', '--no-synth', '--target', 'held/people'], project, env);
  expect(apply.code).toBe(1);
  expect(apply.stderr).toContain(REFUSAL);
  expect(writes(from)).toEqual([]);
  expect((await call(server, 'GET', 'auth/people/users/alice')).status).toBe(200);
});

test('destroy --target of the mount selects the user that lives in it, and refuses', async () => {
  writeApp({ mount: true });
  const from = server.requestLog.length;
  const destroy = await runCli(['destroy', '--auto-approve', '--target', 'held/people'], project, env);
  expect(destroy.code).toBe(1);
  expect(destroy.stderr).toContain('held/alice (auth/people/users/alice): `secretform destroy` would delete it');
  expect(writes(from)).toEqual([]);
  expect((await call(server, 'GET', 'auth/people/users/alice')).status).toBe(200);
});

test('once the user is no longer protected, the mount goes and the user with it', async () => {
  writeApp({ mount: true, protect: false });
  expect((await runCli(['apply', '--auto-approve'], project, env)).code).toBe(0);
  const destroy = await runCli(['destroy', '--auto-approve', '--target', 'held/people'], project, env);
  expect(destroy.stderr).toBe('');
  expect(destroy.code).toBe(0);
  expect((await call(server, 'GET', 'auth/people/users/alice')).status).not.toBe(200);
});
