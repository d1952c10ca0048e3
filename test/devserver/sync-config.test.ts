import { AWS, CLOUD1_BODY, START_MS, iso, startSyncFixture, type SyncFixture } from './sync-fixture';

let f: SyncFixture;
let accessor: string;
beforeEach(async () => {
  f = await startSyncFixture();
  accessor = await f.accessorOf('secret');
});
afterEach(async () => {
  await f.close();
});

const patchConfig = (body: Record<string, unknown>) => f.request('PATCH', 'sys/sync/config', body);
const set = (secretName: string) =>
  f.request('POST', `${AWS}/associations/set`, { mount: 'secret', secret_name: secretName });
const statusOf = async (secretName: string): Promise<string | undefined> => {
  const read = await f.request('GET', `${AWS}/associations`);
  return read.body.data.associated_secrets[`${accessor}/${secretName}`]?.sync_status;
};

describe('sys/sync/config', () => {
  test('GET returns the defaults with mount_type system', async () => {
    const reply = await f.request('GET', 'sys/sync/config');
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ disabled: false, queue_capacity: 1000000 });
    expect(reply.body.mount_type).toBe('system');
    expect(reply.body).toMatchObject({ lease_id: '', renewable: false, lease_duration: 0, warnings: null });
  });

  test('PATCH merges the fields sent and answers with the whole config', async () => {
    const first = await patchConfig({ queue_capacity: 50 });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ disabled: false, queue_capacity: 50 });
    expect(first.body.mount_type).toBe('system');
    const second = await patchConfig({ disabled: 'true' });
    expect(second.body.data).toEqual({ disabled: true, queue_capacity: 50 });
    expect((await f.request('GET', 'sys/sync/config')).body.data).toEqual({ disabled: true, queue_capacity: 50 });
  });

  test('PATCH with null resets that field to its default', async () => {
    await patchConfig({ queue_capacity: 50, disabled: true });
    const reply = await patchConfig({ queue_capacity: null });
    expect(reply.body.data).toEqual({ disabled: true, queue_capacity: 1000000 });
  });

  test('PATCH refuses values of the wrong type with 400 and changes nothing', async () => {
    const badDisabled = await patchConfig({ disabled: 'yes', queue_capacity: 5 });
    expect(badDisabled).toEqual({
      status: 400,
      body: { errors: ['sync config: "disabled" must be a boolean, got "yes"'] },
    });
    const badCapacity = await patchConfig({ queue_capacity: 1.5 });
    expect(badCapacity).toEqual({
      status: 400,
      body: { errors: ['sync config: "queue_capacity" must be a positive integer, got 1.5'] },
    });
    expect((await patchConfig({ queue_capacity: 0 })).status).toBe(400);
    expect((await f.request('GET', 'sys/sync/config')).body.data).toEqual({ disabled: false, queue_capacity: 1000000 });
  });

  test('PATCH without the merge-patch content type is 415 (enforced by the core)', async () => {
    const { call } = await import('./http');
    const reply = await call(f.server, 'PATCH', 'sys/sync/config', undefined, {
      rawBody: '{"disabled":true}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(reply.status).toBe(415);
  });

  test('DELETE resets to the defaults', async () => {
    await patchConfig({ disabled: true, queue_capacity: 3 });
    expect((await f.request('DELETE', 'sys/sync/config')).status).toBe(204);
    expect((await f.request('GET', 'sys/sync/config')).body.data).toEqual({ disabled: false, queue_capacity: 1000000 });
  });

  test('POST is 405 unsupported operation', async () => {
    expect(await f.request('POST', 'sys/sync/config', { disabled: true })).toEqual({
      status: 405,
      body: { errors: ['unsupported operation'] },
    });
  });
});

