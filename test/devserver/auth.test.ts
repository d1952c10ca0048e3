import { ManualClock } from '../../src/devserver/clock';
import { FaultInjector } from '../../src/devserver/faults';
import { HttpServer } from '../../src/devserver/http/server';
import { MountRegistry } from '../../src/devserver/mounts';
import { Router } from '../../src/devserver/router';
import type { DevServer } from '../../src/devserver/server';
import { addressInCidrs, parseCidr } from '../../src/devserver/cidr';
import { DEFAULT_TOKEN_TTL_SECONDS, InMemoryTokenStore } from '../../src/devserver/tokens';
import type { AreaHandler, IssueTokenInput, ServerContext } from '../../src/devserver/types';
import { createUserpassArea } from '../../src/devserver/userpass';
import { call, enableAuth, startTestServer } from './http';

const LOGIN_INPUT: IssueTokenInput = { policies: ['default'], displayName: 'test', ttlSeconds: 60, tokenType: 'service', metadata: {} };

describe('token checks over HTTP', () => {
  let server: DevServer;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2025, 0, 1));
    server = await startTestServer({ clock });
  });
  afterEach(() => server.close());

  async function login(username: string, userFields: Record<string, unknown> = {}): Promise<{ token: string; auth: any }> {
    if ((await call(server, 'GET', 'sys/auth/userpass')).status === 404) await enableAuth(server, 'userpass', 'userpass');
    const created = await call(server, 'POST', `auth/userpass/users/${username}`, { password: 'pw', ...userFields });
    expect(created.status).toBe(204);
    const result = await call(server, 'POST', `auth/userpass/login/${username}`, { password: 'pw' }, { token: null });
    expect(result.status).toBe(200);
    return { token: result.body.auth.client_token, auth: result.body.auth };
  }

  test('answers a request without a token with 403 "permission denied"', async () => {
    const result = await call(server, 'GET', 'secret/data/x', undefined, { token: null });
    expect(result).toMatchObject({ status: 403, body: { errors: ['permission denied'] } });
  });

  test('answers an unknown token with 403 "permission denied", "invalid token"', async () => {
    const result = await call(server, 'GET', 'sys/mounts', undefined, { token: 'not-a-token' });
    expect(result).toMatchObject({ status: 403, body: { errors: ['permission denied', 'invalid token'] } });
  });

  test('accepts the root token from the options', async () => {
    expect((await call(server, 'GET', 'sys/mounts', undefined, 'root-test-token')).status).toBe(200);
    expect((await call(server, 'GET', 'sys/mounts', undefined, 'root')).status).toBe(403);
  });

  test('lets userpass login through without a token, and the issued token works', async () => {
    const { token, auth } = await login('alice');
    expect(token).toMatch(/^svc\./);
    await call(server, 'POST', 'secret/data/shared', { data: { v: 1 } });
    const read = await call(server, 'GET', 'secret/data/shared', undefined, token);
    expect(read.status).toBe(200);
    expect(read.body.data.data).toEqual({ v: 1 });
    const self = await call(server, 'GET', 'auth/token/lookup-self', undefined, token);
    expect(self.status).toBe(200);
    expect(self.body.data).toMatchObject({
      accessor: auth.accessor,
      display_name: 'userpass-alice',
      entity_id: auth.entity_id,
      num_uses: 0,
      policies: ['default'],
      ttl: DEFAULT_TOKEN_TTL_SECONDS,
      type: 'service',
      meta: { username: 'alice' },
    });
    expect(self.body.data.id).toBeUndefined();
  });

  test('login tokens cannot call sys/ paths or change configuration, but may read and list', async () => {
    const { token } = await login('bob');
    expect(await call(server, 'GET', 'sys/mounts', undefined, token)).toMatchObject({ status: 403, body: { errors: ['permission denied'] } });
    expect((await call(server, 'POST', 'sys/mounts/x', { type: 'kv' }, token)).status).toBe(403);
    expect((await call(server, 'POST', 'secret/data/x', { data: { v: 1 } }, token)).status).toBe(403);
    expect((await call(server, 'DELETE', 'auth/userpass/users/bob', undefined, token)).status).toBe(403);
    expect((await call(server, 'GET', 'auth/userpass/users/bob', undefined, token)).status).toBe(200);
    await call(server, 'POST', 'secret/data/x', { data: { v: 1 } });
    expect((await call(server, 'LIST', 'secret/metadata', undefined, token)).status).toBe(200);
    expect((await call(server, 'GET', 'secret/data/x')).body.data.data).toEqual({ v: 1 });
  });

  test('a token stops working when its TTL has passed', async () => {
    const { token } = await login('carol', { token_ttl: '1h' });
    expect((await call(server, 'GET', 'auth/token/lookup-self', undefined, token)).body.data.ttl).toBe(3600);
    clock.advance(3599_000);
    expect((await call(server, 'GET', 'auth/token/lookup-self', undefined, token)).body.data.ttl).toBe(1);
    clock.advance(1000);
    const expired = await call(server, 'GET', 'auth/token/lookup-self', undefined, token);
    expect(expired).toMatchObject({ status: 403, body: { errors: ['permission denied', 'invalid token'] } });
  });

  test('a token with num_uses works that many times', async () => {
    const { token } = await login('dave', { token_num_uses: 2 });
    const first = await call(server, 'GET', 'auth/token/lookup-self', undefined, token);
    expect(first.body.data.num_uses).toBe(1);
    expect((await call(server, 'GET', 'secret/config', undefined, token)).status).toBe(200);
    expect((await call(server, 'GET', 'secret/config', undefined, token)).status).toBe(403);
  });

  test('a token bound to CIDRs is refused from other addresses', async () => {
    const { token: local } = await login('erin', { token_bound_cidrs: ['127.0.0.0/8'] });
    expect((await call(server, 'GET', 'secret/config', undefined, local)).status).toBe(200);
    // Issued directly: a token bound to a network the test client is not in.
    const store = new InMemoryTokenStore('root', () => 0);
    const remote = store.issue({ ...LOGIN_INPUT, boundCidrs: ['10.1.0.0/16'] });
    expect(store.authenticate(remote.id, '127.0.0.1')).toEqual({ ok: false, reason: 'cidr' });
    expect(store.authenticate(remote.id, '10.1.2.3').ok).toBe(true);
  });

  test('answers unknown auth/token paths with 404', async () => {
    expect(await call(server, 'GET', 'auth/token/lookup')).toMatchObject({ status: 404, body: { errors: ['unsupported path'] } });
  });
});

