import { ManualClock } from '../../src/devserver/clock';
import { createKvArea, KvStore } from '../../src/devserver/kv';
import type { DevRequest, MountEntry, ServerContext } from '../../src/devserver/types';
import type { DevServer } from '../../src/devserver/server';
import { call, startTestServer } from './http';

describe('KV version 2 engine', () => {
  let server: DevServer;
  let clock: ManualClock;
  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2025, 5, 1, 12, 0, 0));
    server = await startTestServer({ clock });
  });
  afterEach(() => server.close());

  test('writes a secret and answers with the version metadata', async () => {
    const result = await call(server, 'POST', 'secret/data/app/db', { data: { user: 'u', password: 'p' } });
    expect(result.status).toBe(200);
    expect(result.body.data).toEqual({
      created_time: '2025-06-01T12:00:00.000Z',
      custom_metadata: null,
      deletion_time: '',
      destroyed: false,
      version: 1,
    });
    expect(result.body).toMatchObject({ lease_id: '', renewable: false, lease_duration: 0, wrap_info: null, auth: null });
  });

  test('reads the latest version, and older versions with ?version=N', async () => {
    await call(server, 'POST', 'secret/data/app/db', { data: { password: 'one' } });
    clock.advance(1000);
    await call(server, 'PUT', 'secret/data/app/db', { data: { password: 'two' } });
    const latest = await call(server, 'GET', 'secret/data/app/db');
    expect(latest.status).toBe(200);
    expect(latest.body.data).toEqual({
      data: { password: 'two' },
      metadata: { created_time: '2025-06-01T12:00:01.000Z', custom_metadata: null, deletion_time: '', destroyed: false, version: 2 },
    });
    const first = await call(server, 'GET', 'secret/data/app/db?version=1');
    expect(first.body.data.data).toEqual({ password: 'one' });
    expect(first.body.data.metadata.version).toBe(1);
    expect(await call(server, 'GET', 'secret/data/app/db?version=7')).toMatchObject({ status: 404, body: { errors: [] } });
    expect((await call(server, 'GET', 'secret/data/app/db?version=abc')).status).toBe(400);
  });

  test('answers 404 with no errors for an absent secret', async () => {
    expect(await call(server, 'GET', 'secret/data/missing')).toMatchObject({ status: 404, body: { errors: [] } });
  });

  test('refuses a write without data with 400', async () => {
    expect(await call(server, 'POST', 'secret/data/x', {})).toMatchObject({ status: 400, body: { errors: ['no data provided'] } });
    const notObject = await call(server, 'POST', 'secret/data/x', { data: 'text' });
    expect(notObject).toMatchObject({ status: 400, body: { errors: ['"data" must be a JSON object'] } });
  });

  test('honours check-and-set', async () => {
    const create = await call(server, 'POST', 'secret/data/cas', { data: { v: 1 }, options: { cas: 0 } });
    expect(create.status).toBe(200);
    const again = await call(server, 'POST', 'secret/data/cas', { data: { v: 2 }, options: { cas: 0 } });
    expect(again).toMatchObject({ status: 400, body: { errors: ['check-and-set parameter did not match the current version'] } });
    const update = await call(server, 'POST', 'secret/data/cas', { data: { v: 2 }, options: { cas: 1 } });
    expect(update.body.data.version).toBe(2);
  });

  test('DELETE soft-deletes the latest version: 204, then 404, older versions still readable', async () => {
    await call(server, 'POST', 'secret/data/gone', { data: { v: 1 } });
    await call(server, 'POST', 'secret/data/gone', { data: { v: 2 } });
    clock.advance(5000);
    const deleted = await call(server, 'DELETE', 'secret/data/gone');
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expect(await call(server, 'GET', 'secret/data/gone')).toMatchObject({ status: 404, body: { errors: [] } });
    expect((await call(server, 'GET', 'secret/data/gone?version=1')).body.data.data).toEqual({ v: 1 });
    const metadata = await call(server, 'GET', 'secret/metadata/gone');
    expect(metadata.body.data.versions['2']).toEqual({
      created_time: '2025-06-01T12:00:00.000Z',
      deletion_time: '2025-06-01T12:00:05.000Z',
      destroyed: false,
    });
    // Deleting an absent secret is fine too.
    expect((await call(server, 'DELETE', 'secret/data/never')).status).toBe(204);
  });

  test('undelete brings a version back and destroy removes its data for good', async () => {
    await call(server, 'POST', 'secret/data/u', { data: { v: 1 } });
    await call(server, 'DELETE', 'secret/data/u');
    expect((await call(server, 'POST', 'secret/undelete/u', { versions: [1] })).status).toBe(204);
    expect((await call(server, 'GET', 'secret/data/u')).body.data.data).toEqual({ v: 1 });
    expect((await call(server, 'POST', 'secret/destroy/u', { versions: [1] })).status).toBe(204);
    expect((await call(server, 'GET', 'secret/data/u')).status).toBe(404);
    expect((await call(server, 'GET', 'secret/metadata/u')).body.data.versions['1'].destroyed).toBe(true);
    expect(await call(server, 'POST', 'secret/delete/u', {})).toMatchObject({ status: 400, body: { errors: ['no version number provided'] } });
  });

  test('lists keys with folders ending in "/" and answers an empty list with 404', async () => {
    await call(server, 'POST', 'secret/data/a', { data: { v: 1 } });
    await call(server, 'POST', 'secret/data/dir/b', { data: { v: 1 } });
    await call(server, 'POST', 'secret/data/dir/sub/c', { data: { v: 1 } });
    const root = await call(server, 'LIST', 'secret/metadata');
    expect(root.status).toBe(200);
    expect(root.body.data.keys).toEqual(['a', 'dir/']);
    const withSlash = await call(server, 'LIST', 'secret/metadata/dir/');
    expect(withSlash.body.data.keys).toEqual(['b', 'sub/']);
    expect(await call(server, 'LIST', 'secret/metadata/nothing')).toMatchObject({ status: 404, body: { errors: [] } });
  });

  test('reads metadata and DELETE metadata removes every version', async () => {
    await call(server, 'POST', 'secret/data/m', { data: { v: 1 } });
    clock.advance(60_000);
    await call(server, 'POST', 'secret/data/m', { data: { v: 2 } });
    const metadata = await call(server, 'GET', 'secret/metadata/m');
    expect(metadata.status).toBe(200);
    expect(metadata.body.data).toMatchObject({
      current_version: 2,
      oldest_version: 1,
      created_time: '2025-06-01T12:00:00.000Z',
      updated_time: '2025-06-01T12:01:00.000Z',
      cas_required: false,
      max_versions: 0,
    });
    expect(Object.keys(metadata.body.data.versions)).toEqual(['1', '2']);
    expect((await call(server, 'DELETE', 'secret/metadata/m')).status).toBe(204);
    expect((await call(server, 'GET', 'secret/metadata/m')).status).toBe(404);
    expect((await call(server, 'GET', 'secret/data/m?version=1')).status).toBe(404);
    expect((await call(server, 'LIST', 'secret/metadata')).status).toBe(404);
  });

  test('keeps at most max_versions versions (10 by default, or as configured)', async () => {
    for (let i = 1; i <= 12; i += 1) await call(server, 'POST', 'secret/data/many', { data: { i } });
    let metadata = await call(server, 'GET', 'secret/metadata/many');
    expect(metadata.body.data.oldest_version).toBe(3);
    expect(Object.keys(metadata.body.data.versions)).toHaveLength(10);
    expect((await call(server, 'POST', 'secret/config', { max_versions: 3 })).status).toBe(204);
    expect((await call(server, 'GET', 'secret/config')).body.data).toEqual({
      max_versions: 3,
      cas_required: false,
      delete_version_after: '0s',
    });
    await call(server, 'POST', 'secret/data/many', { data: { i: 13 } });
    metadata = await call(server, 'GET', 'secret/metadata/many');
    expect(Object.keys(metadata.body.data.versions)).toEqual(['11', '12', '13']);
  });

  test('supports secret paths with slashes and URL-encoded characters', async () => {
    await call(server, 'POST', 'secret/data/team%2Fdeep/name with space', { data: { v: 'x' } });
    const read = await call(server, 'GET', 'secret/data/team/deep/name%20with%20space');
    expect(read.body.data.data).toEqual({ v: 'x' });
  });

  test('GET config answers the engine settings', async () => {
    const config = await call(server, 'GET', 'secret/config');
    expect(config.status).toBe(200);
    expect(config.body.data).toEqual({ max_versions: 0, cas_required: false, delete_version_after: '0s' });
  });
});

