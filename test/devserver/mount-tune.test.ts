import type { DevServer } from '../../src/devserver/server';
import { call, enableAuth, mount, startTestServer } from './http';

describe('sys/mounts/:path/tune and sys/auth/:path/tune', () => {
  let server: DevServer;
  beforeEach(async () => {
    server = await startTestServer({ seed: { mounts: [] } });
  });
  afterEach(() => server.close());

  test('changes a mount description and lease TTLs, shown by tune and by the mount read', async () => {
    await mount(server, 'team/ldap', 'ldap');
    const tuned = await call(server, 'POST', 'sys/mounts/team/ldap/tune', { description: 'directory', default_lease_ttl: '1h', max_lease_ttl: 7200 });
    expect(tuned.status).toBe(204);
    const read = await call(server, 'GET', 'sys/mounts/team/ldap/tune');
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({ description: 'directory', default_lease_ttl: 3600, max_lease_ttl: 7200, force_no_cache: false, options: {} });
    const mountRead = await call(server, 'GET', 'sys/mounts/team/ldap');
    expect(mountRead.body.data).toMatchObject({ type: 'ldap', description: 'directory', config: { default_lease_ttl: 3600, max_lease_ttl: 7200 } });
  });

  test('tunes an auth method description', async () => {
    await enableAuth(server, 'userpass', 'userpass');
    expect((await call(server, 'POST', 'sys/auth/userpass/tune', { description: 'people' })).status).toBe(204);
    expect((await call(server, 'GET', 'sys/auth/userpass')).body.data.description).toBe('people');
  });

  test('refuses a default TTL above the max TTL, a non-string description and a KV version downgrade, changing nothing', async () => {
    await mount(server, 'kv', 'kv', { version: '2' });
    const ttl = await call(server, 'POST', 'sys/mounts/kv/tune', { default_lease_ttl: '2h', max_lease_ttl: '1h' });
    expect(ttl).toMatchObject({ status: 400, body: { errors: ['default_lease_ttl cannot be greater than max_lease_ttl'] } });
    const description = await call(server, 'POST', 'sys/mounts/kv/tune', { description: 42 });
    expect(description).toMatchObject({ status: 400, body: { errors: ['"description" must be a string'] } });
    const downgrade = await call(server, 'POST', 'sys/mounts/kv/tune', { options: { version: '1' } });
    expect(downgrade).toMatchObject({ status: 400, body: { errors: ['cannot downgrade a KV mount from version 2'] } });
    const read = await call(server, 'GET', 'sys/mounts/kv/tune');
    expect(read.body.data).toMatchObject({ description: '', default_lease_ttl: 0, max_lease_ttl: 0, options: { version: '2' } });
  });

  test('answers 405 for DELETE on tune, and treats tune of a missing mount as a new mount path', async () => {
    await mount(server, 'cloud', 'cloud');
    expect(await call(server, 'DELETE', 'sys/mounts/cloud/tune')).toMatchObject({ status: 405, body: { errors: ['unsupported operation'] } });
    const missing = await call(server, 'POST', 'sys/mounts/nothing/tune', { description: 'x' });
    expect(missing).toMatchObject({ status: 400, body: { errors: ['"type" is required'] } });
  });
});
