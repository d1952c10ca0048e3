/**
 * An apply of many stacks on PostgreSQL state shares a bounded set of connections per database (issue 35): it
 * used to open one per stack and hold it (with the stack's lock) until the apply ended, so 100 stacks met the
 * server's `max_connections` midway. The state role is held here to 12 connections (`CONNECTION LIMIT`) and one
 * run applies 24 stacks. Sharing must not make a stack wait for another's lock: with one stack's lock held
 * elsewhere, the others are applied while it waits for its --lock-timeout, then it alone fails as locked. A
 * drift check of every stack records their drift histories through the same shared connections.
 */
import { App, TerraformStack } from 'cdktf';
import type { Client } from 'pg';
import { SecretsMount } from '../../src/constructs';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { describeWithPostgres, startPostgres, type PgCluster } from '../support/postgres';
import { cliEnv, runCli } from './cli-harness';
import { PostgresStateBackend } from '../../src/engine/state/postgres-backend';
import { MAX_STATE_CONNECTIONS, openStateConnections } from '../../src/engine/state/postgres-connections';
import { parsePostgresUrl } from '../../src/engine/state/state-location';
import { tempDir } from '../support/temp-dir';

jest.setTimeout(240_000);

const TOKEN = 'state-connections-root-token';
const SCHEMA = 'connections_e2e';
const STACKS = 24;
const ROLE_LIMIT = 12;

let pg: PgCluster | undefined;
let server: DevServer;
let project: string;
let outdir: string;

function stackName(n: number): string {
  return `s${String(n).padStart(2, '0')}`;
}

