// Every endpoint of service-api.md at once: each one is routed (the root token never meets "unsupported
// path", "no handler" or 405), and each one except userpass login refuses a request without a token or with
// an unknown one with 403 before it changes anything. The areas' own tests cover what each endpoint does.
import type { DevServer } from '../../src/devserver/server';
import { call, enableAuth, mount, startTestServer } from './http';

const DESTINATION_TYPES = ['cloud1-sm', 'cloud2-kv', 'cloud3-sm', 'repohost', 'webhost-project'];

/** [method, path] of each row of the document's endpoint tables, with sample names. */
const ENDPOINTS: [string, string][] = [
  ['POST', 'cloud/config'],
  ['GET', 'cloud/config'],
  ['DELETE', 'cloud/config'],
  ['POST', 'cloud/rotate-root'],
  ['POST', 'cloud/roles/r1'],
  ['LIST', 'cloud/roles'],
  ['GET', 'cloud/creds/r1'],

  ['POST', 'auth/userpass/users/u1'],
  ['GET', 'auth/userpass/users/u1'],
  ['DELETE', 'auth/userpass/users/u1'],
  ['POST', 'auth/userpass/users/u1/password'],
  ['POST', 'auth/userpass/users/u1/policies'],
  ['LIST', 'auth/userpass/users'],

  ['PATCH', 'sys/sync/config'],
  ['LIST', 'sys/sync/destinations'],
  ['LIST', 'sys/sync/destinations/cloud1-sm'],
  ['GET', 'sys/sync/destinations/cloud1-sm/d1'],
  ['DELETE', 'sys/sync/destinations/cloud1-sm/d1?purge=true'],
  ...DESTINATION_TYPES.map((type): [string, string] => ['POST', `sys/sync/destinations/${type}/d1`]),
  ['GET', 'sys/sync/destinations/cloud1-sm/d1/associations'],
  ['POST', 'sys/sync/destinations/cloud1-sm/d1/associations/set'],
  ['POST', 'sys/sync/destinations/cloud1-sm/d1/associations/remove'],
  ['LIST', 'sys/sync/associations'],
  ['GET', 'sys/sync/associations/secret/s1'],
  ['GET', 'sys/sync/associations/destinations?mount=secret&secret_name=s1'],
  ['POST', 'sys/sync/github-apps/a1'],
  ['GET', 'sys/sync/github-apps/a1'],
  ['DELETE', 'sys/sync/github-apps/a1'],

  ['POST', 'ldap/config'],
  ['GET', 'ldap/config'],
  ['DELETE', 'ldap/config'],
  ['POST', 'ldap/rotate-root'],
  ['GET', 'ldap/static-role'],
  ['LIST', 'ldap/static-role/team'],
  ['GET', 'ldap/static-role/r1'],
  ['POST', 'ldap/static-role/r1'],
  ['DELETE', 'ldap/static-role/r1'],
  ['GET', 'ldap/static-cred/r1'],
  ['POST', 'ldap/rotate-role/r1'],
  ['GET', 'ldap/role/r1'],
  ['POST', 'ldap/role/r1'],
  ['DELETE', 'ldap/role/r1'],
  ['GET', 'ldap/creds/r1'],
  ['LIST', 'ldap/library'],
  ['LIST', 'ldap/library/team'],
  ['POST', 'ldap/library/s1'],
  ['GET', 'ldap/library/s1'],
  ['DELETE', 'ldap/library/s1'],
  ['GET', 'ldap/library/s1/status'],
  ['POST', 'ldap/library/s1/check-out'],
  ['POST', 'ldap/library/s1/check-in'],
  ['POST', 'ldap/library/manage/s1/check-in'],
];

const bodyFor = (method: string) => (method === 'POST' || method === 'PATCH' ? {} : undefined);

async function startWithMounts(): Promise<DevServer> {
  const started = await startTestServer();
  await mount(started, 'cloud', 'cloud');
  await mount(started, 'ldap', 'ldap');
  await enableAuth(started, 'userpass', 'userpass');
  return started;
}

describe('without a valid token', () => {
  let server: DevServer;
  beforeAll(async () => {
    server = await startWithMounts();
  });
  afterAll(() => server.close());

  test.each(ENDPOINTS)('%s %s: 403 permission denied without a token, and with an unknown one', async (method, path) => {
    const none = await call(server, method, path, bodyFor(method), { token: null });
    expect({ status: none.status, body: none.body }).toEqual({ status: 403, body: { errors: ['permission denied'] } });
    const unknown = await call(server, method, path, bodyFor(method), { token: 'not-a-token' });
    expect({ status: unknown.status, body: unknown.body }).toEqual({
      status: 403,
      body: { errors: ['permission denied', 'invalid token'] },
    });
  });

  test('the refused requests changed nothing', async () => {
    // With the root token, the empty-bodied cloud1-sm write above would have created a destination.
    expect((await call(server, 'LIST', 'sys/sync/destinations')).status).toBe(404);
    expect((await call(server, 'GET', 'sys/sync/config')).body.data).toEqual({ disabled: false, queue_capacity: 1000000 });
    expect((await call(server, 'GET', 'cloud/config')).body.data).toMatchObject({ subscription_id: '', tenant_id: '' });
    expect((await call(server, 'LIST', 'cloud/roles')).status).toBe(404);
    expect((await call(server, 'LIST', 'auth/userpass/users')).status).toBe(404);
    expect((await call(server, 'GET', 'ldap/config')).status).toBe(404);
  });

  test('userpass login needs no token: a wrong password is 400, not 403', async () => {
    const result = await call(server, 'POST', 'auth/userpass/login/nobody', { password: 'x' }, { token: null });
    expect({ status: result.status, body: result.body }).toEqual({ status: 400, body: { errors: ['invalid username or password'] } });
  });
});

describe('with the root token', () => {
  let server: DevServer;
  beforeAll(async () => {
    server = await startWithMounts();
  });
  afterAll(() => server.close());

  test.each(ENDPOINTS)('%s %s is routed to a handler', async (method, path) => {
    const result = await call(server, method, path, bodyFor(method));
    expect(result.status).not.toBe(403);
    expect(result.status).not.toBe(405);
    expect(JSON.stringify(result.body ?? '')).not.toMatch(/unsupported path|no handler for route|unsupported operation/);
  });
});
