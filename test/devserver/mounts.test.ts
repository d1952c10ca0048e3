import { MountRegistry } from '../../src/devserver/mounts';
import type { DevServer } from '../../src/devserver/server';
import type { ServerContext } from '../../src/devserver/types';
import { call, enableAuth, mount, startTestServer } from './http';

describe('sys/mounts and sys/auth', () => {
  let server: DevServer;
  beforeEach(async () => {
    server = await startTestServer({ seed: { mounts: [] } });
  });
  afterEach(() => server.close());

  test('enables a secrets engine with 204 and reads it back with an accessor of the form <type>_<8 hex>', async () => {
    const created = await call(server, 'POST', 'sys/mounts/kv', { type: 'kv', description: 'app secrets', options: { version: '2' } });
    expect(created.status).toBe(204);
    expect(created.body).toBeUndefined();
    const read = await call(server, 'GET', 'sys/mounts/kv');
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ type: 'kv', description: 'app secrets', options: { version: '2' } });
    expect(read.body.data.accessor).toMatch(/^kv_[0-9a-f]{8}$/);
  });

  test('lists mounts keyed "path/" both under data and at the top level', async () => {
    await mount(server, 'cloud', 'cloud');
    await mount(server, 'team/ldap', 'ldap');
    const listed = await call(server, 'GET', 'sys/mounts');
    expect(listed.status).toBe(200);
    expect(Object.keys(listed.body.data).sort()).toEqual(['cloud/', 'team/ldap/']);
    expect(listed.body.data['cloud/']).toMatchObject({ type: 'cloud', description: '', options: {} });
    expect(listed.body.data['cloud/'].accessor).toMatch(/^cloud_[0-9a-f]{8}$/);
    expect(listed.body['team/ldap/']).toEqual(listed.body.data['team/ldap/']);
  });

  test('gives every mount a different accessor', async () => {
    await mount(server, 'a', 'cloud');
    await mount(server, 'b', 'cloud');
    const listed = await call(server, 'GET', 'sys/mounts');
    expect(listed.body.data['a/'].accessor).not.toBe(listed.body.data['b/'].accessor);
  });

  test('refuses a path that is in use or overlaps a mount with 400 naming the existing path', async () => {
    await mount(server, 'team/ldap', 'ldap');
    const same = await call(server, 'POST', 'sys/mounts/team/ldap', { type: 'cloud' });
    expect(same).toMatchObject({ status: 400, body: { errors: ['path is already in use at team/ldap/'] } });
    const below = await call(server, 'POST', 'sys/mounts/team/ldap/more', { type: 'cloud' });
    expect(below).toMatchObject({ status: 400, body: { errors: ['path is already in use at team/ldap/'] } });
    const above = await call(server, 'POST', 'sys/mounts/team', { type: 'cloud' });
    expect(above).toMatchObject({ status: 400, body: { errors: ['path is already in use at team/ldap/'] } });
    // A sibling that only shares a textual prefix does not overlap.
    expect((await call(server, 'POST', 'sys/mounts/team/ldap2', { type: 'ldap' })).status).toBe(204);
  });

  test('refuses an unknown or missing type with 400', async () => {
    const unknown = await call(server, 'POST', 'sys/mounts/x', { type: 'database' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]).toMatch(/secrets engine type "database" is not supported/);
    const missing = await call(server, 'POST', 'sys/mounts/x', {});
    expect(missing).toMatchObject({ status: 400, body: { errors: ['"type" is required'] } });
    const authOnSecrets = await call(server, 'POST', 'sys/mounts/x', { type: 'userpass' });
    expect(authOnSecrets.status).toBe(400);
    const secretsOnAuth = await call(server, 'POST', 'sys/auth/x', { type: 'kv' });
    expect(secretsOnAuth.status).toBe(400);
    expect(secretsOnAuth.body.errors[0]).toMatch(/auth method type "kv" is not supported/);
  });

  test('refuses mounts that would shadow sys/ or auth/', async () => {
    const sys = await call(server, 'POST', 'sys/mounts/sys', { type: 'kv' });
    expect(sys).toMatchObject({ status: 400, body: { errors: ['path is already in use at sys/'] } });
    const auth = await call(server, 'POST', 'sys/mounts/auth/x', { type: 'kv' });
    expect(auth).toMatchObject({ status: 400, body: { errors: ['path is already in use at auth/'] } });
  });

  test('keeps option values as strings', async () => {
    await call(server, 'POST', 'sys/mounts/kv', { type: 'kv', options: { version: 2 } });
    const read = await call(server, 'GET', 'sys/mounts/kv');
    expect(read.body.data.options).toEqual({ version: '2' });
    const bad = await call(server, 'POST', 'sys/mounts/kv2', { type: 'kv', options: { version: { nested: true } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatch(/"options\.version" must be a string/);
  });

  test('treats type kv-v2 as kv with version 2', async () => {
    await mount(server, 'kv', 'kv-v2');
    const read = await call(server, 'GET', 'sys/mounts/kv');
    expect(read.body.data).toMatchObject({ type: 'kv', options: { version: '2' } });
  });

  test('disabling a mount answers 204, drops its data, and frees the path', async () => {
    await mount(server, 'kv', 'kv', { version: '2' });
    await call(server, 'POST', 'kv/data/a', { data: { v: 1 } });
    const deleted = await call(server, 'DELETE', 'sys/mounts/kv');
    expect(deleted.status).toBe(204);
    expect(await call(server, 'GET', 'sys/mounts/kv')).toMatchObject({ status: 404, body: { errors: [] } });
    expect(await call(server, 'GET', 'kv/data/a')).toMatchObject({ status: 404, body: { errors: ['no handler for route "kv/data/a"'] } });
    await mount(server, 'kv', 'kv', { version: '2' });
    expect((await call(server, 'GET', 'kv/data/a')).status).toBe(404);
    expect((await call(server, 'DELETE', 'sys/mounts/never-mounted')).status).toBe(204);
  });

  test('routes a request to the longest mount prefix', async () => {
    await mount(server, 'team', 'kv', { version: '2' });
    await call(server, 'DELETE', 'sys/mounts/team');
    await mount(server, 'team/kv', 'kv', { version: '2' });
    await mount(server, 'teamkv', 'kv', { version: '2' });
    await call(server, 'POST', 'team/kv/data/x', { data: { where: 'team/kv' } });
    expect(server.inspectMount('team/kv')).toMatchObject({ secrets: { x: expect.anything() } });
    expect(server.inspectMount('teamkv')).toMatchObject({ secrets: {} });
  });

  test('enables auth methods under sys/auth with accessors and routes auth/<path>/ to them', async () => {
    await enableAuth(server, 'userpass', 'userpass');
    await enableAuth(server, 'team/userpass', 'userpass');
    const listed = await call(server, 'GET', 'sys/auth');
    expect(Object.keys(listed.body.data).sort()).toEqual(['team/userpass/', 'userpass/']);
    expect(listed.body.data['userpass/'].type).toBe('userpass');
    expect(listed.body.data['userpass/'].accessor).toMatch(/^auth_userpass_[0-9a-f]{8}$/);
    const read = await call(server, 'GET', 'sys/auth/team/userpass');
    expect(read.body.data.type).toBe('userpass');
    // Auth mounts are not secrets mounts.
    expect((await call(server, 'GET', 'sys/mounts')).body.data).toEqual({});
    const noAuth = await call(server, 'GET', 'auth/other/users/x');
    expect(noAuth).toMatchObject({ status: 404, body: { errors: ['no handler for route "auth/other/users/x"'] } });
    expect((await call(server, 'DELETE', 'sys/auth/team/userpass')).status).toBe(204);
    expect(Object.keys((await call(server, 'GET', 'sys/auth')).body.data)).toEqual(['userpass/']);
  });

  test('refuses the built-in token auth path', async () => {
    const result = await call(server, 'POST', 'sys/auth/token', { type: 'userpass' });
    expect(result).toMatchObject({ status: 400, body: { errors: ['path is already in use at auth/token/'] } });
  });

  test('answers an unknown sys path with 404 and a kv v1 mount with 400 on its data paths', async () => {
    expect(await call(server, 'GET', 'sys/nothing')).toMatchObject({ status: 404, body: { errors: ['unsupported path'] } });
    await mount(server, 'old', 'kv');
    const result = await call(server, 'GET', 'old/data/x');
    expect(result.status).toBe(400);
    expect(result.body.errors[0]).toMatch(/emulates KV version 2 only/);
  });

  test('calls the area unmount hook when a mount is disabled, and only then', () => {
    const unmount = jest.fn();
    const factory = jest.fn(() => ({ handle: () => ({ status: 204 }), unmount }));
    const registry = new MountRegistry(
      { kv: factory, cloud: factory, ldap: factory, userpass: factory },
      () => ({}) as ServerContext,
    );
    const entry = registry.enable({ path: 'team/ldap/', type: 'ldap', auth: false });
    expect(entry).toMatchObject({ path: 'team/ldap', type: 'ldap', auth: false, options: {}, description: '' });
    expect(factory).toHaveBeenCalledTimes(1);
    expect(registry.secretsMount('team/ldap')?.accessor).toBe(entry.accessor);
    expect(registry.byAccessor(entry.accessor)?.path).toBe('team/ldap');
    expect(registry.resolve('team/ldap/static-role/x', false)?.subpath).toBe('static-role/x');
    expect(unmount).not.toHaveBeenCalled();
    expect(registry.disable('team/ldap', false)).toBe(true);
    expect(unmount).toHaveBeenCalledTimes(1);
    expect(registry.secretsMount('team/ldap')).toBeUndefined();
    expect(registry.disable('team/ldap', false)).toBe(false);
  });
});
