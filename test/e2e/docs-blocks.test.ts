/**
 * The shell blocks of docs/state.md, docs/drift.md and docs/policies.md, run by bash as written (`secretform` on
 * the PATH, as a project's `npx secretform` or a global install gives it), in projects whose stacks and addresses
 * are the ones the blocks name, against a dev server, and PostgreSQL from test/support where a block moves a
 * state there. What differs from a reader's terminal is said where it is done: the PostgreSQL URLs of the pages
 * (a server at db.internal or db) become the test's cluster, with its password in PGPASSWORD as the page says.
 */
import { runBash, type BashRun } from '../support/run-bash';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { describeWithPostgres, PG_PASSWORD, startPostgres, type PgCluster } from '../support/postgres';
import { markdownFileBlocks } from '../support/readme-blocks';
import { cliEnv, createLinkedProject, ROOT } from './cli-harness';

jest.setTimeout(300_000);

const PASSWORD = 'docs-blocks-password-6d2a';

/**
 * Stack `name`: a userpass mount and a user per name in `users` (tokens of DOCS_TTL, default 1h; the password
 * from a file).
 */
function app(name: string, users: readonly string[]): string {
  return `
const { App, TerraformStack } = require('cdktf');
const sf = require('secretform');
const app = new App();
const stack = new TerraformStack(app, ${JSON.stringify(name)});
const userpass = new sf.AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
for (const user of ${JSON.stringify(users)}) {
  new sf.UserpassUser(stack, user, { mount: userpass, username: user, password: sf.SecretValue.fromFile('password.txt'), tokenPolicies: ['default'], tokenTtl: process.env.DOCS_TTL || '1h' });
}
app.synth();
`;
}

function project(prefix: string, appText: string): string {
  const dir = createLinkedProject(prefix, appText, 'cdktf');
  writeFileSync(join(dir, 'password.txt'), `${PASSWORD}\n`);
  return dir;
}

let server: DevServer;

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: 'docs-root' });
});

afterAll(async () => {
  await server?.close();
});

/** The run's environment: the dev server, `secretform` on the PATH, and what else the case sets. */
function env(dir: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const base = cliEnv(server, { SECRETFORM_SYNTH_ENV: 'DOCS_TTL', ...extra });
  return { ...base, PATH: `${join(dir, 'node_modules', '.bin')}:${base.PATH ?? ''}` };
}

type Ran = BashRun;

function bash(script: string, cwd: string, environment: NodeJS.ProcessEnv): Promise<Ran> {
  return runBash(script, cwd, environment);
}

/** A marked block of a docs page, with `edit` applied (each edit said in the test). */
function block(page: string, name: string, edit: (text: string) => string = (text) => text): string {
  const text = markdownFileBlocks(join(ROOT, 'docs', page)).get(name);
  if (text === undefined) throw new Error(`docs/${page} has no block marked <!-- example: ${name} -->`);
  return edit(text);
}

/** Runs a command of the setup and expects it to succeed. */
async function setup(command: string, cwd: string, environment: NodeJS.ProcessEnv): Promise<Ran> {
  const ran = await bash(command, cwd, environment);
  if (ran.code !== 0) throw new Error(`setup \`${command}\` failed (${ran.code}): ${ran.stderr}`);
  return ran;
}

test('docs/drift.md: drift-ack.sh acknowledges the drift of platform/ci-bot, then takes it back', async () => {
  const dir = project('secretform-docs-drift-', app('platform', ['ci-bot']));
  const environment = env(dir);
  await setup('secretform apply --auto-approve', dir, environment);
  // ci-bot is made an admin outside secretform, as in the page's incident; the nightly check records it.
  const changed = await fetch(`${server.url}/v1/auth/userpass/users/ci-bot`, {
    method: 'POST',
    headers: { 'X-Service-Token': server.rootToken, 'Content-Type': 'application/json' },
    body: JSON.stringify({ token_policies: ['default', 'admin'] }),
  });
  expect(changed.status).toBeLessThan(300);
  await bash('secretform drift', dir, environment);

  const ran = await bash(block('drift.md', 'drift-ack.sh'), dir, environment);
  expect(ran.stderr).toBe('');
  expect(ran.code).toBe(0);
  expect(ran.stdout).toContain('platform/ci-bot');
  // Taken back: the next check alerts on it again.
  const check = await bash('secretform drift --detailed-exitcode --fail-on any', dir, environment);
  expect(check.code).toBe(2);
});

