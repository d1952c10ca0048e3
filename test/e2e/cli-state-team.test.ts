/**
 * Team workflows through the real CLI, against the dev server, with the state in a local file and in a real
 * PostgreSQL (a throwaway cluster of this file's own): two applies at once, SIGKILL during an apply, the lock
 * timeout, force-unlock, history and restore, moving a stack between backends, and no secret value (nor the
 * database password) anywhere in the tables or in what the commands printed.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { App, TerraformStack } from 'cdktf';
import { AuthMount, SecretsMount, UserpassUser } from '../../src/constructs';
import { plan } from '../../src';
import { statePull } from '../../src/engine';
import { SecretValue } from '../../src/secret-value';
import { call } from '../devserver/http';
import { startLockHolder } from '../support/lock-holder';
import { describeWithPostgres, PG_PASSWORD, startPostgres, type PgCluster } from '../support/postgres';
import { ALICE_PASSWORD, BOB_PASSWORD, cliEnv, createProject, runCli, startCli, transcript, waitFor } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(120_000);

let server: DevServer;
let pg: PgCluster | undefined;
let schemas = 0;
const projects: string[] = [];

/** The user sets the tests apply, each synthesized once (synth is the slow part) and shared with --output. */
const USER_SETS = {
  pair: Array.from({ length: 25 }, (_, n) => `t${n}`),
  pairLate: [...Array.from({ length: 25 }, (_, n) => `t${n}`), 'late'],
  kill: Array.from({ length: 16 }, (_, n) => `k${n}`),
  history: ['h1', 'h2'],
  historyFewer: ['h1'],
  move: ['alice', 'm2'],
};
type UserSet = keyof typeof USER_SETS;
const synthOutput: Partial<Record<UserSet, string>> = {};

/**
 * The app of cli-harness (a userpass mount, the users, a KV mount), synthesized in process: the same constructs,
 * without starting a node process and loading cdktf once per user set.
 */
function synthesizeUsers(users: string[]): string {
  const outdir = tempDir('secretform-team-synth-');
  const app = new App({ outdir });
  const stack = new TerraformStack(app, 'e2e');
  const userpass = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  for (const name of users) {
    const password = name === 'alice' ? SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD') : SecretValue.fromFile('user-password.txt');
    new UserpassUser(stack, name, { mount: userpass, username: name, password, tokenTtl: '1h', tokenPolicies: ['default'] });
  }
  new SecretsMount(stack, 'kv', { path: 'apps', type: 'kv', options: { version: '2' }, description: 'application secrets' });
  app.synth();
  return outdir;
}

beforeAll(() => {
  for (const [name, users] of Object.entries(USER_SETS)) synthOutput[name as UserSet] = synthesizeUsers(users);
});

/** Each test gets a dev server of its own (so the same user names can be used with both backends). */
beforeEach(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-state-team-root', latencyMs: 40 });
});

afterEach(async () => {
  await server?.close();
});

interface Backend {
  name: string;
  /** A fresh state for a new project: the environment that selects it, and the --state value for helper processes. */
  fresh(project: string): { env: Record<string, string | undefined>; state: string };
}

const localFile: Backend = {
  name: 'local file',
  fresh: (project) => ({ env: { SECRETFORM_STATE: undefined }, state: join(project, '.secretform', 'e2e.state.json') }),
};

const postgres: Backend = {
  name: 'PostgreSQL',
  fresh: () => {
    const url = pg!.url(`cli_${process.pid}_${(schemas += 1)}`);
    return { env: { SECRETFORM_STATE: url }, state: url };
  },
};

async function usersOnServer(): Promise<string[]> {
  const listed = await call(server, 'LIST', 'auth/userpass/users');
  return listed.status === 200 ? [...listed.body.data.keys].sort() : [];
}

