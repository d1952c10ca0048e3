/**
 * `secretform drift` through the real binary, against the dev server over a real socket, with the state in a
 * local file and in a real PostgreSQL: the lifecycle of drift over time (no drift; new drift, exit 2; the same
 * again, known; further drift, changed; acknowledged; an expired acknowledgement; resolved; drifted again,
 * episode 2; pending code), a check with a read-only login token whose requests are only GET and LIST and after
 * which the state's bytes are unchanged, two checks at once both recorded, a damaged and a newer history, and no
 * secret value in any output, history file or table.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { AuthMount, SecretsMount, UserpassUser } from '../../src/constructs';
import { SecretValue } from '../../src/secret-value';
import { call } from '../devserver/http';
import { describeWithPostgres, PG_PASSWORD, startPostgres, type PgCluster } from '../support/postgres';
import { ALICE_PASSWORD, BOB_PASSWORD, cliEnv, createProject, runCli, startCli, transcript } from './cli-harness';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(180_000);

const STACK = 'e2e';
const ALICE = `${STACK}/alice`;
let server: DevServer;
let pg: PgCluster | undefined;
let schemas = 0;

/** The app of cli-harness (userpass mount, users, KV mount), synthesized in process once per variant. */
function synthesize(users: string[], ttl: string): string {
  const outdir = tempDir('secretform-drift-synth-');
  const app = new App({ outdir });
  const stack = new TerraformStack(app, STACK);
  const userpass = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  for (const name of users) {
    const password = name === 'alice' ? SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD') : SecretValue.fromFile('user-password.txt');
    new UserpassUser(stack, name, { mount: userpass, username: name, password, tokenTtl: ttl, tokenPolicies: ['default'] });
  }
  new SecretsMount(stack, 'kv', { path: 'apps', type: 'kv', options: { version: '2' }, description: 'application secrets' });
  app.synth();
  return outdir;
}

/**
 * Users of a userpass mount the stack does not manage (named by path): objects a login token may read. The dev
 * server lets no login token read sys/ paths (mounts), as a service policy without `sys/mounts` would not.
 */
