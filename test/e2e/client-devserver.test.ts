// The client against the dev server: LIST both ways, 404 as absent, bare arrays and envelopes, 204 and
// 200 writes, token errors, and retries under injected faults.
import { ServiceClient, type ServiceClientOptions } from '../../src/client/service-client';
import { loadClientConfig } from '../../src/client/config';
import { startDevServer, type DevServer } from '../../src/devserver/server';

const ROOT_TOKEN = 'client-e2e-root';
const BASE_DN = 'dc=example,dc=org';
let server: DevServer;
let client: ServiceClient;
const extraClients: ServiceClient[] = [];

function clientWith(token: string | undefined, options: ServiceClientOptions = {}): ServiceClient {
  const env: Record<string, string> = { SERVICE_ADDR: server.url };
  if (token !== undefined) env.SERVICE_TOKEN = token;
  const loaded = loadClientConfig(env);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return new ServiceClient(loaded.config, options);
}

async function mustWrite(promise: ReturnType<ServiceClient['post']>): Promise<void> {
  const result = await promise;
  if (!result.ok) throw new Error(result.error.message);
}

beforeEach(async () => {
  server = await startDevServer({ port: 0, rootToken: ROOT_TOKEN });
  client = clientWith(ROOT_TOKEN);
});
afterEach(async () => {
  await Promise.all([client, ...extraClients.splice(0)].map((each) => each.close()));
  await server.close();
});

describe('lists and reads', () => {
  beforeEach(async () => {
    await mustWrite(client.post('sys/auth/userpass', { type: 'userpass' }));
  });

  it('reads an empty list (404) as [] and then the envelope data.keys', async () => {
    expect(await client.readList('auth/userpass/users')).toEqual({ ok: true, value: [], warnings: [] });
    await mustWrite(client.post('auth/userpass/users/Alice', { password: 'pw-1' }, { idempotent: true }));
    await mustWrite(client.post('auth/userpass/users/bob', { password: 'pw-2' }, { idempotent: true }));
    expect(await client.readList('auth/userpass/users')).toEqual({ ok: true, value: ['alice', 'bob'], warnings: [] });
  });

  it('lists the same keys with LIST and with GET ?list=true', async () => {
    await mustWrite(client.post('auth/userpass/users/carol', { password: 'pw' }));
    const viaList = await client.list('auth/userpass/users');
    const viaGet = await client.get('auth/userpass/users', { list: true });
    expect(viaList).toMatchObject({ ok: true, status: 200, data: { keys: ['carol'] } });
    expect(viaGet).toMatchObject({ ok: true, status: 200, data: { keys: ['carol'] } });
    expect(server.requestLog.slice(-2).map((entry) => entry.method)).toEqual(['LIST', 'LIST']);
  });

  it('reads a missing item and a path without a mount as absent', async () => {
    expect(await client.readObject('auth/userpass/users/nobody')).toEqual({ ok: true, value: undefined, warnings: [] });
    expect(await client.readObject('nomount/config')).toEqual({ ok: true, value: undefined, warnings: [] });
  });

  it('reads the envelope data of a user, and a write answered 204 has no data', async () => {
    const written = await client.post('auth/userpass/users/dave', { password: 'pw', token_ttl: '1h' }, { idempotent: true });
    expect(written).toEqual({ ok: true, status: 204, data: undefined, raw: undefined, warnings: [] });
    const read = await client.readObject('auth/userpass/users/dave');
    expect(read.ok).toBe(true);
    if (read.ok) expect(read.value).toMatchObject({ token_ttl: 3600, token_policies: [], token_type: 'default' });
  });
});

describe('directory engine shapes', () => {
  beforeEach(async () => {
    await mustWrite(client.post('sys/mounts/ldap', { type: 'ldap' }));
    await mustWrite(
      client.post('ldap/config', { binddn: `cn=admin,${BASE_DN}`, bindpass: 'admin-password', userdn: `ou=service-accounts,${BASE_DN}` }, { idempotent: true }),
    );
  });

  it('reads the bare JSON array of static roles, and [] before any exists', async () => {
    expect(await client.readList('ldap/static-role')).toEqual({ ok: true, value: [], warnings: [] });
    await mustWrite(client.post('ldap/static-role/app-one', { username: 'svc-app-1', rotation_period: '24h' }, { idempotent: true }));
    await mustWrite(client.post('ldap/static-role/team/app-two', { username: 'svc-app-2', rotation_period: '24h' }, { idempotent: true }));
    const listed = await client.list('ldap/static-role');
    expect(listed).toMatchObject({ ok: true, status: 200, raw: ['app-one', 'team/'] });
    expect(await client.readList('ldap/static-role')).toEqual({ ok: true, value: ['app-one', 'team/'], warnings: [] });
    expect(await client.readList('ldap/static-role/team/')).toEqual({ ok: true, value: ['app-two'], warnings: [] });
  });

  it('reads the top-level objects of static-cred and a library set', async () => {
    await mustWrite(client.post('ldap/static-role/app-one', { username: 'svc-app-1', rotation_period: '24h' }, { idempotent: true }));
    const cred = await client.readObject('ldap/static-cred/app-one');
    expect(cred.ok).toBe(true);
    if (cred.ok) expect(cred.value).toMatchObject({ username: 'svc-app-1', dn: `cn=svc-app-1,ou=service-accounts,${BASE_DN}` });

    await mustWrite(client.post('ldap/library/team', { service_account_names: ['svc-app-3'] }, { idempotent: true }));
    const library = await client.readObject('ldap/library/team');
    expect(library).toEqual({
      ok: true,
      value: expect.objectContaining({ service_account_names: ['svc-app-3'], ttl: 86400, max_ttl: 86400, disable_check_in_enforcement: false }),
      warnings: [],
    });
  });

  it('reports a 500 validation error without retrying it', async () => {
    const before = server.requestLog.length;
    const result = await client.post('ldap/config', { binddn: `cn=admin,${BASE_DN}`, bindpass: 'x', length: 20, password_policy: 'p' }, { idempotent: true });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ code: 'server_error', status: 500, attempts: 1 });
      expect(result.error.message).toContain("cannot set both 'password_policy' and 'length'");
    }
    expect(server.requestLog.length - before).toBe(1);
  });
});

