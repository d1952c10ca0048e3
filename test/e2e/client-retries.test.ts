// Retries, Retry-After, idempotency and connection reuse, against a raw test server.
import * as net from 'node:net';
import { ServiceClient, type ServiceClientOptions } from '../../src/client/service-client';
import { loadClientConfig } from '../../src/client/config';
import { envelopeOf, startRawServer, type RawHandler, type RawServer } from './client-raw-server';

let server: RawServer;
let respond: RawHandler;
const clients: ServiceClient[] = [];

function clientFor(address: string, options: ServiceClientOptions = {}): ServiceClient {
  const loaded = loadClientConfig({ SERVICE_ADDR: address, SERVICE_TOKEN: 'root' });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const client = new ServiceClient(loaded.config, options);
  clients.push(client);
  return client;
}

/** Fails the first `failures` requests with `reply`, then answers 200 with an envelope around `data`. */
function failFirst(failures: number, reply: ReturnType<RawHandler>, data: unknown = { ok: true }): RawHandler {
  let seen = 0;
  return () => (++seen <= failures ? reply : { status: 200, body: envelopeOf(data) });
}

beforeEach(async () => {
  respond = () => ({ status: 200, body: envelopeOf({}) });
  server = await startRawServer((request) => respond(request));
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server.close();
});

/** A sleep that returns at once and records how long it was asked to wait. */
function recordSleeps(sleeps: number[]): (ms: number) => Promise<void> {
  return (ms) => {
    sleeps.push(ms);
    return Promise.resolve();
  };
}