function synthesizeUsersOnly(users: string[]): string {
  const outdir = tempDir('secretform-drift-synth-');
  const app = new App({ outdir });
  const stack = new TerraformStack(app, STACK);
  for (const name of users) {
    new UserpassUser(stack, name, { mount: 'userpass', username: name, password: SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD'), tokenTtl: '1h', tokenPolicies: ['default'] });
  }
  app.synth();
  return outdir;
}

let applied: string;
let pendingCode: string;
let usersOnly: string;
beforeAll(() => {
  applied = synthesize(['alice'], '1h');
  pendingCode = synthesize(['alice', 'bob'], '2h');
  usersOnly = synthesizeUsersOnly(['alice', 'carol']);
});

beforeEach(async () => {
  server = await startDevServer({ port: 0, rootToken: 'cli-drift-root' });
});
afterEach(async () => {
  await server?.close();
});

interface Backend {
  name: string;
  /** The environment selecting a fresh state, and how to read the state and the history as stored. */
  fresh(project: string): { env: Record<string, string | undefined>; stateBytes(): Promise<string>; historyText(): Promise<string>; damage(document: unknown): Promise<void> };
}

const localFile: Backend = {
  name: 'local file',
  fresh: (project) => {
    const state = join(project, '.secretform', `${STACK}.state.json`);
    const history = join(project, '.secretform', `${STACK}.drift.json`);
    return {
      env: { SECRETFORM_STATE: undefined },
      stateBytes: () => Promise.resolve(readFileSync(state, 'utf8')),
      historyText: () => Promise.resolve(existsSync(history) ? readFileSync(history, 'utf8') : ''),
      damage: (document) => Promise.resolve(writeFileSync(history, typeof document === 'string' ? document : JSON.stringify(document))),
    };
  },
};

const postgres: Backend = {
  name: 'PostgreSQL',
  fresh: () => {
    const schema = `drift_${process.pid}_${(schemas += 1)}`;
    const inDatabase = async (sql: string, values: unknown[] = []): Promise<string> => {
      const { Client } = await import('pg');
      const client = new Client({ connectionString: pg!.url().replace(/\?.*$/, '') });
      await client.connect();
      try {
        return JSON.stringify((await client.query(sql, values)).rows);
      } finally {
        await client.end();
      }
    };
    return {
      env: { SECRETFORM_STATE: pg!.url(schema) },
      stateBytes: () => inDatabase(`SELECT s.lineage, s.serial, r.address, r.entry::text FROM "${schema}".states s JOIN "${schema}".resources r USING (stack) ORDER BY r.address`),
      historyText: () => inDatabase(`SELECT document::text FROM "${schema}".drift_history WHERE stack = $1`, [STACK]),
      damage: async (document) => {
        await inDatabase(`UPDATE "${schema}".drift_history SET document = $2::jsonb WHERE stack = $1`, [STACK, typeof document === 'string' ? JSON.stringify(document) : JSON.stringify(document)]);
      },
    };
  },
};

interface DriftJson {
  status: string;
  stacks: Array<{
    stack: string;
    status: string;
    drifted: Array<{ address: string; kind: string; fields: string[]; status: string | null; since: string | null; checks: number | null; episodes: number | null; acknowledgement: { by: string; reason: string; expired: boolean } | null }>;
    pending: Array<{ address: string; action: string; fields: string[] }>;
    resolved: Array<{ address: string; checks: number }>;
  }>;
}

function lifecycle(backend: Backend): void {
  test('the lifecycle: new, known, changed, acknowledged, expired, resolved, drifted again, pending', async () => {
    const project = createProject();
    const fresh = backend.fresh(project);
    const env = cliEnv(server, { ...fresh.env, SECRETFORM_ACTOR: 'oncall-ana' });
    const run = (args: string[], output = applied) => runCli([...args, '--no-synth', '--output', output], project, env);
    const drift = async (extra: string[] = [], output = applied) => {
      const result = await run(['drift', '--format', 'json', ...extra], output);
      if (result.code === 1) throw new Error(`drift failed: ${result.stderr}`);
      return { code: result.code, report: JSON.parse(result.stdout) as DriftJson, stderr: result.stderr };
    };
    const applyAll = await run(['apply', '--auto-approve']);
    expect(applyAll.code).toBe(0);

    // No drift.
    let check = await drift(['--detailed-exitcode']);
    expect(check.code).toBe(0);
    expect(check.report.stacks[0]).toMatchObject({ stack: STACK, status: 'no_drift', drifted: [], pending: [], resolved: [] });

    // New drift: exit 2.
    await call(server, 'POST', 'auth/userpass/users/alice', { token_ttl: 7200 });
    check = await drift(['--detailed-exitcode']);
    expect(check.code).toBe(2);
    expect(check.report.stacks[0].status).toBe('new_drift');
    expect(check.report.stacks[0].drifted).toEqual([expect.objectContaining({ address: ALICE, kind: 'changed', fields: ['token_ttl'], status: 'new', checks: 1, episodes: 1, acknowledgement: null })]);
    const since = check.report.stacks[0].drifted[0].since;

    // The same drift again: known, exit 0 (under --fail-on new), exit 2 under --fail-on any.
    check = await drift(['--detailed-exitcode']);
    expect(check.code).toBe(0);
    expect(check.report.stacks[0].drifted[0]).toMatchObject({ status: 'known', since, checks: 2, episodes: 1 });
    expect((await drift(['--detailed-exitcode', '--fail-on', 'any'])).code).toBe(2);

    // Further drift: changed, alerts again.
    await call(server, 'POST', 'auth/userpass/users/alice', { token_policies: ['default', 'admin'] });
    check = await drift(['--detailed-exitcode']);
    expect(check.code).toBe(2);
    expect(check.report.stacks[0].drifted[0]).toMatchObject({ status: 'changed', since, fields: ['token_policies', 'token_ttl'], episodes: 1 });
    expect(check.report.stacks[0].drifted[0].checks).toBe(4);

    // Acknowledged: covers exactly this drift; not even --fail-on any alerts.
    const ack = await runCli(['drift', 'ack', ALICE, '--reason', 'incident 42: longer tokens until Friday'], project, env);
    expect(ack.stderr).toBe('');
    expect(ack.code).toBe(0);
    expect(ack.stdout).toContain(`Acknowledged the drift of ${ALICE} (by oncall-ana, until it changes)`);
    check = await drift(['--detailed-exitcode', '--fail-on', 'any']);
    expect(check.code).toBe(0);
    expect(check.report.stacks[0].drifted[0]).toMatchObject({ status: 'acknowledged', acknowledgement: { by: 'oncall-ana', reason: 'incident 42: longer tokens until Friday', expired: false } });

    // An acknowledgement that expired: the drift is known again, and --fail-on any alerts. --until must still be
    // ahead when the binary reads it, a fraction of a second after its start on a quiet machine, seconds on a busy
    // one: a time it refuses as past is given again further ahead (rather than always waiting for the worst case).
    let until = 0;
    for (let ahead = 2000; ; ahead *= 2) {
      until = Date.now() + ahead;
      const acked = await runCli(['drift', 'ack', ALICE, '--reason', 'one more second', '--until', new Date(until).toISOString()], project, env);
      if (acked.code === 0) break;
      expect(acked.stderr).toContain('is not in the future');
      expect(ahead).toBeLessThan(30_000);
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now() + 100)));
    check = await drift(['--detailed-exitcode', '--fail-on', 'any']);
    expect(check.code).toBe(2);
    expect(check.report.stacks[0].drifted[0]).toMatchObject({ status: 'known', acknowledgement: { reason: 'one more second', expired: true } });

    // Resolved: apply puts the code's values back.
    expect((await run(['apply', '--auto-approve'])).code).toBe(0);
    check = await drift(['--detailed-exitcode']);
    expect(check.code).toBe(0);
    expect(check.report.stacks[0]).toMatchObject({ status: 'no_drift', drifted: [], resolved: [{ address: ALICE, checks: 6 }] });

    // Drifted again: a second episode.
    await call(server, 'POST', 'auth/userpass/users/alice', { token_ttl: 60 });
    check = await drift(['--detailed-exitcode']);
    expect(check.code).toBe(2);
    expect(check.report.stacks[0].drifted[0]).toMatchObject({ status: 'new', checks: 1, episodes: 2 });

    // Pending code (merged, not applied): listed apart, never drift.
    check = await drift(['--detailed-exitcode'], pendingCode);
    expect(check.code).toBe(0);
    expect(check.report.stacks[0].drifted).toEqual([expect.objectContaining({ address: ALICE, status: 'known' })]);
    expect(check.report.stacks[0].pending).toEqual([
      { address: ALICE, type: 'userpass_user', action: 'update', fields: ['token_ttl'] },
      { address: `${STACK}/bob`, type: 'userpass_user', action: 'create', fields: [] },
    ]);

    // --no-record: statuses shown, nothing recorded.
    const before = await fresh.historyText();
    const unrecorded = await drift(['--no-record']);
    expect(unrecorded.report.stacks[0].drifted[0]).toMatchObject({ status: 'known' });
    expect(await fresh.historyText()).toBe(before);

    // History lists both episodes of alice.
    const history = await runCli(['drift', 'history', ALICE, '--format', 'json'], project, env);
    expect(history.code).toBe(0);
    const episodes = (JSON.parse(history.stdout) as { stacks: Array<{ episodes: Array<{ resolved_at: string | null; fields: string[] }> }> }).stacks[0].episodes;
    expect(episodes.map((episode) => [episode.fields, episode.resolved_at === null])).toEqual([[['token_policies', 'token_ttl'], false], [['token_ttl'], true]]);

    // The text and markdown reports.
    const text = await run(['drift']);
    expect(text.stdout).toContain(`known        ${ALICE} (userpass_user) changed\n               since `);
    expect(text.stdout).toContain('~ token_ttl = 3600 -> 60');
    const markdown = await run(['drift', '--format', 'markdown']);
    expect(markdown.stdout.split('\n')[0]).toBe(`<!-- secretform:drift stack=${STACK} -->`);
    expect(markdown.stdout).toContain('## 🟡 Known drift: stack `e2e`');
    expect(markdown.stdout).toContain('tokenTtl: 60,');
    expect(markdown.stdout).toContain(`secretform apply --stack ${STACK} --target ${ALICE}`);

    // Bad input: an address not drifted now, and one of no stack.
    const notDrifted = await runCli(['drift', 'ack', `${STACK}/kv`, '--reason', 'x'], project, env);
    expect(notDrifted.code).toBe(1);
    expect(notDrifted.stderr).toContain(`${STACK}/kv: not drifted at the last recorded drift check of stack ${STACK}`);
    const unknown = await runCli(['drift', 'unack', `${STACK}/nobody`], project, env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`${STACK}/nobody: no acknowledgement`);

    // No secret value anywhere.
    const stored = await fresh.historyText();
    for (const text of [stored, ...transcript]) {
      expect(text).not.toContain(ALICE_PASSWORD);
      expect(text).not.toContain(BOB_PASSWORD);
      expect(text).not.toContain(PG_PASSWORD);
    }
  });

  test('read-only: a login token that can only read and list; only GET and LIST sent; the state unchanged', async () => {
    const project = createProject();
    const fresh = backend.fresh(project);
    const env = cliEnv(server, fresh.env);
    await call(server, 'POST', 'sys/auth/userpass', { type: 'userpass' });
    expect((await runCli(['apply', '--auto-approve', '--no-synth', '--output', usersOnly], project, env)).code).toBe(0);
    await call(server, 'POST', 'auth/userpass/users/alice', { token_ttl: 7200 });
    const login = await call(server, 'POST', 'auth/userpass/login/alice', { password: ALICE_PASSWORD }, null);
    const readOnlyToken = (login.body as { auth: { client_token: string } }).auth.client_token;
    const stateBefore = await fresh.stateBytes();
    const from = server.requestLog.length;

    const checked = await runCli(['drift', '--detailed-exitcode', '--no-synth', '--output', usersOnly], project, { ...env, SERVICE_TOKEN: readOnlyToken });
    expect(checked.stderr).toBe('');
    expect(checked.code).toBe(2);
    expect(checked.stdout).toContain(`new          ${ALICE}`);
    const methods = new Set(server.requestLog.slice(from).map((entry) => entry.method));
    expect([...methods].sort()).toEqual(expect.arrayContaining(['GET']));
    expect([...methods].filter((method) => method !== 'GET' && method !== 'LIST')).toEqual([]);
    expect(await fresh.stateBytes()).toBe(stateBefore);
    // The same token cannot write: the check needed nothing more.
    const write = await call(server, 'POST', 'auth/userpass/users/alice', { token_ttl: 60 }, readOnlyToken);
    expect(write.status).toBe(403);
  });

  test('two checks at once are both recorded; a damaged history keeps the check and the state; a newer one is refused', async () => {
    const project = createProject();
    const fresh = backend.fresh(project);
    const env = cliEnv(server, fresh.env);
    const args = ['--no-synth', '--output', applied];
    expect((await runCli(['apply', '--auto-approve', ...args], project, env)).code).toBe(0);
    await call(server, 'POST', 'auth/userpass/users/alice', { token_ttl: 7200 });
    const both = await Promise.all([0, 1, 2].map(() => startCli(['drift', ...args], project, env).exited));
    expect(both.map((exit) => exit.code)).toEqual([0, 0, 0]);
    const recorded = JSON.parse(backend === localFile ? await fresh.historyText() : (JSON.parse(await fresh.historyText()) as Array<{ document: string }>)[0].document) as { checks: unknown[]; episodes: Array<{ checks: number }> };
    expect(recorded.checks).toHaveLength(3);
    expect(recorded.episodes).toEqual([expect.objectContaining({ checks: 3 })]);
    if (backend === localFile) expect(statSync(join(project, '.secretform', `${STACK}.drift.json`)).mode & 0o777).toBe(0o600);

    const stateBefore = await fresh.stateBytes();
    await fresh.damage(backend === localFile ? '{"format": "secretform-drift-history", "format_ver' : { format: 'secretform-drift-history', format_version: 1, stack: STACK, checks: 'many' });
    const damaged = await runCli(['drift', ...args], project, env);
    expect(damaged.code).toBe(0);
    expect(damaged.stdout).toContain(`drifted      ${ALICE}`);
    expect(damaged.stderr).toMatch(/the drift history (file|table) .* is damaged/);
    const failOn = await runCli(['drift', '--detailed-exitcode', ...args], project, env);
    expect(failOn.code).toBe(1);
    expect(failOn.stderr).toContain('--fail-on new needs each drifted object\'s status');
    expect(await fresh.stateBytes()).toBe(stateBefore);

    await fresh.damage({ format: 'secretform-drift-history', format_version: 7, stack: STACK });
    const newer = await runCli(['drift', ...args], project, env);
    expect(newer.code).toBe(1);
    expect(newer.stderr).toContain('was written by a newer secretform (history format 7; this one reads 1)');
  });
}