describe('200 writes with warnings and PATCH', () => {
  it('surfaces the warnings of a 200 envelope', async () => {
    const result = await client.post(
      'sys/sync/destinations/cloud1-sm/one',
      { access_key_id: 'AKIA', secret_access_key: 'secret', region: 'us-east-1', colour: 'red' },
      { idempotent: true },
    );
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      data: { name: 'one', type: 'cloud1-sm' },
      warnings: ['Endpoint ignored these unrecognized parameters: [colour]'],
    });
  });

  it('patches sys/sync/config with the merge-patch content type', async () => {
    const result = await client.patch('sys/sync/config', { disabled: true }, { idempotent: true });
    expect(result).toMatchObject({ ok: true, status: 200, data: { disabled: true } });
  });
});

describe('tokens', () => {
  it('gives permission_denied with a hint about SERVICE_TOKEN for a bad token, without the token', async () => {
    const wrong = clientWith('not-the-root-token');
    extraClients.push(wrong);
    const result = await wrong.readObject('sys/mounts');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ code: 'permission_denied', status: 403 });
      expect(result.error.message).toContain('Check SERVICE_TOKEN');
      expect(result.error.message).not.toContain('not-the-root-token');
      expect(result.error.errors.join(' ')).toContain('permission denied');
    }
  });
});

describe('retries under injected faults', () => {
  it('converges after faults.failNext(3, 503, 1), waiting the Retry-After each time', async () => {
    await mustWrite(client.post('sys/auth/userpass', { type: 'userpass' }));
    await mustWrite(client.post('auth/userpass/users/erin', { password: 'pw' }));
    const before = client.stats();
    server.faults.failNext(3, 503, 1);
    const started = Date.now();
    const result = await client.readList('auth/userpass/users');
    const waited = Date.now() - started;
    expect(result).toEqual({ ok: true, value: ['erin'], warnings: [] });
    expect(waited).toBeGreaterThanOrEqual(2900);
    const after = client.stats();
    expect(after.requests - before.requests).toBe(4);
    expect(after.retries - before.retries).toBe(3);
  });

  it('honours Retry-After on 429 (measured)', async () => {
    server.faults.failNext(1, 429, 2);
    const started = Date.now();
    const result = await client.readObject('sys/mounts');
    const waited = Date.now() - started;
    expect(result.ok).toBe(true);
    expect(waited).toBeGreaterThanOrEqual(1950);
    expect(waited).toBeLessThan(5000);
  });

  it('does not retry a non-idempotent POST (rotate-root) and leaves the next request to succeed', async () => {
    await mustWrite(client.post('sys/mounts/ldap', { type: 'ldap' }));
    await mustWrite(client.post('ldap/config', { binddn: `cn=admin,${BASE_DN}`, bindpass: 'admin-password' }));
    server.faults.failNext(1, 503, 1);
    const before = client.stats();
    const failed = await client.post('ldap/rotate-root');
    expect(failed.ok).toBe(false);
    if (!failed.ok) expect(failed.error).toMatchObject({ code: 'unavailable', status: 503, attempts: 1 });
    expect(client.stats().requests - before.requests).toBe(1);
    expect(await client.post('ldap/rotate-root')).toMatchObject({ ok: true, status: 204 });
  });

  it('retries an idempotent config write through a 502', async () => {
    await mustWrite(client.post('sys/mounts/ldap', { type: 'ldap' }));
    const quick = clientWith(ROOT_TOKEN, { retry: { baseDelayMs: 10, maxDelayMs: 50 } });
    extraClients.push(quick);
    server.faults.failNext(2, 502);
    const result = await quick.post('ldap/config', { binddn: `cn=admin,${BASE_DN}`, bindpass: 'admin-password' }, { idempotent: true });
    expect(result).toMatchObject({ ok: true, status: 204 });
    expect(quick.stats()).toEqual({ requests: 3, retries: 2 });
  });
});