/** A project whose runs use the synth output of `set` (`--no-synth --output` is in `run`). */
function setup(backend: Backend, set: UserSet): { project: string; env: NodeJS.ProcessEnv; state: string; users: string[]; run: (args: string[], set?: UserSet) => string[] } {
  const project = createProject();
  projects.push(project);
  const fresh = backend.fresh(project);
  return {
    project,
    env: cliEnv(server, fresh.env),
    state: fresh.state,
    users: USER_SETS[set],
    run: (args, other = set) => [...args, '--no-synth', '--output', synthOutput[other]!],
  };
}

/** The stack's state as it stands (read in process: the CLI's `state pull` is tested on its own below). */
async function pulled(project: string, env: NodeJS.ProcessEnv, extra: string[] = []): Promise<{ lineage: string; serial: number; resources: Record<string, unknown> }> {
  const state = extra[0] === '--state' ? extra[1] : undefined;
  const read = await statePull({ stack: 'e2e', desired: { kind: 'synth-output', outdir: project }, cwd: project, env, statePath: state });
  if (!read.ok) throw read.error;
  return read.value;
}

/** The addresses the plan would change, by action (planned in process over the synth output the args name). */
async function planned(project: string, env: NodeJS.ProcessEnv, args: string[]): Promise<{ create: string[]; other: string[] }> {
  const outdir = args[args.indexOf('--output') + 1];
  const result = await plan({ stack: 'e2e', desired: { kind: 'synth-output', outdir }, cwd: project, env });
  if (!result.ok) throw result.error;
  const changes = result.value.changes;
  return {
    create: changes.filter((c) => c.action === 'create').map((c) => c.address).sort(),
    other: changes.filter((c) => c.action !== 'create' && c.action !== 'no-op').map((c) => c.address).sort(),
  };
}

