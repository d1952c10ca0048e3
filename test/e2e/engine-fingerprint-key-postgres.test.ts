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
    const texts = await Promise.all(tables.map(async (table) => JSON.stringify((await admin.query(`SELECT * FROM "${schema}".${table}`)).rows)));
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
