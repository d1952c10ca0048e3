// The client against a raw test server that answers in each shape deployed servers use.
import { ServiceClient, type ServiceClientOptions } from '../../src/client/service-client';
import { loadClientConfig } from '../../src/client/config';
import { envelopeOf, startRawServer, type RawHandler, type RawServer } from './client-raw-server';

const TOKEN = 's.test-token-123';
let server: RawServer;
let client: ServiceClient;
let respond: RawHandler;

function clientFor(address: string, options: ServiceClientOptions = {}): ServiceClient {
  const loaded = loadClientConfig({ SERVICE_ADDR: address, SERVICE_TOKEN: TOKEN });
  if (!loaded.ok) throw new Error(loaded.error.message);
  return new ServiceClient(loaded.config, { retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...options });
}

beforeEach(async () => {
  respond = () => ({ status: 500, body: { errors: ['no reply set up'] } });
  server = await startRawServer((request) => respond(request));
  client = clientFor(server.url);
});
afterEach(async () => {
  await client.close();
  await server.close();
});

describe('lists', () => {
  it('sends LIST with the token header and reads a bare JSON array', async () => {
    respond = () => ({ status: 200, body: ['svc-a', 'team/'] });
    const result = await client.readList('ldap/static-role');
    expect(result).toEqual({ ok: true, value: ['svc-a', 'team/'], warnings: [] });
    expect(server.requests[0]).toMatchObject({ method: 'LIST', path: '/v1/ldap/static-role' });
    expect(server.requests[0].headers['x-service-token']).toBe(TOKEN);
  });

  it('reads envelope data.keys', async () => {
    respond = () => ({ status: 200, body: envelopeOf({ keys: ['alice', 'bob'] }) });
    expect(await client.readList('auth/userpass/users')).toEqual({ ok: true, value: ['alice', 'bob'], warnings: [] });
  });

  it('reads a 404 with empty errors as an empty list, not a failure', async () => {
    respond = () => ({ status: 404, body: { errors: [] } });
    expect(await client.readList('cloud/roles')).toEqual({ ok: true, value: [], warnings: [] });
  });

  it('reports a list body of the wrong shape as invalid_response', async () => {
    respond = () => ({ status: 200, body: envelopeOf({ names: ['a'] }) });
    const result = await client.readList('cloud/roles');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('invalid_response');
      expect(result.error.message).toContain('LIST /v1/cloud/roles returned HTTP 200 with an object without "keys"');
    }
  });
});

describe('reads', () => {
  it('returns envelope data', async () => {
    respond = () => ({ status: 200, body: envelopeOf({ binddn: 'cn=admin,dc=example,dc=org', url: 'ldap://127.0.0.1' }) });
    expect(await client.readObject('ldap/config')).toEqual({
      ok: true,
      value: { binddn: 'cn=admin,dc=example,dc=org', url: 'ldap://127.0.0.1' },
      warnings: [],
    });
    expect(server.requests[0]).toMatchObject({ method: 'GET', path: '/v1/ldap/config' });
  });

  it('returns a top-level object (library read, static-cred)', async () => {
    const library = { service_account_names: ['a@example.org'], ttl: 86400, max_ttl: 86400, disable_check_in_enforcement: false };
    respond = () => ({ status: 200, body: library });
    expect(await client.readObject('ldap/library/team')).toEqual({ ok: true, value: library, warnings: [] });
  });

  it('reads 404 as absent, whether the item or the whole mount is missing', async () => {
    respond = () => ({ status: 404, body: { errors: [] } });
    expect(await client.readObject('cloud/roles/gone')).toEqual({ ok: true, value: undefined, warnings: [] });
    respond = () => ({ status: 404, body: { errors: ['no handler for route "nomount/config"'] } });
    expect(await client.readObject('nomount/config')).toEqual({ ok: true, value: undefined, warnings: [] });
  });

  it('percent-encodes path segments and sends the query', async () => {
    respond = () => ({ status: 200, body: envelopeOf({}) });
    await client.readObject('sys/sync/associations/destinations', { mount: 'kv', secret_name: 'a b/c' });
    await client.get('secret/data/my secret');
    expect(server.requests.map((request) => request.path)).toEqual([
      '/v1/sys/sync/associations/destinations?mount=kv&secret_name=a+b%2Fc',
      '/v1/secret/data/my%20secret',
    ]);
  });

  it('puts a path prefix of SERVICE_ADDR before /v1/', async () => {
    const prefixed = clientFor(`${server.url}/proxy/`);
    respond = () => ({ status: 200, body: envelopeOf({ a: 1 }) });
    const result = await prefixed.readObject('ldap/config');
    await prefixed.close();
    expect(result.ok).toBe(true);
    expect(server.requests[0].path).toBe('/proxy/v1/ldap/config');
  });

  it('reports a 200 that is not JSON as invalid_response', async () => {
    respond = () => ({ status: 200, headers: { 'content-type': 'text/html' }, body: '<html>hello</html>' });
    const result = await client.get('ldap/config');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ code: 'invalid_response', status: 200, method: 'GET', path: '/v1/ldap/config' });
      expect(result.error.message).toContain('a body that is not JSON (starts with "<html>hello</html>")');
    }
  });
});

