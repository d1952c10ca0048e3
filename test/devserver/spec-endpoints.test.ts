// Every endpoint of service-api.md at once: each one is routed (the root token never meets "unsupported
// path", "no handler" or 405), and each one except userpass login refuses a request without a token or with
// an unknown one with 403 before it changes anything. The areas' own tests cover what each endpoint does.
import type { DevServer } from '../../src/devserver/server';
import { ENDPOINTS } from './endpoints';
import { call, enableAuth, mount, startTestServer } from './http';

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