describe('retries', () => {
  it('converges after three 503s on a GET, counting requests and retries', async () => {
    const sleeps: number[] = [];
    const client = clientFor(server.url, {
      retry: { baseDelayMs: 100, maxDelayMs: 1000 },
      sleep: recordSleeps(sleeps),
      random: () => 0.5,
    });
    respond = failFirst(3, { status: 503, body: { errors: ['service is sealed'] } });
    const result = await client.readObject('ldap/config');
    expect(result).toEqual({ ok: true, value: { ok: true }, warnings: [] });
    expect(server.requests).toHaveLength(4);
    expect(sleeps).toEqual([50, 100, 200]);
    expect(client.stats()).toEqual({ requests: 4, retries: 3 });
  });

  it('gives up after maxAttempts with an unavailable error that counts the attempts', async () => {
    const client = clientFor(server.url, { retry: { maxAttempts: 3 }, sleep: () => Promise.resolve() });
    respond = () => ({ status: 502, headers: { 'content-type': 'text/html' }, body: '<html>Bad Gateway</html>' });
    const result = await client.list('cloud/roles');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ code: 'unavailable', status: 502, attempts: 3, errors: [] });
      expect(result.error.message).toContain('LIST /v1/cloud/roles failed with HTTP 502 (after 3 attempts).');
    }
    expect(server.requests).toHaveLength(3);
    expect(client.stats()).toEqual({ requests: 3, retries: 2 });
  });

  it('honours Retry-After in seconds on 429 (measured)', async () => {
    const client = clientFor(server.url, { retry: { baseDelayMs: 1, maxDelayMs: 1 } });
    respond = failFirst(1, { status: 429, headers: { 'retry-after': '1' }, body: { errors: ['rate limited'] } });
    const started = Date.now();
    const result = await client.get('ldap/config');
    const waited = Date.now() - started;
    expect(result.ok).toBe(true);
    expect(waited).toBeGreaterThanOrEqual(990);
    expect(waited).toBeLessThan(3000);
    expect(server.requests).toHaveLength(2);
  });

  it('honours Retry-After as an HTTP date', async () => {
    const sleeps: number[] = [];
    const now = Date.parse('2025-06-01T12:00:00Z');
    const client = clientFor(server.url, { sleep: recordSleeps(sleeps), now: () => now });
    respond = failFirst(1, { status: 503, headers: { 'retry-after': 'Sun, 01 Jun 2025 12:00:03 GMT' }, body: { errors: [] } });
    expect((await client.get('ldap/config')).ok).toBe(true);
    expect(sleeps).toEqual([3000]);
  });

  it('does not wait for a Retry-After beyond the limit and says what the server asked', async () => {
    const sleeps: number[] = [];
    const client = clientFor(server.url, { retry: { maxRetryAfterMs: 5000 }, sleep: recordSleeps(sleeps) });
    respond = () => ({ status: 429, headers: { 'retry-after': '600' }, body: { errors: ['rate limited'] } });
    const result = await client.get('ldap/config');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('rate_limited');
      expect(result.error.message).toContain('The server asked to wait 600 s before retrying, longer than the 5 s this client waits.');
    }
    expect(sleeps).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('does not retry a POST that is not marked idempotent (rotate-root)', async () => {
    const client = clientFor(server.url, { sleep: () => Promise.resolve() });
    respond = failFirst(1, { status: 503, body: { errors: ['try again'] } });
    const result = await client.post('cloud/rotate-root');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatchObject({ code: 'unavailable', attempts: 1 });
    expect(server.requests).toHaveLength(1);
    expect(client.stats()).toEqual({ requests: 1, retries: 0 });
  });

  it('retries a POST marked idempotent and a PATCH marked idempotent', async () => {
    const client = clientFor(server.url, { sleep: () => Promise.resolve() });
    respond = failFirst(2, { status: 504, body: { errors: [] } });
    expect((await client.post('ldap/config', { binddn: 'cn=admin' }, { idempotent: true })).ok).toBe(true);
    respond = failFirst(1, { status: 503, body: { errors: [] } });
    expect((await client.patch('sys/sync/config', { disabled: false }, { idempotent: true })).ok).toBe(true);
    expect(server.requests.map((request) => request.method)).toEqual(['POST', 'POST', 'POST', 'PATCH', 'PATCH']);
    // The body is sent again in full on a retry.
    expect(server.requests.map((request) => request.body)).toEqual([
      '{"binddn":"cn=admin"}', '{"binddn":"cn=admin"}', '{"binddn":"cn=admin"}', '{"disabled":false}', '{"disabled":false}',
    ]);
  });

  it('retries a GET whose connection the server closed, and converges', async () => {
    const client = clientFor(server.url, { sleep: () => Promise.resolve() });
    respond = failFirst(2, 'destroy', { keys: ['alice'] });
    expect(await client.readList('auth/userpass/users')).toEqual({ ok: true, value: ['alice'], warnings: [] });
    expect(server.requests).toHaveLength(3);
    expect(client.stats()).toEqual({ requests: 3, retries: 2 });
  });

  it('does not retry a non-idempotent POST whose connection was closed, and reports a connection error', async () => {
    const client = clientFor(server.url, { sleep: () => Promise.resolve() });
    respond = () => 'destroy';
    const result = await client.post('ldap/library/team/check-out', {});
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ code: 'connection', causeCode: 'UND_ERR_SOCKET', attempts: 1 });
      expect(result.error.message).toContain('the server closed the connection');
    }
    expect(server.requests).toHaveLength(1);
  });

  it('retries a refused connection with jittered backoff within bounds, then names SERVICE_ADDR', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const sleeps: number[] = [];
    const client = clientFor(`http://127.0.0.1:${port}`, {
      retry: { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 250 },
      sleep: recordSleeps(sleeps),
    });
    const result = await client.post('cloud/rotate-root');
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error).toMatchObject({ code: 'connection', causeCode: 'ECONNREFUSED', attempts: 4 });
      expect(result.error.message).toContain(`could not reach the service at http://127.0.0.1:${port} (ECONNREFUSED) (after 4 attempts): nothing is listening there; check SERVICE_ADDR`);
    }
    expect(sleeps).toHaveLength(3);
    [100, 200, 250].forEach((ceiling, index) => {
      expect(sleeps[index]).toBeGreaterThanOrEqual(0);
      expect(sleeps[index]).toBeLessThan(ceiling);
    });
  });
});

describe('connection reuse', () => {
  it('sends many sequential requests over kept-alive connections instead of one socket each', async () => {
    const client = clientFor(server.url);
    for (let i = 0; i < 25; i++) expect((await client.get(`secret/data/item-${i}`)).ok).toBe(true);
    expect(server.requests).toHaveLength(25);
    // undici's pool marks a connection free just after the response body ends, so a request sent at once
    // may open a second connection; from then on the two alternate. Without keep-alive this would be 25.
    expect(server.connections()).toBeLessThanOrEqual(2);
  });

  it('opens at most maxConnections sockets for parallel requests and reuses them', async () => {
    const client = clientFor(server.url, { maxConnections: 4 });
    respond = () => new Promise((resolve) => setTimeout(() => resolve({ status: 200, body: envelopeOf({}) }), 20));
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => client.get(`secret/data/item-${i}`)));
    expect(results.every((result) => result.ok)).toBe(true);
    expect(server.requests).toHaveLength(40);
    expect(server.connections()).toBe(4);
    expect(new Set(server.requests.map((request) => request.connection)).size).toBe(4);
  });
});