/** Two independent stacks, `blue` and `green`, each a userpass mount of its own with one user. */
function synthesizeTwoStacks(): string {
  const outdir = tempDir('secretform-drift-synth-');
  const app = new App({ outdir });
  for (const name of ['blue', 'green']) {
    const stack = new TerraformStack(app, name);
    const userpass = new AuthMount(stack, 'userpass', { path: `${name}-users`, type: 'userpass' });
    new UserpassUser(stack, 'alice', { mount: userpass, username: 'alice', password: SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD'), tokenTtl: '1h', tokenPolicies: ['default'] });
  }
  app.synth();
  return outdir;
}

describe('state in a local file', () => {
  lifecycle(localFile);

  test('every stack by default: one report, a marker per stack, the exit code of the stacks together', async () => {
    const project = createProject();
    const env = cliEnv(server, { SECRETFORM_STATE: undefined });
    const output = synthesizeTwoStacks();
    const args = ['--no-synth', '--output', output];
    expect((await runCli(['apply', '--stack', '*', '--auto-approve', ...args], project, env)).code).toBe(0);
    await call(server, 'POST', 'auth/blue-users/users/alice', { token_ttl: 60 });
    const checked = await runCli(['drift', '--detailed-exitcode', '--format', 'markdown', ...args], project, env);
    expect(checked.stderr).toBe('');
    expect(checked.code).toBe(2);
    expect(checked.stdout.split('\n').filter((line) => line.startsWith('<!-- secretform:drift'))).toEqual(['<!-- secretform:drift stack=blue -->', '<!-- secretform:drift stack=green -->']);
    expect(checked.stdout).toContain('## 🔴 New drift: stack `blue`');
    expect(checked.stdout).toContain('## ✅ No drift: stack `green`');
    expect(existsSync(join(project, '.secretform', 'blue.drift.json'))).toBe(true);
    expect(existsSync(join(project, '.secretform', 'green.drift.json'))).toBe(true);
    const onlyGreen = await runCli(['drift', '--stack', 'green', '--detailed-exitcode', ...args], project, env);
    expect(onlyGreen.code).toBe(0);
  });
});

describeWithPostgres('state in PostgreSQL', () => {
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.stop());
  lifecycle(postgres);
});