describe('syncing while disabled', () => {
  beforeEach(async () => {
    expect((await f.request('POST', AWS, CLOUD1_BODY)).status).toBe(200);
    await f.writeSecret('app', { a: '1' });
    await f.writeSecret('db', { b: '2' });
  });

  test('set queues as PENDING without pushing; re-enabling processes the queue to SYNCED', async () => {
    await patchConfig({ disabled: true });
    const reply = await set('app');
    expect(reply.status).toBe(200);
    expect(reply.body.data.associated_secrets[`${accessor}/app`]).toEqual({
      accessor,
      secret_name: 'app',
      sync_status: 'PENDING',
      updated_at: iso(START_MS),
    });
    expect(f.inspect().externalStores).toEqual({});
    expect(f.inspect().config.pendingOperations).toBe(1);

    f.clock.advance(100);
    const enabled = await patchConfig({ disabled: false });
    expect(enabled.body.data).toEqual({ disabled: false, queue_capacity: 1000000 });
    expect(await statusOf('app')).toBe('SYNCED');
    const read = await f.request('GET', `${AWS}/associations`);
    expect(read.body.data.associated_secrets[`${accessor}/app`].updated_at).toBe(iso(START_MS + 100));
    expect(Object.keys(f.inspect().externalStores['cloud1-sm/aws1'])).toEqual([`svc/${accessor}/app`]);
    expect(f.inspect().config.pendingOperations).toBe(0);
  });

  test('a secret change while disabled is PENDING and pushed on re-enable', async () => {
    await set('app');
    await patchConfig({ disabled: true });
    await f.writeSecret('app', { a: 'changed' });
    expect(await statusOf('app')).toBe('PENDING');
    expect(f.inspect().externalStores['cloud1-sm/aws1'][`svc/${accessor}/app`].value).toBe('{"a":"1"}');
    await patchConfig({ disabled: false });
    expect(await statusOf('app')).toBe('SYNCED');
    expect(f.inspect().externalStores['cloud1-sm/aws1'][`svc/${accessor}/app`].value).toBe('{"a":"changed"}');
  });

  test('remove while disabled shows PENDING and unsyncs on re-enable', async () => {
    await set('app');
    await patchConfig({ disabled: true });
    const reply = await f.request('POST', `${AWS}/associations/remove`, { mount: 'secret', secret_name: 'app' });
    expect(reply.status).toBe(200);
    expect(reply.body.data.associated_secrets[`${accessor}/app`].sync_status).toBe('PENDING');
    expect(Object.keys(f.inspect().externalStores['cloud1-sm/aws1'])).toHaveLength(1);
    await f.request('DELETE', 'sys/sync/config'); // reset re-enables syncing too
    const read = await f.request('GET', `${AWS}/associations`);
    expect(read.body.data.associated_secrets).toEqual({});
    expect(f.inspect().externalStores).toEqual({});
  });

  test('beyond queue_capacity a new operation is refused with 400; re-queuing the same one is not', async () => {
    await patchConfig({ disabled: true, queue_capacity: 1 });
    expect((await set('app')).status).toBe(200);
    expect((await set('app')).status).toBe(200);
    const full = await set('db');
    expect(full).toEqual({
      status: 400,
      body: {
        errors: [
          'sync queue is full: 1 operations are pending and queue_capacity is 1; re-enable syncing or raise queue_capacity',
        ],
      },
    });
    expect(await statusOf('db')).toBeUndefined();
    await patchConfig({ queue_capacity: 2 });
    expect((await set('db')).status).toBe(200);
    await patchConfig({ disabled: false });
    expect(await statusOf('app')).toBe('SYNCED');
    expect(await statusOf('db')).toBe('SYNCED');
  });

  test('a secret change that does not fit in the queue shows a QUEUE_FULL cause', async () => {
    await set('app');
    await set('db');
    await patchConfig({ disabled: true, queue_capacity: 1 });
    await f.writeSecret('app', { a: '2' });
    await f.writeSecret('db', { b: '3' });
    expect(await statusOf('app')).toBe('PENDING');
    expect(await statusOf('db')).toBe(
      'QUEUE_FULL: sync queue is full: 1 operations are pending and queue_capacity is 1; re-enable syncing or raise queue_capacity',
    );
  });
});