describe('KV access and events for secret sync', () => {
  const entry: MountEntry = { path: 'kv', type: 'kv', accessor: 'kv_00000000', description: '', options: { version: '2' }, auth: false };
  const ctx = { now: () => Date.UTC(2025, 0, 1) } as ServerContext;
  const request = (method: string, subpath: string, body: Record<string, unknown> = {}): DevRequest => ({
    method,
    path: `kv/${subpath}`,
    trailingSlash: false,
    query: new URLSearchParams(),
    headers: {},
    body,
    remoteAddress: '127.0.0.1',
  });

  test('read returns the latest live version, and events fire on every change of what read returns', async () => {
    const store = new KvStore();
    const events: string[] = [];
    store.onWrite((mount, name) => events.push(`write ${mount}:${name}`));
    store.onDelete((mount, name) => events.push(`delete ${mount}:${name}`));
    const area = createKvArea(store, entry, ctx);

    await area.handle(request('POST', 'data/app/db', { data: { password: 'one' } }), 'data/app/db');
    expect(store.read('kv', 'app/db')).toEqual({ password: 'one' });
    expect(store.read('kv/', '/app/db')).toEqual({ password: 'one' });
    await area.handle(request('POST', 'data/app/db', { data: { password: 'two' } }), 'data/app/db');
    expect(store.read('kv', 'app/db')).toEqual({ password: 'two' });

    await area.handle(request('DELETE', 'data/app/db'), 'data/app/db');
    expect(store.read('kv', 'app/db')).toBeUndefined();
    await area.handle(request('POST', 'undelete/app/db', { versions: [2] }), 'undelete/app/db');
    expect(store.read('kv', 'app/db')).toEqual({ password: 'two' });
    await area.handle(request('DELETE', 'metadata/app/db'), 'metadata/app/db');
    expect(store.read('kv', 'app/db')).toBeUndefined();

    expect(events).toEqual([
      'write kv:app/db',
      'write kv:app/db',
      'delete kv:app/db',
      'write kv:app/db',
      'delete kv:app/db',
    ]);
  });

  test('read returns a copy, and nothing for other mounts or after unmount', async () => {
    const store = new KvStore();
    const area = createKvArea(store, entry, ctx);
    await area.handle(request('POST', 'data/s', { data: { nested: { a: 1 } } }), 'data/s');
    const copy = store.read('kv', 's') as { nested: { a: number } };
    copy.nested.a = 99;
    expect(store.read('kv', 's')).toEqual({ nested: { a: 1 } });
    expect(store.read('other', 's')).toBeUndefined();
    area.unmount?.();
    expect(store.read('kv', 's')).toBeUndefined();
  });

  test('a kv mount without version 2 refuses data paths and stores nothing', () => {
    const store = new KvStore();
    const area = createKvArea(store, { ...entry, options: {} }, ctx);
    expect(() => area.handle(request('POST', 'data/s', { data: { a: 1 } }), 'data/s')).toThrow(/KV version 2 only/);
    expect(store.read('kv', 's')).toBeUndefined();
  });
});