async function withAdmin<T>(work: (admin: Client) => Promise<T>): Promise<T> {
  const admin = await pg!.admin();
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

function apply(extra: string[] = []): ReturnType<typeof runCli> {
  const env = cliEnv({ url: server.url, rootToken: TOKEN }, { SECRETFORM_STATE: pg!.url(SCHEMA) });
  return runCli(['apply', '--stack', '*', '--auto-approve', '--no-synth', '--output', outdir, ...extra], project, env);
}

describeWithPostgres('PostgreSQL state: the connections of a run of many stacks', () => {
  beforeAll(async () => {
    pg = await startPostgres();
    server = await startDevServer({ port: 0, rootToken: TOKEN });
    project = tempDir('secretform-connections-project-');
    outdir = tempDir('secretform-connections-out-');
    const app = new App({ outdir });
    for (let n = 0; n < STACKS; n++) {
      const stack = new TerraformStack(app, stackName(n));
      new SecretsMount(stack, 'kv', { path: `kv-${stackName(n)}`, type: 'kv', options: { version: '2' } });
    }
    app.synth();
    await withAdmin((admin) => admin.query(`ALTER ROLE sf_team CONNECTION LIMIT ${ROLE_LIMIT}`));
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    pg?.stop();
  });

  test(`one apply of ${STACKS} stacks stays within a role limited to ${ROLE_LIMIT} connections`, async () => {
    const applied = await apply();
    expect(applied.stderr).toBe('');
    expect(applied.code).toBe(0);
    const states = await withAdmin((admin) => admin.query<{ stack: string; serial: string }>(`SELECT stack, serial FROM ${SCHEMA}.states ORDER BY stack`));
    expect(states.rows.map((row) => row.stack)).toEqual(Array.from({ length: STACKS }, (_, n) => stackName(n)));
    expect(states.rows.every((row) => Number(row.serial) > 0)).toBe(true);
    // Every lock was released and every session ended with the run.
    const left = await withAdmin((admin) => admin.query(`SELECT 1 FROM ${SCHEMA}.locks UNION ALL SELECT 1 FROM pg_stat_activity WHERE usename = 'sf_team'`));
    expect(left.rows).toEqual([]);
  });

  test(`a drift check of ${STACKS} stacks records every history within the same ${ROLE_LIMIT} connections`, async () => {
    // Its own states (an apply that changes nothing when they are already there): the test stands alone.
    const applied = await apply();
    expect(applied.code).toBe(0);
    await withAdmin((admin) => admin.query(`DROP TABLE IF EXISTS ${SCHEMA}.drift_history`));
    const env = cliEnv({ url: server.url, rootToken: TOKEN }, { SECRETFORM_STATE: pg!.url(SCHEMA) });
    const checked = await runCli(['drift', '--stack', '*', '--no-synth', '--output', outdir, '--format', 'json'], project, env);
    expect(checked.stderr).toBe('');
    expect(checked.code).toBe(0);
    // Each stack's check is recorded: a history the drift stage could not reach would be reported, not recorded.
    expect(checked.stdout).not.toContain('history_problem');
    const recorded = await withAdmin((admin) => admin.query<{ stack: string }>(`SELECT stack FROM ${SCHEMA}.drift_history ORDER BY stack`));
    expect(recorded.rows.map((row) => row.stack)).toEqual(Array.from({ length: STACKS }, (_, n) => stackName(n)));
    const left = await withAdmin((admin) => admin.query("SELECT 1 FROM pg_stat_activity WHERE usename = 'sf_team'"));
    expect(left.rows).toEqual([]);
  });

  test('a stack whose lock is held elsewhere waits alone: the stacks sharing its connection are applied meanwhile', async () => {
    const locked = stackName(5);
    const holder = await pg!.admin();
    try {
      // The lock a secretform apply of that stack would hold, taken by another session of the database.
      await holder.query('SELECT pg_advisory_lock(hashtext($1), hashtext($2))', [`secretform:${SCHEMA}`, locked]);
      const before = await withAdmin((admin) => admin.query<{ stack: string; serial: string }>(`SELECT stack, serial FROM ${SCHEMA}.states`));
      const serialOf = new Map(before.rows.map((row) => [row.stack, Number(row.serial)]));
      // A change in every stack, so each one writes.
      const changed = tempDir('secretform-connections-out-');
      const app = new App({ outdir: changed });
      for (let n = 0; n < STACKS; n++) {
        const stack = new TerraformStack(app, stackName(n));
        new SecretsMount(stack, 'kv', { path: `kv-${stackName(n)}`, type: 'kv', options: { version: '2' }, description: 'changed' });
      }
      app.synth();
      const started = Date.now();
      const env = cliEnv({ url: server.url, rootToken: TOKEN }, { SECRETFORM_STATE: pg!.url(SCHEMA) });
      const applied = await runCli(['apply', '--stack', '*', '--auto-approve', '--no-synth', '--output', changed, '--lock-timeout', '3s'], project, env);
      expect(applied.code).toBe(1);
      expect(applied.stderr).toContain('is locked by');
      expect(applied.stderr).toContain(locked);
      expect(Date.now() - started).toBeGreaterThanOrEqual(3000);
      const after = await withAdmin((admin) => admin.query<{ stack: string; serial: string }>(`SELECT stack, serial FROM ${SCHEMA}.states`));
      for (const row of after.rows) {
        if (row.stack === locked) expect(Number(row.serial)).toBe(serialOf.get(row.stack));
        else expect(Number(row.serial)).toBeGreaterThan(serialOf.get(row.stack)!);
      }
    } finally {
      await holder.end();
    }
  });

  test('a lock taken on a shared connection but not recorded is given back at once, not left in the session', async () => {
    const where = parsePostgresUrl(pg!.url(SCHEMA));
    if (!where.ok) throw new Error(where.error.message);
    // Enough backends open that the next one shares a connection that stays open after it.
    const others = Array.from({ length: MAX_STATE_CONNECTIONS }, (_, n) => new PostgresStateBackend(where.value, stackName(n)));
    try {
      for (const other of others) expect((await other.read()).ok).toBe(true);
      expect(openStateConnections(where.value)).toBe(MAX_STATE_CONNECTIONS);
      await withAdmin((admin) => admin.query(`REVOKE INSERT ON ${SCHEMA}.locks FROM sf_team`));
      const sharing = new PostgresStateBackend(where.value, stackName(MAX_STATE_CONNECTIONS + 1));
      const refused = await sharing.lock({ command: 'secretform test', timeoutMs: 0 });
      expect(!refused.ok && refused.error.message).toContain('cannot lock state');
      await sharing.close();
      expect(openStateConnections(where.value)).toBe(MAX_STATE_CONNECTIONS);
      const held = await withAdmin((admin) => admin.query("SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted"));
      expect(held.rows).toEqual([]);
    } finally {
      await withAdmin((admin) => admin.query(`GRANT INSERT ON ${SCHEMA}.locks TO sf_team`));
      await Promise.all(others.map((other) => other.close()));
    }
    expect(openStateConnections(where.value)).toBe(0);
  });
});