function teamBehaviours(backend: Backend): void {
  test('two applies at once: one fails at once naming the holder, one waits with --lock-timeout; no state is lost', async () => {
    await server.close();
    server = await startDevServer({ port: 0, rootToken: 'cli-state-team-root', latencyMs: 100 });
    const { project, env, users, run } = setup(backend, 'pair');
    const first = startCli(run(['apply', '--auto-approve', '--parallelism', '1']), project, env);
    await waitFor(() => first.stdout().includes(': created'), 'the first apply to hold the lock and create something');

    const refused = await runCli(run(['apply', '--auto-approve']), project, env);
    expect(first.child.exitCode).toBeNull(); // the first one was still running
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`is locked by secretform apply (pid ${first.child.pid} on host`);
    expect(refused.stderr).toContain('--lock-timeout');

    // The second one adds a user: it must see everything the first one recorded, and keep it.
    const waited = await runCli(run(['apply', '--auto-approve', '--lock-timeout', '60s'], 'pairLate'), project, env);
    expect((await first.exited).code).toBe(0);
    expect(waited.stderr).toBe('');
    expect(waited.code).toBe(0);
    const state = await pulled(project, env);
    expect(Object.keys(state.resources).sort()).toEqual(['e2e/kv', 'e2e/late', ...users.map((u) => `e2e/${u}`), 'e2e/userpass'].sort());
    expect(await planned(project, env, run([], 'pairLate'))).toEqual({ create: [], other: [] });
  });

  test('SIGKILL during an apply: the next plan shows exactly what remains, and the next apply starts at once', async () => {
    const { project, env, state: where, users, run } = setup(backend, 'kill');
    const running = startCli(run(['apply', '--auto-approve', '--parallelism', '2']), project, env);
    await waitFor(() => (running.stdout().match(/e2e\/k\d+: created/g) ?? []).length >= 5, 'five users created');
    running.child.kill('SIGKILL');
    await running.exited;
    if (backend === localFile) expect(existsSync(`${where}.journal`)).toBe(true);

    const recorded = Object.keys((await pulled(project, env)).resources).filter((a) => users.includes(a.slice(4))).map((a) => a.slice(4)).sort();
    const onServer = (await usersOnServer()).filter((u) => users.includes(u));
    expect(recorded.length).toBeGreaterThanOrEqual(5);
    expect(recorded.length).toBeLessThan(users.length);
    // Everything recorded exists. What exists unrecorded is not bounded by --parallelism: a slot frees once the
    // service answered, and the creates that finish while a state write is on its way wait for the next one
    // (state-writer.ts groups them), so a slow disk leaves more of them; the plan below adopts each one.
    for (const user of recorded) expect(onServer).toContain(user);
    // The plan creates exactly what the service lacks, and adopts (without creating) what reached it unrecorded.
    const rest = await planned(project, env, run([]));
    expect(rest.create).toEqual(users.filter((u) => !onServer.includes(u)).map((u) => `e2e/${u}`).sort());
    expect(rest.other).toEqual(onServer.filter((u) => !recorded.includes(u)).map((u) => `e2e/${u}`).sort());

    const started = Date.now();
    const next = await runCli(run(['apply', '--auto-approve']), project, env);
    expect(next.stderr).toBe('');
    expect(next.code).toBe(0);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(await planned(project, env, run([]))).toEqual({ create: [], other: [] });
    expect(Object.keys((await pulled(project, env)).resources)).toEqual(expect.arrayContaining(users.map((u) => `e2e/${u}`)));
    if (backend === localFile) expect(existsSync(`${where}.journal`)).toBe(false);
  });

  test('force-unlock asks (refuses without --force on a pipe), removes a live holder\'s lock, and the next apply runs', async () => {
    const { project, env, state: where, run } = setup(backend, 'move');
    const holder = await startLockHolder(where, 'e2e', 'hold');
    try {
      const blocked = await runCli(run(['apply', '--auto-approve', '--lock-timeout', '300ms']), project, env);
      expect(blocked.code).toBe(1);
      expect(blocked.stderr).toContain(`is locked by secretform apply (pid ${holder.child.pid} on host`);
      expect(blocked.stderr).toContain('waited 300ms');
      const asked = await runCli(['force-unlock', '--stack', 'e2e'], project, env);
      expect(asked.code).toBe(1);
      expect(asked.stdout).toContain(`The state is locked by secretform apply (pid ${holder.child.pid}`);
      expect(asked.stderr).toContain('pass --force');
      const forced = await runCli(['force-unlock', '--stack', 'e2e', '--force'], project, env);
      expect(forced.stderr).toBe('');
      expect(forced.code).toBe(0);
      expect(forced.stdout).toContain(`Removed the lock of secretform apply (pid ${holder.child.pid}`);
      const applied = await runCli(run(['apply', '--auto-approve']), project, env);
      expect(applied.stderr).toBe('');
      expect(applied.code).toBe(0);
      expect((await runCli(['force-unlock', '--stack', 'e2e', '--force'], project, env)).stdout).toContain('The state is not locked. Nothing to do.');
    } finally {
      holder.child.kill('SIGKILL');
    }
  });

  test('history lists each version with its serial, time and command; restore makes an old one current again', async () => {
    const { project, env, run } = setup(backend, 'history');
    expect((await runCli(run(['apply', '--auto-approve']), project, env)).code).toBe(0);
    expect((await runCli(run(['apply', '--auto-approve'], 'historyFewer'), project, env)).code).toBe(0);
    const history = await runCli(['state', 'history', '--stack', 'e2e'], project, env);
    expect(history.code).toBe(0);
    const rows = history.stdout.split('\n').filter((line) => /^\d+\s/.test(line)).map((line) => line.split(/\s+/));
    expect(rows.length).toBe(2);
    expect(rows.map((row) => row.slice(3).join(' '))).toEqual(['secretform apply', 'secretform apply']);
    expect(rows.every((row) => !Number.isNaN(Date.parse(row[1])))).toBe(true);
    const [newest, oldest] = rows.map((row) => Number(row[0]));
    expect(newest).toBeGreaterThan(oldest);
    expect(Object.keys((await pulled(project, env)).resources)).not.toContain('e2e/h2');

    const restored = await runCli(['state', 'restore', String(oldest), '--stack', 'e2e'], project, env);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain(`Restored version ${oldest}`);
    const after = await pulled(project, env);
    expect(Object.keys(after.resources)).toContain('e2e/h2');
    expect(after.serial).toBeGreaterThan(newest);
    const missing = await runCli(['state', 'restore', '999999', '--stack', 'e2e'], project, env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('keeps no version with serial 999999');
  });
}

