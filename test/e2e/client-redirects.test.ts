// Redirects, the path check, run-level failure classification and warnings, against raw servers on loopback.
import * as net from 'node:net';
import { ServiceClient, type ServiceClientOptions } from '../../src/client/service-client';
import { loadClientConfig } from '../../src/client/config';
import { MAX_REDIRECTS } from '../../src/client/redirects';
import { envelopeOf, startRawServer, type RawHandler, type RawServer } from './client-raw-server';
import { createTestPki, type TestPki } from './client-test-pki';

const TOKEN = 'redirect-test-token-7f3a';
let server: RawServer;
let other: RawServer;
let respond: RawHandler;
const clients: ServiceClient[] = [];

function clientFor(address: string, options: ServiceClientOptions = {}, env: Record<string, string> = {}): ServiceClient {
  const loaded = loadClientConfig({ SERVICE_ADDR: address, SERVICE_TOKEN: TOKEN, ...env });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const client = new ServiceClient(loaded.config, { retry: { maxAttempts: 1 }, ...options });
  clients.push(client);
  return client;
}

beforeEach(async () => {
  respond = () => ({ status: 200, body: envelopeOf({}) });
  server = await startRawServer((request) => respond(request));
  other = await startRawServer(() => ({ status: 200, body: envelopeOf({ other: true }) }));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server.close();
  await other.close();
});

describe('redirects', () => {
  it('follows 307 and 308 on the same origin, re-sending method, body and token', async () => {
    respond = (request) => {
      if (request.path === '/v1/sys/auth/userpass') return { status: 307, headers: { location: '/v1/step-two' } };
      if (request.path === '/v1/step-two') return { status: 308, headers: { location: `${server.url}/v1/final` } };
      return { status: 200, body: envelopeOf({ done: true }, ['a warning']) };
    };
    const result = await clientFor(server.url).post('sys/auth/userpass', { type: 'userpass' });
    expect(result).toMatchObject({ ok: true, status: 200, data: { done: true }, warnings: ['a warning'] });
    expect(server.requests.map((r) => [r.method, r.path, r.body, r.headers['x-service-token']])).toEqual([
      ['POST', '/v1/sys/auth/userpass', '{"type":"userpass"}', TOKEN],
      ['POST', '/v1/step-two', '{"type":"userpass"}', TOKEN],
      ['POST', '/v1/final', '{"type":"userpass"}', TOKEN],
    ]);
  });

  it('never treats a 3xx as success: 307 without a Location (the "all 307, empty body" server) is an error', async () => {
    respond = () => ({ status: 307 });
    const result = await clientFor(server.url).post('auth/userpass/users/alice', { password: 'x' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('redirect');
      expect(result.error.status).toBe(307);
      expect(result.error.message).toContain('POST /v1/auth/userpass/users/alice was answered with HTTP 307 (redirect without a Location header)');
    }
  });

  it.each([301, 302, 303])('refuses %i on a write and on a read, naming the status and the Location', async (status) => {
    respond = () => ({ status, headers: { location: '/v1/elsewhere' } });
    const client = clientFor(server.url);
    for (const result of [await client.post('sys/mounts/apps', { type: 'kv' }), await client.get('sys/mounts')]) {
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error).toMatchObject({ code: 'redirect', status, location: '/v1/elsewhere' });
        expect(result.error.message).toContain(`HTTP ${status} (redirect to "/v1/elsewhere")`);
        expect(result.error.message).toContain('only 307 and 308 keep the method and body');
      }
    }
    expect(server.requests).toHaveLength(2);
  });

  it('reports a loop, and stops after the hop limit', async () => {
    respond = (request) => ({ status: 307, headers: { location: request.path === '/v1/a' ? '/v1/b' : '/v1/a' } });
    const loop = await clientFor(server.url).get('a');
    expect(loop.ok).toBe(false);
    if (!loop.ok) expect(loop.error.message).toContain('redirect loop');
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/a', '/v1/b']);

    server.requests.length = 0;
    respond = (request) => ({ status: 308, headers: { location: `${request.path}x` } });
    const chain = await clientFor(server.url).get('c');
    expect(chain.ok).toBe(false);
    if (!chain.ok) expect(chain.error.message).toContain(`more than ${MAX_REDIRECTS} redirects`);
    expect(server.requests).toHaveLength(MAX_REDIRECTS + 1);
  });

  it('never follows to another origin, so the token never goes there', async () => {
    respond = () => ({ status: 307, headers: { location: `${other.url}/v1/sys/mounts` } });
    const result = await clientFor(server.url).get('sys/mounts');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.message).toContain(`it leads to another server (${other.url})`);
      expect(result.error.location).toBe(`${other.url}/v1/sys/mounts`);
    }
    expect(other.requests).toHaveLength(0);
  });

  describe('with TLS', () => {
    let pki: TestPki;
    let secure: RawServer;
    beforeAll(() => {
      pki = createTestPki();
    });
    afterAll(() => pki.remove());
    beforeEach(async () => {
      secure = await startRawServer(
        (request) => (request.path.startsWith('/v1/down') ? { status: 307, headers: { location: `${server.url}/v1/x` } } : { status: 200, body: envelopeOf({ secure: true }) }),
        { cert: pki.read(pki.serverCertPath), key: pki.read(pki.serverKeyPath) },
      );
    });
    afterEach(() => secure.close());

    it('follows an upgrade from http to https on the same host, verifying the certificate', async () => {
      respond = (request) => ({ status: 308, headers: { location: `${secure.url}${request.path}` } });
      const result = await clientFor(server.url, {}, { SERVICE_CACERT: pki.caCertPath }).post('sys/mounts/apps', { type: 'kv' });
      expect(result).toMatchObject({ ok: true, data: { secure: true } });
      expect(secure.requests.map((r) => [r.method, r.path, r.body])).toEqual([['POST', '/v1/sys/mounts/apps', '{"type":"kv"}']]);
    });

    it('an upgrade to https that cannot connect names the redirect target as unreachable, not SERVICE_ADDR', async () => {
      const closed = await startRawServer(() => 'destroy');
      const target = `https://127.0.0.1:${closed.port}`;
      await closed.close();
      respond = (request) => ({ status: 308, headers: { location: `${target}${request.path}` } });
      const result = await clientFor(server.url).get('sys/mounts');
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.error.code).toBe('connection');
      expect(result.error.message).toContain(`could not reach the service at ${target} (the redirect target of ${server.url}) (ECONNREFUSED)`);
    });

    it('an upgrade to https whose certificate is not trusted names the redirect target', async () => {
      respond = (request) => ({ status: 308, headers: { location: `${secure.url}${request.path}` } });
      const result = await clientFor(server.url).get('sys/mounts');
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toContain(`TLS with ${secure.url} (the redirect target of ${server.url}) failed`);
    });

    it('refuses to leave https for http', async () => {
      const result = await clientFor(secure.url, {}, { SERVICE_CACERT: pki.caCertPath }).get('down');
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error.message).toContain('it leaves https for plain http');
      expect(server.requests).toHaveLength(0);
    });
  });
});

