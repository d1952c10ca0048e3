/**
 * Protection across stacks (issue 34 item 5): stack `base` owns the auth mount `people`, stack `prod` (on the same
 * service) a protected user and a retained one in it, naming the mount by its path. Removing the mount from
 * `base` would delete both users with it on the service: `plan`, `apply` and `destroy` of `base` refuse before any
 * write, naming the users and their stack. The real binary against a dev server.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { ROOT, cliEnv, runCli } from './cli-harness';

jest.setTimeout(180_000);

let server: DevServer;
let project: string;
const writes = (from: number) => server.requestLog.slice(from).filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');

/** base: the mount (unless `mount` is false); prod (depending on base): ann (protected) and bo (retained) in it. */
function writeApp(mount: boolean): void {
  writeFileSync(join(project, 'main.js'), `${[
    `const { App, TerraformStack } = require(${JSON.stringify(join(ROOT, 'node_modules', 'cdktf'))});`,
    `const sf = require(${JSON.stringify(join(ROOT, 'dist'))});`,
    'const app = new App();',
    "const base = new TerraformStack(app, 'base');",
    mount ? "new sf.AuthMount(base, 'people', { path: 'people', type: 'userpass' });" : "new sf.SecretsMount(base, 'kv', { path: 'base-apps', type: 'kv', options: { version: '2' } });",
    "const prod = new TerraformStack(app, 'prod');",
    'prod.addDependency(base);',
    "new sf.UserpassUser(prod, 'ann', { mount: 'people', username: 'ann', password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD'), protect: true });",
    "new sf.UserpassUser(prod, 'bo', { mount: 'people', username: 'bo', password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD'), retainOnDelete: true });",
    'app.synth();',
  ].join('\n')}\n`);
}

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'across-e2e-root' });
  project = mkdtempSync(join(tmpdir(), 'secretform-across-e2e-'));
  writeFileSync(join(project, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
  writeApp(true);
  const applied = await runCli(['apply', '--stack', '*', '--auto-approve'], project, cliEnv(server));
  expect(applied.stderr).toBe('');
  expect(applied.code).toBe(0);
});

afterAll(async () => {
  await server?.close();
});

test("the mount removed from base: base's plan, apply and destroy refuse, naming prod's users; nothing is written", async () => {
  writeApp(false);
  const env = cliEnv(server);
  expect((await runCli(['synth'], project, env)).code).toBe(0);
  const from = server.requestLog.length;
  for (const args of [['plan', '--stack', 'base'], ['apply', '--stack', 'base', '--auto-approve'], ['destroy', '--stack', 'base', '--auto-approve']]) {
    const refused = await runCli([...args, '--no-synth'], project, env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('prod/ann (auth/people/users/ann): lives in base/people (sys/auth/people), which the plan would delete, taking it with it; it is protected (`protect: true`) in stack prod, on the same service');
    expect(refused.stderr).toContain('prod/bo (auth/people/users/bo): lives in base/people (sys/auth/people), which the plan would delete, taking it with it; it is retained');
  }
  expect(writes(from)).toEqual([]);
  expect((await call(server, 'GET', 'auth/people/users/ann')).status).toBe(200);
  expect((await call(server, 'GET', 'sys/auth/people')).status).toBe(200);
});