test('docs/policies.md: policy-flags.sh plans with the recommended pack and the page\'s team.ts, writes SARIF, and applies', async () => {
  const dir = project('secretform-docs-policies-', app('prod', ['ci-bot']));
  mkdirSync(join(dir, 'policies'));
  writeFileSync(join(dir, 'policies', 'team.ts'), block('policies.md', 'team.ts'));
  // The test's stdin is no terminal to answer apply's question: it approves with the flag a CI job passes.
  const script = block('policies.md', 'policy-flags.sh', (text) => text.replace(/^(secretform apply .*policies\/team\.ts)$/m, '$1 --auto-approve'));
  expect(script).toContain('--auto-approve');
  const ran = await bash(script, dir, env(dir));
  expect(ran.stderr).toBe('Policy results written to results.sarif (SARIF 2.1.0)\n');
  expect(ran.code).toBe(0);
  expect(ran.stdout).toMatch(/Policies \(/);
  const sarif = readFileSync(join(dir, 'results.sarif'), 'utf8');
  expect(JSON.parse(sarif)).toMatchObject({ version: '2.1.0' });
  expect(sarif).toContain('team-short-ttl');
  const user = await fetch(`${server.url}/v1/auth/userpass/users/ci-bot`, { headers: { 'X-Service-Token': server.rootToken } });
  expect(user.status).toBe(200);
});

describe('docs/state.md', () => {
  let dir: string;

  beforeAll(async () => {
    dir = project('secretform-docs-state-', app('prod', ['ci-bot']));
    await setup('secretform apply --auto-approve', dir, env(dir));
    // The history the page restores from, as a project with many applies behind it has one: the state file's
    // serial set to 40 (the stand-in for those applies), then the state pushed onto itself, which keeps serial 41.
    const file = join(dir, '.secretform', 'prod.state.json');
    writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), serial: 40 }));
    await setup('secretform state pull > pulled.json && secretform state push pulled.json', dir, env(dir));
  });

  test('history-restore.sh lists the versions and brings serial 41 back, as a new serial', async () => {
    // An apply after it (the token's TTL changed) writes the versions after 41.
    await setup('secretform apply --auto-approve', dir, env(dir, { DOCS_TTL: '2h' }));
    const ran = await bash(block('state.md', 'history-restore.sh'), dir, env(dir));
    expect(ran.stderr).toBe('');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/^41\s/m);
    // The state remembers the 1h token again, while the service has the 2h one: the plan reads it as drift.
    const plan = await bash('secretform plan --detailed-exitcode', dir, env(dir, { DOCS_TTL: '2h' }));
    expect(plan.code).toBe(2);
    expect(plan.stdout).toContain('~ token_ttl = 3600 -> 7200');
  });

  describeWithPostgres('with PostgreSQL', () => {
    let pg: PgCluster;

    beforeAll(async () => {
      pg = await startPostgres();
    }, 60_000);
    afterAll(() => pg?.stop());

    /** The page's URL of a server named `host` as the test cluster's (without the password: PGPASSWORD has it). */
    const atCluster = (text: string, url: string, schema: string): string => {
      expect(text).toContain(url);
      return text.split(url).join(pg.url(schema).replace(`:${PG_PASSWORD}@`, '@'));
    };

    test('postgres-team.sh moves the local state of stack prod into PostgreSQL, which every later run then uses', async () => {
      const script = block('state.md', 'postgres-team.sh', (text) => atCluster(text, 'postgres://secretform@db.internal:5432/infra?schema=secretform', 'secretform'));
      const ran = await bash(script, dir, env(dir, { PGPASSWORD: PG_PASSWORD }));
      expect(ran.stderr).toBe('');
      expect(ran.code).toBe(0);
      const pulled = await bash('secretform state pull', dir, env(dir, { PGPASSWORD: PG_PASSWORD, SECRETFORM_STATE: pg.url('secretform') }));
      expect(Object.keys(JSON.parse(pulled.stdout).resources as object)).toHaveLength(2);
    });

    test('state-move.sh pulls stack prod and pushes it into PostgreSQL', async () => {
      const script = block('state.md', 'state-move.sh', (text) => atCluster(text, 'postgres://team@db/infra', 'moved'));
      const ran = await bash(script, dir, env(dir, { PGPASSWORD: PG_PASSWORD }));
      expect(ran.stderr).toBe('');
      expect(ran.code).toBe(0);
      const pulled = await bash(`secretform state pull --state '${pg.url('moved')}'`, dir, env(dir));
      expect(Object.keys(JSON.parse(pulled.stdout).resources as object)).toHaveLength(2);
    });
  });
});