describe('the path check', () => {
  it.each([
    ['ldap/role/../config', 'has the dot segment ".." (segment 3)'],
    ['ldap/./config', 'has the dot segment "." (segment 2)'],
    ['auth/userpass/users/..', 'has the dot segment ".."'],
    ['ldap//config', 'has an empty segment (segment 2'],
    ['ldap/role/a\nb', 'contains a control character'],
    ['ldap/role/a\u0000', 'contains a control character'],
    ['', 'is empty'],
  ])('refuses %j and sends nothing', async (path, reason) => {
    const result = await clientFor(server.url).post(path, {});
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('invalid_path');
      expect(result.error.message).toContain(`POST ${JSON.stringify(path)} was not sent: the path ${reason}`);
    }
    expect(server.requests).toHaveLength(0);
  });

  it('percent-encodes each segment, keeps "/" between them and a trailing "/" of a folder list', async () => {
    const client = clientFor(server.url);
    await client.get('kv/data/a b/c?d#e%f', { version: 2 });
    await client.list('ldap/static-role/team/');
    expect(server.requests.map((r) => r.path)).toEqual(['/v1/kv/data/a%20b/c%3Fd%23e%25f?version=2', '/v1/ldap/static-role/team/']);
  });
});

describe('run-level failures', () => {
  it('classifies a 403 "invalid token" as an authentication failure and sends nothing after it', async () => {
    respond = () => ({ status: 403, body: { errors: ['permission denied', 'invalid token'] } });
    const client = clientFor(server.url, { stopAfterRunFailure: true });
    const first = await client.get('sys/auth');
    expect(first.ok).toBe(false);
    if (!first.ok) expect(first.error.runFailure).toBe('authentication');
    const second = await client.get('sys/mounts');
    expect(second).toEqual(first);
    expect(client.runFailure()).toBe(first.ok ? undefined : first.error);
    expect(server.requests).toHaveLength(1);
  });

  it('takes plain "permission denied" for a bad token only after several denials and no accepted request', async () => {
    respond = () => ({ status: 403, body: { errors: ['permission denied'] } });
    const client = clientFor(server.url);
    const causes: Array<string | undefined> = [];
    for (let i = 0; i < 5; i++) {
      const result = await client.get(`ldap/role/r${i}`);
      causes.push(result.ok ? 'ok' : result.error.runFailure);
    }
    expect(causes).toEqual([undefined, undefined, undefined, undefined, 'authentication']);

    const accepted = clientFor(server.url);
    respond = () => ({ status: 404, body: { errors: [] } });
    await accepted.get('ldap/role/present');
    respond = () => ({ status: 403, body: { errors: ['permission denied'] } });
    for (let i = 0; i < 6; i++) {
      const result = await accepted.get(`ldap/role/r${i}`);
      expect(!result.ok && result.error.runFailure).toBeUndefined();
    }
  });

  it('takes a timeout before any answer, or 3 in a row, for a hung server ("not_answering"), and a single timeout after answers for the request\'s own', async () => {
    let hang = true;
    respond = () => (hang ? new Promise<never>(() => undefined) : { status: 200, body: envelopeOf({}) });
    const hung = clientFor(server.url, { timeoutMs: 200, stopAfterRunFailure: true });
    const first = await hung.get('sys/auth');
    expect(!first.ok && [first.error.code, first.error.runFailure]).toEqual(['timeout', 'not_answering']);
    const before = server.requests.length;
    expect(await hung.get('sys/mounts')).toEqual(first);
    expect(server.requests).toHaveLength(before);

    hang = false;
    const answered = clientFor(server.url, { timeoutMs: 200, stopAfterRunFailure: true });
    expect((await answered.get('sys/auth')).ok).toBe(true);
    hang = true;
    const slow = await answered.get('ldap/role/slow');
    expect(!slow.ok && [slow.error.code, slow.error.runFailure]).toEqual(['timeout', undefined]);
    hang = false;
    expect((await answered.get('sys/mounts')).ok).toBe(true);

    // A server that stops answering mid-run: the third timeout in a row, with no answer between, stops the run.
    hang = true;
    const causes: Array<string | undefined> = [];
    for (let i = 0; i < 3; i++) {
      const result = await answered.get(`ldap/role/r${i}`);
      causes.push(result.ok ? 'ok' : result.error.runFailure);
    }
    expect(causes).toEqual([undefined, undefined, 'not_answering']);
    const sent = server.requests.length;
    expect(!(await answered.get('ldap/role/after')).ok && answered.runFailure()?.runFailure).toBe('not_answering');
    expect(server.requests).toHaveLength(sent);
  });

  it('gives up on connect timeouts after two attempts when the server never answered (an https server that never handshakes)', async () => {
    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => {
      socket.on('error', () => undefined);
      sockets.push(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    try {
      const client = clientFor(`https://127.0.0.1:${port}`, { connectTimeoutMs: 200, retry: { maxAttempts: 5, baseDelayMs: 1, maxDelayMs: 1 } });
      const result = await client.get('sys/auth');
      expect(!result.ok && [result.error.causeCode, result.error.runFailure, result.error.attempts]).toEqual(['UND_ERR_CONNECT_TIMEOUT', 'unreachable', 2]);
      expect(sockets).toHaveLength(2);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('classifies a refused connection as "unreachable" and a 400 as the resource\'s own error', async () => {
    const closed = await startRawServer(() => 'destroy');
    const address = closed.url;
    await closed.close();
    const down = await clientFor(address).get('sys/auth');
    expect(!down.ok && down.error.runFailure).toBe('unreachable');
    respond = () => ({ status: 400, body: { errors: ['bad name'] } });
    const bad = await clientFor(server.url).post('ldap/role/x', {});
    expect(!bad.ok && bad.error.runFailure).toBeUndefined();
  });
});

describe('scrubbing', () => {
  it('removes the token and registered secrets from errors, warnings and a refused Location', async () => {
    const secret = 'line one\n"quoted" \\ back';
    const client = clientFor(server.url, { secrets: [secret] });
    respond = (request) => ({ status: 200, body: envelopeOf({}, [`ignored: ${request.body}`, `token ${TOKEN.toUpperCase()}`]) });
    const ok = await client.post('auth/userpass/users/alice', { password: secret });
    expect(ok.ok && ok.warnings).toEqual(['ignored: {"password":"[redacted]"}', 'token [redacted]']);

    respond = (request) => ({ status: 400, body: { errors: [`bad body ${request.body} ${Buffer.from(request.body).toString('base64')}`] } });
    const failed = await client.post('auth/userpass/users/alice', { password: secret });
    expect(failed.ok).toBe(false);
    if (!failed.ok) {
      expect(failed.error.message).toContain('bad body {"password":"[redacted]"}');
      expect(failed.error.message).not.toContain(Buffer.from(JSON.stringify(secret)).toString('base64').slice(8, 20));
      expect(failed.error.errors.join(' ')).not.toContain(JSON.stringify(secret).slice(1, -1));
    }

    respond = () => ({ status: 302, headers: { location: `/v1/login?token=${TOKEN}` } });
    const moved = await client.get('sys/auth');
    expect(!moved.ok && moved.error.message).toContain('/v1/login?token=[redacted]');
  });
});