describe('writes', () => {
  it('accepts 204 without body, sending the body as JSON', async () => {
    respond = () => ({ status: 204 });
    const result = await client.post('ldap/static-role/svc', { username: 'svc', rotation_period: '24h' }, { idempotent: true });
    expect(result).toEqual({ ok: true, status: 204, data: undefined, raw: undefined, warnings: [] });
    expect(server.requests[0]).toMatchObject({ method: 'POST', path: '/v1/ldap/static-role/svc' });
    expect(server.requests[0].headers['content-type']).toBe('application/json');
    expect(JSON.parse(server.requests[0].body)).toEqual({ username: 'svc', rotation_period: '24h' });
  });

  it('accepts 200 with an envelope and surfaces its warnings', async () => {
    const warning = 'Endpoint ignored these unrecognized parameters: [colour]';
    respond = () => ({ status: 200, body: envelopeOf(null, [warning]) });
    const result = await client.post('auth/userpass/users/alice', { password: 'pw', colour: 'red' });
    expect(result).toMatchObject({ ok: true, status: 200, data: null, warnings: [warning] });
  });

  it('sends PATCH as application/merge-patch+json and returns its data', async () => {
    respond = () => ({ status: 200, body: { ...envelopeOf({ disabled: true, queue_capacity: 1000000 }), mount_type: 'system' } });
    const result = await client.patch('sys/sync/config', { disabled: true });
    expect(result).toMatchObject({ ok: true, status: 200, data: { disabled: true, queue_capacity: 1000000 } });
    expect(server.requests[0].method).toBe('PATCH');
    expect(server.requests[0].headers['content-type']).toBe('application/merge-patch+json');
  });

  it('sends DELETE with its query', async () => {
    respond = () => ({ status: 204 });
    const result = await client.delete('sys/sync/destinations/cloud1-sm/one', { purge: true });
    expect(result.ok).toBe(true);
    expect(server.requests[0]).toMatchObject({ method: 'DELETE', path: '/v1/sys/sync/destinations/cloud1-sm/one?purge=true' });
  });

  it('sends POST without a body and without a content type when no body is given (rotate-root)', async () => {
    respond = () => ({ status: 204 });
    expect((await client.post('cloud/rotate-root')).ok).toBe(true);
    expect(server.requests[0].body).toBe('');
    expect(server.requests[0].headers['content-type']).toBeUndefined();
  });
});

describe('errors', () => {
  it('returns 400 as bad_request with the server message, once, without the request body', async () => {
    respond = () => ({ status: 400, body: { errors: ['missing password'] } });
    const result = await client.post('auth/userpass/users/alice', { token_policies: ['very-secret-body-value'] }, { idempotent: true });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ code: 'bad_request', status: 400, errors: ['missing password'], method: 'POST', path: '/v1/auth/userpass/users/alice', attempts: 1 });
      expect(result.error.message).toContain('POST /v1/auth/userpass/users/alice failed with HTTP 400: missing password.');
      expect(result.error.message).not.toContain('very-secret-body-value');
    }
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a 500 (engines report validation errors as 500), even for a GET', async () => {
    respond = () => ({ status: 500, body: { errors: ['1 error occurred:\n\t* config is nil\n\n'] } });
    const result = await client.get('cloud/config');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ code: 'server_error', status: 500, errors: ['1 error occurred:\n\t* config is nil\n\n'] });
      expect(result.error.message).toContain('failed with HTTP 500: config is nil.');
    }
    expect(server.requests).toHaveLength(1);
  });

  it('says to check SERVICE_TOKEN on 403 and never includes the token, even if the server echoes it', async () => {
    respond = (request) => ({ status: 403, body: { errors: ['permission denied', `invalid token ${request.headers['x-service-token']}`] } });
    const result = await client.get('ldap/config');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('permission_denied');
      expect(result.error.message).toContain('Check SERVICE_TOKEN');
      expect(result.error.errors).toEqual(['permission denied', 'invalid token [redacted]']);
      expect(JSON.stringify({ ...result.error, message: result.error.message })).not.toContain(TOKEN);
    }
  });

  it('sends no token header when SERVICE_TOKEN is unset', async () => {
    const loaded = loadClientConfig({ SERVICE_ADDR: server.url });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const anonymous = new ServiceClient(loaded.config);
    respond = () => ({ status: 403, body: { errors: ['permission denied'] } });
    await anonymous.get('ldap/config');
    await anonymous.close();
    expect(server.requests[0].headers['x-service-token']).toBeUndefined();
  });

  it('returns 404 on a write as not_found', async () => {
    respond = () => ({ status: 404, body: { errors: ['unsupported path'] } });
    const result = await client.post('ldap/nothing', {});
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ code: 'not_found', errors: ['unsupported path'] });
  });

  it('times out a request that gets no answer, without retrying it', async () => {
    const slow = clientFor(server.url, { timeoutMs: 200 });
    respond = () => new Promise(() => undefined);
    const started = Date.now();
    const result = await slow.get('ldap/config');
    const elapsed = Date.now() - started;
    await slow.close();
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ code: 'timeout', attempts: 1 });
      expect(result.error.message).toBe(
        'GET /v1/ldap/config got no complete response within 0.2 s; the service may be overloaded or unreachable. Check the service, or raise the request timeout.',
      );
    }
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(2000);
    expect(server.requests).toHaveLength(1);
  });
});
