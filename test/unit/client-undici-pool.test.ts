import * as undici from 'undici';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request as apiRequest } from 'undici/lib/api';
import { Pool, poolRequest } from '../../src/client/undici-pool';

describe('undici Pool loaded from its own module', () => {
  test('is the Pool class and request function undici exports', () => {
    expect(Pool).toBe(undici.Pool);
    const fullRequest: unknown = Reflect.get(undici.Dispatcher.prototype, 'request');
    expect(typeof fullRequest).toBe('function');
    expect(apiRequest).toBe(fullRequest);
    // The request function undici attaches to every dispatcher is the one poolRequest calls.
    const pool = new Pool('http://127.0.0.1:1');
    expect(Reflect.get(Object.getPrototypeOf(pool) as object, 'request')).toBe(fullRequest);
    void pool.close();
  });

  test('answers a request over a real socket', async () => {
    const server = createServer((req, res) => res.end(`${req.method} ${req.url}`));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const response = await poolRequest(pool, { method: 'GET', path: '/v1/sys/mounts' });
      expect(response.statusCode).toBe(200);
      expect(await response.body.text()).toBe('GET /v1/sys/mounts');
    } finally {
      await pool.close();
      await new Promise((done) => server.close(done));
    }
  });
});
