/**
 * A state write that fails in the middle of an apply (the PostgreSQL backend's connection is terminated by the
 * database): nothing new starts after it, the error names the changes the service made that are not recorded,
 * and once the state can be written again a plan shows exactly what remains.
 */
import { AuthMount, SecretValue, UserpassUser, apply, plan } from '../../src';
import { actions, newStack, startHarness, unwrap, type Harness } from './engine-harness';
import { describeWithPostgres, startPostgres, type PgCluster } from '../support/postgres';

jest.setTimeout(60_000);

const USERS = Array.from({ length: 12 }, (_, i) => `u${i + 1}`);

function usersStack() {
  const stack = newStack();
  const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  for (const name of USERS) new UserpassUser(stack, name, { mount, username: name, password: SecretValue.unsafePlainText(`${name}-password`) });
  return stack;
}

describeWithPostgres('a state write that fails during apply', () => {
  let pg: PgCluster;
  let h: Harness;
  beforeAll(async () => {
    pg = await startPostgres();
  });
  afterAll(() => pg?.stop());
  beforeEach(async () => {
    // 25 ms a request: the other eleven users take a good part of a second, so the database has ended the
    // connection long before the last of them, even on a loaded machine (where the admin connection that ends it
    // can take 100 ms or more to open).
    h = await startHarness({}, { latencyMs: 25 });
  });
  afterEach(() => h.close());

  test('stops starting work, names what the service did that state misses, and the next plan shows exactly the rest', async () => {
    const statePath = pg.url('failing_apply');
    let terminated: Promise<unknown> | undefined;
    const result = await apply(h.options(usersStack(), {
      statePath,
      parallelism: 1,
      onProgress: (event) => {
        // Once the first user is recorded, the database ends secretform's connection (as a restart would).
        if (event.kind === 'operation-done' && event.status === 'succeeded' && !terminated && /\/u\d+$/.test(event.address)) {
          terminated = pg.admin().then(async (admin) => {
            await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'secretform'");
            await admin.end();
          });
        }
      },
    }));
    await terminated;
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('state_io');
    expect(result.error.message).toContain('Nothing was started after it');

    const onServer = (await h.call('LIST', 'auth/userpass/users')).body as { data?: { keys?: string[] } };
    const created = (onServer.data?.keys ?? []).filter((name) => USERS.includes(name)).sort();
    const named = [...result.error.message.matchAll(/create test\/(u\d+)/g)].map((match) => match[1]).sort();
    // Some users were created, not all: the run stopped; every user the service has that state may miss is named.
    expect(created.length).toBeGreaterThan(0);
    expect(created.length).toBeLessThan(USERS.length);
    expect(named.length).toBeGreaterThan(0);
    for (const name of named) expect(created).toContain(name);
    // Nothing started after the failure: the service has what state recorded, the named ones, and no more.
    const admin = await pg.admin();
    const rows = await admin.query<{ address: string }>(`SELECT address FROM "failing_apply".resources WHERE stack = 'test'`);
    await admin.end();
    const recorded = rows.rows.map((row) => row.address).filter((address) => /\/u\d+$/.test(address));
    expect(created.length).toBe(recorded.length + named.length);

    // With the database reachable again: the created-but-unrecorded users are adopted, the others created.
    const rest = unwrap(await plan(h.options(usersStack(), { statePath })));
    const expected: Record<string, string> = {};
    for (const name of USERS) if (!created.includes(name)) expected[`test/${name}`] = 'create';
    for (const name of named) expected[`test/${name}`] = 'update';
    expect(actions(rest)).toEqual(expected);
    expect(unwrap(await apply(h.options(usersStack(), { statePath }))).succeeded).toBe(true);
    expect(actions(unwrap(await plan(h.options(usersStack(), { statePath }))))).toEqual({});
  });
});
