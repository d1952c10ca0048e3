import { createHash } from 'node:crypto';
import { PRIVATE_KEY, startSyncFixture, type SyncFixture } from './sync-fixture';

let f: SyncFixture;
beforeEach(async () => {
  f = await startSyncFixture();
});
afterEach(async () => {
  await f.close();
});

const APP = 'sys/sync/github-apps/app1';
const fingerprint = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

describe('sys/sync/github-apps', () => {
  test('POST answers 200 with app_id as integer, masked key, SHA-256 hex fingerprint and mount_type', async () => {
    const reply = await f.request('POST', APP, { app_id: '12345', private_key: PRIVATE_KEY });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      app_id: 12345,
      fingerprint: fingerprint(PRIVATE_KEY),
      name: 'app1',
      private_key: '*****',
    });
    expect(reply.body.data.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(reply.body.mount_type).toBe('system');
    const read = await f.request('GET', APP);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(reply.body.data);
    expect(read.body.mount_type).toBe('system');
  });

  test('an update merges: a new app_id keeps the key, a new key changes the fingerprint', async () => {
    await f.request('POST', APP, { app_id: '1', private_key: PRIVATE_KEY });
    const newId = await f.request('POST', APP, { app_id: '2' });
    expect(newId.body.data).toMatchObject({ app_id: 2, fingerprint: fingerprint(PRIVATE_KEY) });
    const otherKey = PRIVATE_KEY.replace('example', 'other');
    const newKey = await f.request('POST', APP, { private_key: otherKey });
    expect(newKey.body.data).toMatchObject({ app_id: 2, fingerprint: fingerprint(otherKey) });
  });

  test('refuses a missing private_key, a key that is not PEM, and a non-numeric app_id with 400', async () => {
    expect(await f.request('POST', APP, { app_id: '1' })).toEqual({
      status: 400,
      body: { errors: ['github app "app1": missing required field "private_key"'] },
    });
    expect(await f.request('POST', APP, { private_key: PRIVATE_KEY })).toEqual({
      status: 400,
      body: { errors: ['github app "app1": missing required field "app_id"'] },
    });
    const notPem = await f.request('POST', APP, { app_id: '1', private_key: 'just-a-string' });
    expect(notPem.status).toBe(400);
    expect(notPem.body.errors[0]).toMatch(/^github app "app1": "private_key" must be a PEM-encoded private key/);
    const badId = await f.request('POST', APP, { app_id: 'abc', private_key: PRIVATE_KEY });
    expect(badId).toEqual({
      status: 400,
      body: { errors: ['github app: "app_id" must be a positive integer (as a string), got "abc"'] },
    });
    expect((await f.request('GET', APP)).status).toBe(404);
  });

  test('GET of an absent app is 404; LIST is 404 when empty and lists names otherwise', async () => {
    expect(await f.request('GET', APP)).toEqual({ status: 404, body: { errors: [] } });
    expect(await f.request('LIST', 'sys/sync/github-apps')).toEqual({ status: 404, body: { errors: [] } });
    await f.request('POST', 'sys/sync/github-apps/zeta', { app_id: '1', private_key: PRIVATE_KEY });
    await f.request('POST', APP, { app_id: '2', private_key: PRIVATE_KEY });
    const list = await f.request('LIST', 'sys/sync/github-apps');
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual({ keys: ['app1', 'zeta'] });
  });

  test('DELETE is refused with 400 while a repohost destination uses the app, then succeeds with 204', async () => {
    await f.request('POST', APP, { app_id: '7', private_key: PRIVATE_KEY });
    const destination = await f.request('POST', 'sys/sync/destinations/repohost/gh', {
      app_name: 'app1',
      installation_id: '99',
      repository_owner: 'acme',
      repository_name: 'app',
    });
    expect(destination.status).toBe(200);
    expect(await f.request('DELETE', APP)).toEqual({
      status: 400,
      body: { errors: ['github app "app1" cannot be deleted because destinations use it: repohost/gh'] },
    });
    expect((await f.request('GET', APP)).status).toBe(200);
    expect((await f.request('DELETE', 'sys/sync/destinations/repohost/gh')).status).toBe(204);
    expect((await f.request('DELETE', APP)).status).toBe(204);
    expect((await f.request('GET', APP)).status).toBe(404);
    expect((await f.request('DELETE', APP)).status).toBe(204);
  });

  test('a wrong method is 405', async () => {
    expect((await f.request('PATCH', APP, {})).status).toBe(405);
    expect((await f.request('GET', 'sys/sync/github-apps')).status).toBe(405);
  });
});
