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
});
