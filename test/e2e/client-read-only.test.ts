// A read-only client (allowedMethods GET and LIST) against the dev server: reads and lists go out, every other
// method is refused inside the process, and the server's request log shows it never received one.
import { ServiceClient } from '../../src/client/service-client';
import { loadClientConfig } from '../../src/client/config';
import { startDevServer, type DevServer } from '../../src/devserver/server';

const ROOT_TOKEN = 'client-read-only-root';
let server: DevServer;
let writer: ServiceClient;
let reader: ServiceClient;

function client(allowedMethods?: readonly string[]): ServiceClient {
  const loaded = loadClientConfig({ SERVICE_ADDR: server.url, SERVICE_TOKEN: ROOT_TOKEN });
  if (!loaded.ok) throw new Error(loaded.error.message);
  return new ServiceClient(loaded.config, allowedMethods ? { allowedMethods } : {});
}

beforeEach(async () => {
  server = await startDevServer({ port: 0, rootToken: ROOT_TOKEN });
  writer = client();
  reader = client(['get', 'LIST']);
  const mounted = await writer.post('sys/auth/userpass', { type: 'userpass' });
  if (!mounted.ok) throw new Error(mounted.error.message);
  const user = await writer.post('auth/userpass/users/alice', { password: 'pw-alice' });
  if (!user.ok) throw new Error(user.error.message);
});
afterEach(async () => {
  await Promise.all([writer.close(), reader.close()]);
  await server.close();
});

it('sends GET and LIST', async () => {
  const before = server.requestLog.length;
  expect(await reader.readObject('auth/userpass/users/alice')).toMatchObject({ ok: true });
  expect(await reader.list('auth/userpass/users')).toMatchObject({ ok: true, data: { keys: ['alice'] } });
  expect(server.requestLog.slice(before).map((entry) => entry.method)).toEqual(['GET', 'LIST']);
});

it('refuses every other method before sending it', async () => {
  const before = server.requestLog.length;
  const attempts = [
    reader.post('auth/userpass/users/alice', { token_policies: ['admin'] }),
    reader.request('PUT', 'auth/userpass/users/bob', { body: { password: 'pw-bob' } }),
    reader.request('PATCH', 'auth/userpass/users/alice', { body: { token_ttl: 60 } }),
    reader.delete('auth/userpass/users/alice'),
  ];
  for (const result of await Promise.all(attempts)) {
    expect(result.ok).toBe(false);
    if (result.ok) continue;
    expect(result.error.code).toBe('method_refused');
    expect(result.error.message).toMatch(/was not sent: this run is read-only and sends only GET and LIST requests/);
  }
  expect(server.requestLog.slice(before)).toEqual([]);
  // The user is as it was: nothing reached the server.
  const alice = await writer.readObject('auth/userpass/users/alice');
  expect(alice).toMatchObject({ ok: true });
  expect(JSON.stringify(alice)).not.toContain('admin');
});

it('sends every method when no list is given', async () => {
  const before = server.requestLog.length;
  expect(await writer.delete('auth/userpass/users/alice')).toMatchObject({ ok: true });
  expect(server.requestLog.slice(before).map((entry) => entry.method)).toEqual(['DELETE']);
});
