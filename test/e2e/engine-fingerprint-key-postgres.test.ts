/**
 * With team state in PostgreSQL and nothing else configured, the stack's fingerprint key lives in the state
 * database's own `fingerprint_keys` table (apart from the state rows), so a server without a KV v2 mount still
 * gets fast keyed fingerprints; a key made earlier on the service keeps working.
 */
import { AuthMount, SecretValue, UserpassUser } from '../../src';
import { apply, plan } from '../../src';
import { newStack, startHarness, unwrap, type Harness } from './engine-harness';
import { describeWithPostgres, startPostgres, type PgCluster } from '../support/postgres';

let pg: PgCluster | undefined;
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function usersStack(passwords: string[]) {
  const stack = newStack();
  const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  passwords.forEach((password, i) => new UserpassUser(stack, `user-${i}`, { mount, username: `user-${i}`, password: SecretValue.unsafePlainText(password) }));
  return stack;
}

const statuses = (planned: Awaited<ReturnType<typeof plan>>) =>
  Object.fromEntries(unwrap(planned).changes.filter((c) => c.type === 'userpass_user').map((c) => [c.address, `${c.action}/${c.secrets.map((s) => s.status).join(',')}`]));

async function storedKeys(schema: string): Promise<{ stack: string; key: Buffer }[]> {
  const admin = await pg!.admin();
  try {
    return (await admin.query<{ stack: string; key: Buffer }>(`SELECT stack, key FROM "${schema}".fingerprint_keys ORDER BY stack`)).rows;
  } finally {
    await admin.end();
  }
}

async function stateRows(schema: string): Promise<{ secrets?: Record<string, string> }[]> {
  const admin = await pg!.admin();
  try {
    return (await admin.query<{ entry: { secrets?: Record<string, string> } }>(`SELECT entry FROM "${schema}".resources`)).rows.map((row) => row.entry);
  } finally {
    await admin.end();
  }
}

/** Every row of the given tables as text (bytea as hex, as psql shows it). */
async function tablesText(schema: string, tables: string[]): Promise<string> {
  const admin = await pg!.admin();
  try {
    // One query at a time: a pg client queues concurrent ones, which pg 8 warns is deprecated.
    const texts: string[] = [];
    for (const table of tables) texts.push(JSON.stringify((await admin.query(`SELECT * FROM "${schema}".${table}`)).rows));
    return texts.join('\n');
  } finally {
    await admin.end();
  }
}

describeWithPostgres('fingerprint key with PostgreSQL state', () => {
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.stop());

  test('on a server without a KV v2 mount the first apply keeps the key in the fingerprint_keys table; plans compare keyed fingerprints', async () => {
    const harness = (h = await startHarness({}, { kvMount: false }));
    const env = { SERVICE_ADDR: harness.server.url, SERVICE_TOKEN: harness.env.SERVICE_TOKEN };
    const statePath = pg!.url('keys_a');
    const options = (passwords: string[]) => harness.options(usersStack(passwords), { env, statePath });

    unwrap(await plan(options(['pw-a', 'pw-b'])));
    expect(await storedKeys('keys_a')).toEqual([]);

    expect(unwrap(await apply(options(['pw-a', 'pw-b']))).succeeded).toBe(true);
    const keys = await storedKeys('keys_a');
    expect(keys.map((k) => k.stack)).toEqual(['test']);
    expect(keys[0].key).toHaveLength(32);

    const pulled = await stateRows('keys_a');
    const fingerprints = pulled.flatMap((entry) => Object.values(entry.secrets ?? {}));
    expect(fingerprints).toHaveLength(2);
    for (const fingerprint of fingerprints) expect(fingerprint).toMatch(/^hmac-sha256:/);
    // Neither the state nor its history holds the key.
    const stateTables = await tablesText('keys_a', ['states', 'resources', 'versions', 'locks']);
    for (const form of [keys[0].key.toString('hex'), keys[0].key.toString('base64'), keys[0].key.toString('base64url')]) {
      expect(JSON.stringify(pulled)).not.toContain(form);
      expect(stateTables).not.toContain(form);
    }

    harness.markLog();
    expect(statuses(await plan(options(['pw-a', 'pw-b'])))).toEqual({ 'test/user-0': 'no-op/unverifiable', 'test/user-1': 'no-op/unverifiable' });
    expect(statuses(await plan(options(['pw-a', 'pw-b2'])))).toEqual({ 'test/user-0': 'no-op/unverifiable', 'test/user-1': 'update/changed' });
    // The key came from the database: no request for a key on the service.
    expect(harness.logSince().filter((entry) => entry.path.includes('fingerprint-keys'))).toEqual([]);
    const planned = unwrap(await plan(options(['pw-a', 'pw-b'])));
    expect(planned.warnings.join('\n')).not.toMatch(/slow hashing/);
  });

  test('a key made earlier on the service is still used, and no second key is created', async () => {
    const harness = (h = await startHarness());
    const env = { SERVICE_ADDR: harness.server.url, SERVICE_TOKEN: harness.env.SERVICE_TOKEN };
    const earlierKey = Buffer.alloc(32, 7).toString('base64url');
    expect((await harness.call('POST', 'secret/data/secretform/fingerprint-keys/test', { data: { fingerprint_key: earlierKey } })).status).toBeLessThan(300);
    const statePath = pg!.url('keys_b');
    const options = (passwords: string[]) => harness.options(usersStack(passwords), { env, statePath });

    unwrap(await apply(options(['pw-a'])));
    expect(await storedKeys('keys_b')).toEqual([]);
    expect(statuses(await plan(options(['pw-a'])))).toEqual({ 'test/user-0': 'no-op/unverifiable' });
    expect(statuses(await plan(options(['pw-changed'])))).toEqual({ 'test/user-0': 'update/changed' });
  });
});