describe('state in a local file', () => {
  teamBehaviours(localFile);
});

describeWithPostgres('state in PostgreSQL', () => {
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.stop());

  teamBehaviours(postgres);

  test('state pull / push move a stack from the local file to PostgreSQL and back; another lineage is refused unless --force', async () => {
    const { project, env, run } = setup(localFile, 'move');
    expect((await runCli(run(['apply', '--auto-approve']), project, env)).code).toBe(0);
    const local = await runCli(['state', 'pull', '--stack', 'e2e'], project, env);
    writeFileSync(join(project, 'moved.json'), local.stdout);
    const url = pg!.url('moved');
    const pushed = await runCli(['state', 'push', 'moved.json', '--state', url], project, env);
    expect(pushed.stderr).toBe('');
    expect(pushed.code).toBe(0);
    const fromPg = await pulled(project, env, ['--state', url]);
    expect(fromPg.lineage).toBe(JSON.parse(local.stdout).lineage);
    expect(fromPg.resources).toEqual(JSON.parse(local.stdout).resources);
    const plan = await runCli(run(['plan', '--detailed-exitcode', '--state', url]), project, env);
    expect(plan.code).toBe(0);

    const other = setup(localFile, 'historyFewer');
    expect((await runCli(other.run(['apply', '--auto-approve']), other.project, other.env)).code).toBe(0);
    writeFileSync(join(other.project, 'other.json'), (await runCli(['state', 'pull', '--stack', 'e2e'], other.project, other.env)).stdout);
    const refused = await runCli(['state', 'push', 'other.json', '--state', url], other.project, other.env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/has lineage .* but the state in postgres:\/\/sf_team:\*\*\*@127\.0\.0\.1:\d+\/sf_state\?schema=moved has lineage/);
    const forced = await runCli(['state', 'push', 'other.json', '--state', url, '--force'], other.project, other.env);
    expect(forced.code).toBe(0);
    expect(Object.keys((await pulled(other.project, other.env, ['--state', url])).resources)).toContain('e2e/h1');

    // And back: the PostgreSQL state into a fresh local file, through SECRETFORM_STATE.
    const fromEnv = await runCli(['state', 'pull', '--stack', 'e2e'], project, { ...env, SECRETFORM_STATE: url });
    writeFileSync(join(project, 'back.json'), fromEnv.stdout);
    const back = await runCli(['state', 'push', 'back.json', '--state', 'elsewhere/e2e.json'], project, env);
    expect(back.code).toBe(0);
    expect(Object.keys((await pulled(project, env, ['--state', 'elsewhere/e2e.json'])).resources)).toContain('e2e/h1');
  });

  test('no secret value is in any table, and the database password is in no output', () => {
    const dump = pg!.dump();
    expect(dump).toContain('userpass_user'); // the tables were written
    for (const secret of [ALICE_PASSWORD, BOB_PASSWORD]) {
      expect(dump).not.toContain(secret);
      expect(dump).not.toContain(Buffer.from(secret).toString('base64'));
    }
    const printed = transcript.join('\n');
    expect(printed).toContain('sf_team:***@'); // URLs were printed, masked
    expect(printed).not.toContain(PG_PASSWORD);
    for (const secret of [ALICE_PASSWORD, BOB_PASSWORD]) expect(printed).not.toContain(secret);
  });
});

test('no secret value in any local state file, journal or history version the tests above left', () => {
  let checked = 0;
  const walk = (path: string): void => {
    for (const name of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, name.name);
      if (name.isDirectory()) walk(full);
      else {
        const text = readFileSync(full, 'utf8');
        checked += 1;
        for (const secret of [ALICE_PASSWORD, BOB_PASSWORD]) {
          if (text.includes(secret)) throw new Error(`a secret value is in ${full}`);
        }
      }
    }
  };
  for (const project of projects) if (existsSync(join(project, '.secretform'))) walk(join(project, '.secretform'));
  expect(checked).toBeGreaterThan(3);
});
