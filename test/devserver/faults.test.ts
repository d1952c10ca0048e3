import { FaultInjector } from '../../src/devserver/faults';
import { call, startTestServer } from './http';

describe('fault injection', () => {
  test('failNext fails the next requests with the status and Retry-After, then serves normally', async () => {
    const server = await startTestServer();
    try {
      server.faults.failNext(2, 429, 7);
      const first = await call(server, 'POST', 'secret/data/x', { data: { v: 1 } });
      expect(first.status).toBe(429);
      expect(first.body).toEqual({ errors: ['injected failure'] });
      expect(first.headers['retry-after']).toBe('7');
      const second = await call(server, 'GET', 'sys/mounts');
      expect(second.status).toBe(429);
      const third = await call(server, 'GET', 'secret/data/x');
      // The failed write changed nothing.
      expect(third).toMatchObject({ status: 404, body: { errors: [] } });
    } finally {
      await server.close();
    }
  });

  test('failEvery fails every request after the queued ones until stopFailing, and changes nothing', async () => {
    const server = await startTestServer();
    try {
      server.faults.failNext(1, 503, 2);
      server.faults.failEvery(429, 3);
      const queued = await call(server, 'GET', 'sys/mounts');
      expect([queued.status, queued.headers['retry-after']]).toEqual([503, '2']);
      for (let i = 0; i < 3; i++) {
        const limited = await call(server, 'POST', 'secret/data/x', { data: { v: i } });
        expect([limited.status, limited.headers['retry-after']]).toEqual([429, '3']);
      }
      server.faults.stopFailing();
      expect(await call(server, 'GET', 'secret/data/x')).toMatchObject({ status: 404, body: { errors: [] } });
      expect(() => server.faults.failEvery(200)).toThrow(/failEvery: status must be an HTTP error status/);
      expect(() => server.faults.failEvery(429, -1)).toThrow(/failEvery: retryAfterSeconds must be an integer >= 0/);
    } finally {
      await server.close();
    }
  });

  test('failNext with 503 adds Retry-After: 1 by default; a 500 has none', async () => {
    const server = await startTestServer();
    try {
      server.faults.failNext(1, 503);
      server.faults.failNext(1, 500);
      const unavailable = await call(server, 'GET', 'sys/mounts');
      expect(unavailable.status).toBe(503);
      expect(unavailable.headers['retry-after']).toBe('1');
      const internal = await call(server, 'GET', 'sys/mounts');
      expect(internal.status).toBe(500);
      expect(internal.headers['retry-after']).toBeUndefined();
      expect((await call(server, 'GET', 'sys/mounts')).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  test('failureRate 1 fails everything, logins included, and changes nothing', async () => {
    const server = await startTestServer({ failureRate: 1, seed: { mounts: [{ path: 'userpass', type: 'userpass' }] } });
    try {
      const write = await call(server, 'POST', 'sys/mounts/other', { type: 'kv' });
      expect(write).toMatchObject({ status: 503, body: { errors: ['injected failure'] } });
      expect(write.headers['retry-after']).toBe('1');
      const login = await call(server, 'POST', 'auth/userpass/login/alice', { password: 'x' }, { token: null });
      expect(login.status).toBe(503);
      expect(server.requestLog.map((e) => e.status)).toEqual([503, 503]);
      expect(() => server.inspectMount('other')).toThrow(/no secrets engine is mounted/);
    } finally {
      await server.close();
    }
  });

  test('failureStatus sets the status of rate-based failures', async () => {
    const server = await startTestServer({ failureRate: 1, failureStatus: 502 });
    try {
      const result = await call(server, 'GET', 'sys/mounts');
      expect(result).toMatchObject({ status: 502, body: { errors: ['injected failure'] } });
      expect(result.headers['retry-after']).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  test('latencyMs delays every response measurably', async () => {
    const server = await startTestServer({ latencyMs: 150 });
    try {
      const started = Date.now();
      const result = await call(server, 'GET', 'sys/mounts');
      const elapsed = Date.now() - started;
      expect(result.status).toBe(200);
      expect(elapsed).toBeGreaterThanOrEqual(140);
    } finally {
      await server.close();
    }
  });

  test('hold keeps answers in flight until released, then answers them; later requests are not held', async () => {
    const server = await startTestServer();
    try {
      const release = server.faults.hold();
      let answered = false;
      const pending = call(server, 'GET', 'sys/mounts').then((result) => {
        answered = true;
        return result;
      });
      const deadline = Date.now() + 10_000;
      while (server.inFlight.current === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect([server.inFlight.current, answered]).toEqual([1, false]);
      release();
      expect((await pending).status).toBe(200);
      expect((await call(server, 'GET', 'sys/mounts')).status).toBe(200);
      expect(server.inFlight.current).toBe(0);
    } finally {
      await server.close();
    }
  });

  test('latency counts from the arrival: time the server already spent is not added again', async () => {
    const injector = new FaultInjector({ latencyMs: 200 });
    const arrivedAt = performance.now() - 150;
    const started = performance.now();
    await injector.delayFrom(arrivedAt);
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(40);
    expect(waited).toBeLessThan(140);
    const late = performance.now();
    await injector.delayFrom(late - 500);
    expect(performance.now() - late).toBeLessThan(50);
  });

  test('a failure rate between 0 and 1 fails about that share of requests', () => {
    const values = [0.1, 0.6, 0.29, 0.31];
    const injector = new FaultInjector({ failureRate: 0.3, random: () => values.shift()! });
    expect([1, 2, 3, 4].map(() => injector.nextFailure()?.status)).toEqual([503, undefined, 503, undefined]);
  });

  test('refuses out-of-range settings with messages naming the option', async () => {
    await expect(startTestServer({ failureRate: 2 })).rejects.toThrow('failureRate must be a number between 0 and 1, got 2');
    await expect(startTestServer({ latencyMs: -1 })).rejects.toThrow('latencyMs must be a number >= 0, got -1');
    await expect(startTestServer({ failureStatus: 200 })).rejects.toThrow('failureStatus must be an HTTP error status 400..599, got 200');
    const injector = new FaultInjector();
    expect(() => injector.failNext(1, 302)).toThrow('failNext: status must be an HTTP error status 400..599, got 302');
    expect(() => injector.failNext(-1, 503)).toThrow('failNext: count must be an integer >= 0, got -1');
  });
});
