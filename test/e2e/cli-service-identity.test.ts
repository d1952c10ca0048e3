/**
 * A stack's state knows which service it was applied to (docs/state.md, "Which service a state belongs to"), as a
 * new user meets it going from one environment to two: `prod` applied on server A, then its ServiceConnection
 * pointed at server B. The run is refused before any write to B (apply before any request), naming both services
 * and `--migrate-state`;
 * a state without a recorded service (an older version's) is accepted, its plan against the wrong server says
 * the address may be wrong, and the next apply records the service; `--migrate-state` moves the stack on
 * purpose. With the state in a local file and in PostgreSQL; the real binary against two dev servers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DevServer } from '../../src/devserver/server';
import { call } from '../devserver/http';
import { describeWithPostgres, startPostgres, type PgCluster } from '../support/postgres';
import { closeTwoServices, identityEnv, identityProject, startTwoServices, writeProdApp, type TwoServices } from '../support/service-identity-app';
import { runCli } from './cli-harness';

jest.setTimeout(240_000);

const TOKEN = 'identity-root-token-4e1b';
let services: TwoServices | undefined;
let a: DevServer;
let b: DevServer;

beforeEach(async () => {
  services = await startTwoServices(TOKEN);
  ({ a, b } = services);
});

afterEach(() => closeTwoServices(services));

/** The app: stack `prod` on `address` (its ServiceConnection), with five objects: two mounts and three users. */
function writeApp(project: string, address: string): void {
  writeProdApp(project, address, [
    "new sf.SecretsMount(stack, 'kv', { path: 'apps', type: 'kv', options: { version: '2' } });",
    "const people = new sf.AuthMount(stack, 'people', { path: 'people', type: 'userpass' });",
    "for (const name of ['ann', 'bo', 'cy']) new sf.UserpassUser(stack, name, { mount: people, username: name, password: sf.SecretValue.fromEnv('SF_E2E_ALICE_PASSWORD') });",
  ]);
}

interface Backend {
  /** The environment selecting a fresh state, and how to make that state forget its service (as an older version wrote it). */
  fresh(project: string): Promise<{ env: Record<string, string | undefined>; forgetService: () => Promise<void> }>;
}

const localFile: Backend = {
  fresh: (project) => Promise.resolve({
    env: { SECRETFORM_STATE: undefined },
    forgetService: () => {
      const path = join(project, '.secretform', 'prod.state.json');
      const { service: _service, ...older } = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
      writeFileSync(path, `${JSON.stringify(older, null, 2)}\n`);
      return Promise.resolve();
    },
  }),
};

let pg: PgCluster | undefined;
let schemas = 0;
const postgres: Backend = {
  fresh: () => {
    const schema = `identity_${process.pid}_${(schemas += 1)}`;
    return Promise.resolve({
      env: { SECRETFORM_STATE: pg!.url(schema) },
      forgetService: async () => {
        const admin = await pg!.admin();
        try {
          await admin.query(`DELETE FROM ${schema}.services`);
        } finally {
          await admin.end();
        }
      },
    });
  },
};

function identityBehaviours(backend: Backend): void {
  test('prod applied on A, then pointed at B: refused before any write, naming both; an older state is accepted and gets its service; --migrate-state moves it', async () => {
    const project = identityProject('secretform-identity-e2e-');
    const state = await backend.fresh(project);
    // SERVICE_ADDR names nothing: each run talks to the stack's connection only.
    const env = identityEnv(TOKEN, state.env);
    const pulled = async () => JSON.parse((await runCli(['state', 'pull', '--stack', 'prod'], project, env)).stdout) as { serial: number; service?: string; resources: Record<string, unknown> };

    writeApp(project, a.url);
    const applied = await runCli(['apply', '--auto-approve'], project, env);
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const onA = await pulled();
    expect(onA.service).toBe(a.url);
    expect(Object.keys(onA.resources)).toHaveLength(5);

    // Pointed at B: plan and apply refuse, naming both services. B gets no write; apply sends it nothing at all
    // (a plan's read-ahead may have read from it while the state was being read).
    writeApp(project, b.url);
    const writes = () => b.requestLog.filter((entry) => entry.method !== 'GET' && entry.method !== 'LIST');
    for (const args of [['plan'], ['apply', '--auto-approve', '--no-synth']]) {
      const before = b.requestLog.length;
      const refused = await runCli(args, project, env);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`stack prod: its state (`);
      expect(refused.stderr).toContain(`was applied to the service at ${a.url}, but this run's connection (prod/service) names ${b.url}, so nothing was changed`);
      expect(refused.stderr).toContain('secretform apply --migrate-state');
      if (args[0] === 'apply') expect(b.requestLog.slice(before)).toEqual([]);
    }
    expect(writes()).toEqual([]);
    expect(await pulled()).toEqual(onA);

    // A state that records no service (an older version's): accepted, and its plan against B says what is likely wrong.
    await state.forgetService();
    const older = await runCli(['plan', '--no-synth'], project, env);
    expect(older.code).toBe(0);
    expect(older.stdout + older.stderr).toContain(`5 of the 5 objects recorded in state were not found on ${b.url}: the address may be wrong`);
    expect(writes()).toEqual([]);
    // The next apply (on A, nothing to change) records the service.
    writeApp(project, a.url);
    const unchanged = await runCli(['apply', '--auto-approve'], project, env);
    expect(unchanged.code).toBe(0);
    expect((await pulled()).service).toBe(a.url);

    // Moved on purpose: --migrate-state plans against B and apply records it; A is then the other service.
    writeApp(project, b.url);
    const migrated = await runCli(['apply', '--auto-approve', '--migrate-state'], project, env);
    expect(migrated.stderr).toBe('');
    expect(migrated.code).toBe(0);
    const onB = await pulled();
    expect(onB.service).toBe(b.url);
    expect(Object.keys(onB.resources)).toHaveLength(5);
    expect((await call(b, 'GET', 'auth/people/users/ann')).status).toBe(200);
    writeApp(project, a.url);
    const back = await runCli(['plan'], project, env);
    expect(back.code).toBe(1);
    expect(back.stderr).toContain(`was applied to the service at ${b.url}, but this run's connection (prod/service) names ${a.url}`);
  });
}

describe('state in a local file', () => {
  identityBehaviours(localFile);
});

describeWithPostgres('state in PostgreSQL', () => {
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.stop());

  identityBehaviours(postgres);
});
