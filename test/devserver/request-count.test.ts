import { call, startTestServer } from './http';

describe('request counting', () => {
  it('counts every handled request, including refused and failed ones', async () => {
    const server = await startTestServer();
    try {
      expect(server.requestCount).toBe(0);
      await call(server, 'GET', 'sys/mounts');
      await call(server, 'GET', 'sys/mounts', undefined, { token: null });
      server.faults.failNext(1, 503);
      await call(server, 'GET', 'sys/mounts');
      expect(server.requestCount).toBe(3);
      expect(server.requestLog).toHaveLength(3);
    } finally {
      await server.close();
    }
  });

  it('measures the requests in flight at once, from arrival to answer (latency included)', async () => {
    const server = await startTestServer({ latencyMs: 150 });
    try {
      expect([server.inFlight.current, server.inFlight.max]).toEqual([0, 0]);
      await Promise.all(Array.from({ length: 5 }, () => call(server, 'GET', 'sys/mounts')));
      expect(server.inFlight.max).toBe(5);
      expect(server.inFlight.current).toBe(0);
      server.inFlight.resetMax();
      expect(server.inFlight.max).toBe(0);
      await Promise.all([call(server, 'GET', 'sys/mounts'), call(server, 'GET', 'sys/mounts')]);
      expect(server.inFlight.max).toBe(2);
    } finally {
      await server.close();
    }
  });
});
