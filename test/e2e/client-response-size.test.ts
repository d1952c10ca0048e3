/**
 * Response bodies are capped: a body larger than the client reads fails its request with an error naming the
 * limit and the request (never "service down or unreachable"), and reading stops at the cap, so memory stays
 * bounded whatever the server sends.
 */
import * as net from 'node:net';
import { DEFAULT_MAX_RESPONSE_BYTES, ServiceClient, type ServiceClientOptions } from '../../src/client/service-client';
import { loadClientConfig } from '../../src/client/config';
import { envelopeOf, startRawServer, type RawServer } from './client-raw-server';
import { cliEnv, createProject, runCli } from './cli-harness';

jest.setTimeout(60_000);

const MiB = 1024 * 1024;
const servers: Array<{ close(): Promise<void> }> = [];

function clientFor(address: string, options: ServiceClientOptions = {}): ServiceClient {
  const loaded = loadClientConfig({ SERVICE_ADDR: address, SERVICE_TOKEN: 'size-test-token' });
  if (!loaded.ok) throw new Error(loaded.error.message);
  return new ServiceClient(loaded.config, { retry: { baseDelayMs: 1, maxDelayMs: 5 }, ...options });
}

async function raw(body: string): Promise<RawServer> {
  const server = await startRawServer(() => ({ status: 200, headers: { 'content-type': 'application/json' }, body }));
  servers.push(server);
  return server;
}

/** A server that streams an endless chunked body of 1 MiB chunks, counting what it managed to send. */
async function endlessServer(): Promise<{ url: string; sent(): number; closed: Promise<void>; close(): Promise<void> }> {
  let sent = 0;
  let onClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (onClosed = resolve));
  const chunk = Buffer.concat([Buffer.from(`${MiB.toString(16)}\r\n`), Buffer.alloc(MiB, 'a'), Buffer.from('\r\n')]);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.on('close', () => onClosed());
    socket.once('data', () => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n');
      const pump = (): void => {
        while (!socket.destroyed && sent < 1024 * MiB) {
          sent += MiB;
          if (!socket.write(chunk)) {
            socket.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async (): Promise<void> => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const entry = { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, sent: () => sent, closed, close };
  servers.push(entry);
  return entry;
}

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

test('the default cap is 32 MiB', () => {
  expect(DEFAULT_MAX_RESPONSE_BYTES).toBe(32 * MiB);
});

test('a body declared larger than the cap: an error naming the limit and the request, not "unreachable", not retried', async () => {
  const server = await raw(JSON.stringify(envelopeOf({ filler: 'x'.repeat(DEFAULT_MAX_RESPONSE_BYTES) })));
  const client = clientFor(server.url);
  try {
    const result = await client.get('sys/mounts');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('response_too_large');
    expect(result.error.message).toContain('GET /v1/sys/mounts was answered (HTTP 200) with a body larger than 32 MiB');
    expect(result.error.message).not.toMatch(/unreachable|down/);
    expect(result.error.runFailure).toBeUndefined();
    expect(server.requests).toHaveLength(1);
  } finally {
    await client.close();
  }
});

test('an endless chunked body: reading stops at the cap and the connection is closed', async () => {
  const server = await endlessServer();
  const client = clientFor(server.url);
  try {
    const heapBefore = process.memoryUsage().heapUsed;
    const result = await client.request('LIST', 'auth/userpass/users');
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('response_too_large');
    expect(result.error.message).toContain('LIST /v1/auth/userpass/users was answered (HTTP 200) with a body larger than 32 MiB');
    await server.closed;
    // What was sent beyond the cap sat in socket buffers only; the server never got to send the gigabyte.
    expect(server.sent()).toBeLessThan(DEFAULT_MAX_RESPONSE_BYTES + 64 * MiB);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(256 * MiB);
  } finally {
    await client.close();
  }
});

test('the cap is the client\'s option: a body at the cap is read, one byte more is refused', async () => {
  const body = JSON.stringify(envelopeOf({ note: 'y'.repeat(1000) }));
  const server = await raw(body);
  const exact = clientFor(server.url, { maxResponseBytes: Buffer.byteLength(body) });
  const smaller = clientFor(server.url, { maxResponseBytes: Buffer.byteLength(body) - 1 });
  try {
    expect((await exact.get('kv/data/a')).ok).toBe(true);
    const refused = await smaller.get('kv/data/a');
    expect(refused.ok ? undefined : refused.error.message).toContain(`with a body larger than ${Buffer.byteLength(body) - 1} bytes`);
  } finally {
    await exact.close();
    await smaller.close();
  }
});

test('plan against a server sending a body over the cap: exit 1, the limit and the request named once per object', async () => {
  const server = await raw(`[${'"name",'.repeat(5 * MiB)}"last"]`);
  const project = createProject();
  const env = cliEnv({ url: server.url, rootToken: 'size-test-token' });
  expect((await runCli(['synth'], project, env)).code).toBe(0);
  const result = await runCli(['plan', '--no-synth'], project, env);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('GET /v1/auth/userpass/users/alice was answered (HTTP 200) with a body larger than 32 MiB');
  expect(result.stderr).not.toContain('down or unreachable');
});
