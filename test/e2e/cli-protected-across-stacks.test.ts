/**
 * Protection across stacks (issue 34 item 5): stack `base` owns the auth mount `people`, stack `prod` (on the same
 * service) a protected user and a retained one in it, naming the mount by its path. Removing the mount from
 * `base` would delete both users with it on the service: `plan`, `apply` and `destroy` of `base` refuse before any
 * write, naming the users and their stack. The check fails closed: when prod's state cannot be read (damaged), or
 * cannot be found (one `--state FILE` serves the run), base's removals are refused all the same, naming prod, the
 * reason and how to proceed; with the states in PostgreSQL too (prod's rows damaged). The real binary against a
 * dev server.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { describeWithPostgres, startPostgres, type PgCluster } from '../support/postgres';
import { ROOT, cliEnv, runCli } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(180_000);

let server: DevServer;
let project: string;
const writes = (from: number) => server.requestLog.slice(from).filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');

/** base: the mount (unless `mount` is false); prod (depending on base): ann (protected) and bo (retained) in it. */
function writeApp(mount: boolean, dir = project): void {
  writeFileSync(join(dir, 'main.js'), `${[
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
  project = tempDir('secretform-across-e2e-');
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

const RUNS = [['plan', '--stack', 'base'], ['apply', '--stack', 'base', '--auto-approve'], ['destroy', '--stack', 'base', '--auto-approve']];

test("prod's state damaged: base's removals are refused, naming prod and why; a plan that removes nothing still runs", async () => {
  writeApp(false);
  const env = cliEnv(server);
  expect((await runCli(['synth'], project, env)).code).toBe(0);
  const prodState = join(project, '.secretform', 'prod.state.json');
  const kept = readFileSync(prodState, 'utf8');
  writeFileSync(prodState, '{"version": 1, "lineage": ');
  try {
    const from = server.requestLog.length;
    for (const args of RUNS) {
      const refused = await runCli([...args, '--no-synth'], project, env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('the plan would delete or replace base/people (sys/auth/people), and whether that takes with it a protected or retained object of another stack on the same service cannot be checked, so nothing was changed');
      expect(refused.stderr).toContain(`prod: state file ${prodState} is not valid JSON`);
      expect(refused.stderr).toContain('Make its state readable (a run of that stack alone, `secretform plan --stack prod`, says the same), then run again');
    }
    expect(writes(from)).toEqual([]);
    expect((await call(server, 'GET', 'auth/people/users/ann')).status).toBe(200);
    expect((await call(server, 'GET', 'sys/auth/people')).status).toBe(200);
    // Nothing removed, nothing to check: base's plan with the mount kept runs as before.
    writeApp(true);
    const unchanged = await runCli(['plan', '--stack', 'base', '--detailed-exitcode'], project, env);
    expect(unchanged.stderr).toBe('');
    expect(unchanged.code).toBe(0);
  } finally {
    writeFileSync(prodState, kept);
  }
});

test("one --state file for base: prod's state cannot be found, so base's removals are refused; {stack} finds it", async () => {
  writeApp(false);
  const env = cliEnv(server);
  expect((await runCli(['synth'], project, env)).code).toBe(0);
  const baseState = join(project, '.secretform', 'base.state.json');
  const from = server.requestLog.length;
  for (const args of RUNS) {
    const refused = await runCli([...args, '--no-synth', '--state', baseState], project, env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the plan would delete or replace base/people (sys/auth/people)');
    expect(refused.stderr).toContain(`prod: the state file ${baseState} is stack base's. Give each stack its own state: put {stack} in the path`);
  }
  expect(writes(from)).toEqual([]);
  expect((await call(server, 'GET', 'auth/people/users/ann')).status).toBe(200);
  // With {stack}, prod's state is read and its users are what refuses base's delete.
  const named = await runCli(['plan', '--stack', 'base', '--no-synth', '--state', join(project, '.secretform', '{stack}.state.json')], project, env);
  expect(named.code).toBe(1);
  expect(named.stderr).toContain('prod/ann (auth/people/users/ann): lives in base/people (sys/auth/people), which the plan would delete');
  expect(writes(from)).toEqual([]);
});

describeWithPostgres('states in PostgreSQL', () => {
  let pg: PgCluster | undefined;
  let own: DevServer | undefined;
  beforeAll(async () => {
    pg = await startPostgres();
    own = await startDevServer({ port: 0, rootToken: 'across-pg-root' });
  }, 120_000);
  afterAll(async () => {
    await own?.close();
    pg?.stop();
  });

  test("prod's rows damaged in the database: base's removal is refused, naming prod and the database's complaint", async () => {
    const dir = tempDir('secretform-across-pg-e2e-');
    writeFileSync(join(dir, 'cdktf.json'), JSON.stringify({ language: 'typescript', app: 'node main.js' }));
    const env = cliEnv(own!, { SECRETFORM_STATE: pg!.url('across') });
    writeApp(true, dir);
    const applied = await runCli(['apply', '--stack', '*', '--auto-approve'], dir, env);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const admin = await pg!.admin();
    try {
      await admin.query(`UPDATE across.resources SET entry = '{"type": 5}'::jsonb WHERE stack = 'prod' AND address = 'prod/ann'`);
    } finally {
      await admin.end();
    }
    writeApp(false, dir);
    const from = own!.requestLog.length;
    const refused = await runCli(['apply', '--stack', 'base', '--auto-approve'], dir, env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('the plan would delete or replace base/people (sys/auth/people), and whether that takes with it a protected or retained object of another stack on the same service cannot be checked');
    expect(refused.stderr).toMatch(/\n {2}prod: .*prod\/ann/);
    expect(own!.requestLog.slice(from).filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST')).toEqual([]);
    expect((await call(own!, 'GET', 'sys/auth/people')).status).toBe(200);
  });
});