describeWithPostgres('a plan over PostgreSQL state', () => {
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg?.stop());

  async function asAdmin(sql: string): Promise<void> {
    const admin = await pg!.admin();
    try {
      await admin.query(sql);
    } finally {
      await admin.end();
    }
  }

  test('reads its fingerprint key and its state over one connection', async () => {
    const harness = (h = await startHarness({}, { kvMount: false }));
    const env = { SERVICE_ADDR: harness.server.url, SERVICE_TOKEN: harness.env.SERVICE_TOKEN };
    const options = (passwords: string[]) => harness.options(usersStack(passwords), { env, statePath: pg!.url('one_connection') });
    unwrap(await apply(options(['pw-a', 'pw-b'])));
    expect(await storedKeys('one_connection')).toHaveLength(1);

    // Sessions of the database, counted by the server as each ends (one admin session watches, and never ends).
    const admin = await pg!.admin();
    try {
      const sessions = async () => {
        await admin.query('SELECT pg_stat_clear_snapshot()');
        return Number((await admin.query<{ sessions: string }>('SELECT sessions FROM pg_stat_database WHERE datname = current_database()')).rows[0].sessions);
      };
      const before = await sessions();
      // The key (compared: unverifiable, not changed) and the state (no-op, not create) were both read.
      expect(statuses(await plan(options(['pw-a', 'pw-b'])))).toEqual({ 'test/user-0': 'no-op/unverifiable', 'test/user-1': 'no-op/unverifiable' });
      // A session is counted once its server process has ended: wait for the first, then long enough for a second.
      for (let waited = 0; (await sessions()) === before && waited < 5000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await sessions()) - before).toBe(1);
    } finally {
      await admin.end();
    }
  });

  test('a role that may read the state but not the key table plans from its state (the key query never breaks the state read)', async () => {
    const harness = (h = await startHarness({}, { kvMount: false }));
    const env = { SERVICE_ADDR: harness.server.url, SERVICE_TOKEN: harness.env.SERVICE_TOKEN };
    const options = (passwords: string[], statePath: string) => harness.options(usersStack(passwords), { env, statePath });
    unwrap(await apply(options(['pw-a'], pg!.url('no_key_access'))));

    await asAdmin(`CREATE ROLE sf_reader LOGIN PASSWORD 'reader-pw'`);
    await asAdmin(`GRANT USAGE ON SCHEMA no_key_access TO sf_reader`);
    await asAdmin(`GRANT SELECT ON no_key_access.states, no_key_access.resources, no_key_access.versions, no_key_access.locks, no_key_access.services, no_key_access.applied_digests TO sf_reader`);
    const readerUrl = pg!.url('no_key_access').replace(/^postgres:\/\/[^@]+@/, 'postgres://sf_reader:reader-pw@');
    const planned = await plan(options(['pw-a'], readerUrl));
    // The state was read (the user is known: an update, not a create); without the key its password cannot be
    // compared, so it is sent once more.
    expect(statuses(planned)).toEqual({ 'test/user-0': 'update/changed' });
  });
});