describe('InMemoryTokenStore', () => {
  test('issues tokens with svc. ids, accessors, expiry from ttl and the default ttl for 0', () => {
    let now = 1_000_000;
    const store = new InMemoryTokenStore('root', () => now);
    const token = store.issue({ ...LOGIN_INPUT, ttlSeconds: 10, numUses: 3, metadata: { username: 'a' } });
    expect(token).toMatchObject({ root: false, policies: ['default'], expiresAt: 1_010_000, numUsesLeft: 3, tokenType: 'service' });
    expect(token.id).toMatch(/^svc\.[A-Za-z0-9]{24}$/);
    expect(token.accessor).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(token.entityId).toMatch(/^[0-9a-f-]{36}$/);
    expect(store.issue({ ...LOGIN_INPUT, ttlSeconds: 0 }).expiresAt).toBe(now + DEFAULT_TOKEN_TTL_SECONDS * 1000);
    expect(store.lookup(token.id)?.displayName).toBe('test');
    now = 1_010_000;
    expect(store.lookup(token.id)).toBeUndefined();
    expect(store.lookup('root')?.root).toBe(true);
  });

  test('reports missing, invalid and used-up tokens', () => {
    const store = new InMemoryTokenStore('root', () => 0);
    expect(store.authenticate(undefined, '127.0.0.1')).toEqual({ ok: false, reason: 'missing' });
    expect(store.authenticate('', '127.0.0.1')).toEqual({ ok: false, reason: 'missing' });
    expect(store.authenticate('nope', '127.0.0.1')).toEqual({ ok: false, reason: 'invalid' });
    const once = store.issue({ ...LOGIN_INPUT, numUses: 1 });
    expect(store.authenticate(once.id, '127.0.0.1').ok).toBe(true);
    expect(store.authenticate(once.id, '127.0.0.1')).toEqual({ ok: false, reason: 'invalid' });
  });

  test('refuses a bad CIDR at issue time', () => {
    const store = new InMemoryTokenStore('root', () => 0);
    expect(() => store.issue({ ...LOGIN_INPUT, boundCidrs: ['10.0.0.0/33'] })).toThrow('invalid CIDR "10.0.0.0/33"');
    expect(() => store.issue({ ...LOGIN_INPUT, boundCidrs: ['nonsense'] })).toThrow(/invalid CIDR "nonsense"/);
  });

  test('matches IPv4 and IPv6 addresses against CIDRs', () => {
    const addressInCidr = (address: string, cidr: string) => addressInCidrs(address, [parseCidr(cidr)!]);
    expect(addressInCidr('192.168.1.7', '192.168.0.0/16')).toBe(true);
    expect(addressInCidr('192.169.1.7', '192.168.0.0/16')).toBe(false);
    expect(addressInCidr('::1', '::1/128')).toBe(true);
    expect(addressInCidr('127.0.0.1', '127.0.0.1')).toBe(true);
    expect(addressInCidr('127.0.0.1', '::1/128')).toBe(false);
  });
});

describe('login-token restrictions in the router', () => {
  test('a non-root token may use a method only where the area allows it', async () => {
    const area: AreaHandler = {
      handle: (req, subpath) => ({ status: 200, body: { method: req.method, subpath } }),
      allowsNonRoot: (method, subpath) => method === 'POST' && subpath.startsWith('use/'),
    };
    const tokens = new InMemoryTokenStore('root', Date.now);
    const factory = () => area;
    const mounts = new MountRegistry({ kv: factory, cloud: factory, ldap: factory, userpass: createUserpassArea }, () => ({}) as ServerContext);
    mounts.enable({ path: 'engine', type: 'cloud', auth: false });
    const router = new Router({ mounts, tokens, sync: { handle: () => ({ status: 204 }) }, faults: new FaultInjector(), now: Date.now, log: () => undefined });
    const http = new HttpServer((head, readBody) => router.handle(head, readBody));
    const { port } = await http.listen(0, '127.0.0.1');
    const login = tokens.issue(LOGIN_INPUT);
    const send = (method: string, path: string, token: string) =>
      fetch(`http://127.0.0.1:${port}/v1/${path}`, { method, headers: { 'X-Service-Token': token } });
    try {
      expect((await send('POST', 'engine/use/thing', login.id)).status).toBe(200);
      const refused = await send('POST', 'engine/config', login.id);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({ errors: ['permission denied'] });
      expect((await send('DELETE', 'engine/use/thing', login.id)).status).toBe(403);
      expect((await send('GET', 'engine/config', login.id)).status).toBe(200);
      expect((await send('POST', 'engine/config', 'root')).status).toBe(200);
      expect((await send('GET', 'sys/sync/config', login.id)).status).toBe(403);
    } finally {
      await http.close();
    }
  });
});
