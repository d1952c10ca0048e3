/**
 * The run's connection pools (issue 35): the clients of a run's stacks on one server share one pool, so the
 * server sees at most `maxConnections` connections from the run, not that many per stack; clients with other
 * TLS settings keep their own; the pool closes when the last client using it closes. Counted at a real HTTP
 * server over a real socket.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ServiceClient } from '../../src/client/service-client';
import { SharedPools } from '../../src/client/shared-pools';
import type { ClientConfig } from '../../src/client/config';

let server: Server;
let address: string;
const sockets = new Set<Socket>();
let connections = 0;

beforeAll(async () => {
  server = createServer((_request, response) => {
    // Answers a little later, so that the requests of both clients are in flight together.
    setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}'), 20);
  });
  server.on('connection', (socket: Socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  address = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((done) => server.close(done));
});

beforeEach(() => {
  connections = 0;
});

function config(tls: ClientConfig['tls'] = { rejectUnauthorized: true }): ClientConfig {
  return { address, tls, warnings: [] };
}

async function readAll(clients: ServiceClient[], each: number): Promise<void> {
  const reads = clients.flatMap((client) => Array.from({ length: each }, (_, n) => client.get(`secret/data/item-${n}`)));
  const results = await Promise.all(reads);
  expect(results.every((result) => result.ok)).toBe(true);
}

async function closedSockets(): Promise<void> {
  for (let waited = 0; sockets.size > 0 && waited < 2000; waited += 10) await new Promise((done) => setTimeout(done, 10));
}

test('the clients of one server share its pool: the server sees the pool\'s connections, not a pool per client', async () => {
  const pools = new SharedPools();
  const clients = Array.from({ length: 4 }, () => new ServiceClient(config(), { maxConnections: 3, pools }));
  await readAll(clients, 6);
  expect(connections).toBeLessThanOrEqual(3);
  expect(pools.open()).toBe(1);
  // Closed when the last client closes, not before; a second close of a client counts it out once only.
  await clients[0].close();
  await clients[0].close();
  await clients[1].close();
  await clients[2].close();
  expect(pools.open()).toBe(1);
  await readAll([clients[3]], 3);
  await clients[3].close();
  expect(pools.open()).toBe(0);
  await closedSockets();
  expect(sockets.size).toBe(0);
});

test('without shared pools, each client opens its own (the reference the sharing is measured against)', async () => {
  const clients = Array.from({ length: 4 }, () => new ServiceClient(config(), { maxConnections: 3 }));
  await readAll(clients, 6);
  expect(connections).toBeGreaterThan(3);
  await Promise.all(clients.map((client) => client.close()));
  await closedSockets();
});

test('clients with other TLS settings or another pool size keep pools of their own', () => {
  const pools = new SharedPools();
  const plain = new ServiceClient(config(), { maxConnections: 3, pools });
  const otherCa = new ServiceClient(config({ rejectUnauthorized: true, ca: '-----BEGIN CERTIFICATE-----\nother\n-----END CERTIFICATE-----\n' }), { maxConnections: 3, pools });
  const unverified = new ServiceClient(config({ rejectUnauthorized: false }), { maxConnections: 3, pools });
  const larger = new ServiceClient(config(), { maxConnections: 5, pools });
  const same = new ServiceClient(config(), { maxConnections: 3, pools });
  expect(pools.open()).toBe(4);
  return Promise.all([plain, otherCa, unverified, larger, same].map((client) => client.close())).then(() => expect(pools.open()).toBe(0));
});
