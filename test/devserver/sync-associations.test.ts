import { AWS, CLOUD1_BODY, REPOHOST_BODY, START_MS, iso, startSyncFixture, type SyncFixture } from './sync-fixture';

let f: SyncFixture;
let accessor: string;
beforeEach(async () => {
  f = await startSyncFixture();
  accessor = await f.accessorOf('secret');
});
afterEach(async () => {
  await f.close();
});

async function createAws(extra: Record<string, unknown> = {}): Promise<void> {
  const reply = await f.request('POST', AWS, { ...CLOUD1_BODY, ...extra });
  expect(reply.status).toBe(200);
}

function set(destination: string, secretName: string, mount = 'secret') {
  return f.request('POST', `${destination}/associations/set`, { mount, secret_name: secretName });
}

function remove(destination: string, secretName: string, mount = 'secret') {
  return f.request('POST', `${destination}/associations/remove`, { mount, secret_name: secretName });
}

describe('associations/set', () => {
  test('syncs the secret: SYNCED entry keyed <accessor>/<secret>, value pushed under the rendered name', async () => {
    await createAws({ custom_tags: { team: 'a' } });
    await f.writeSecret('app/db', { user: 'u', password: 'p' });
    const reply = await set(AWS, 'app/db');
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      associated_secrets: {
        [`${accessor}/app/db`]: {
          accessor,
          secret_name: 'app/db',
          sync_status: 'SYNCED',
          updated_at: iso(START_MS),
        },
      },
      store_name: 'aws1',
      store_type: 'cloud1-sm',
    });
    expect(reply.body.data.associated_secrets[`${accessor}/app/db`].updated_at).toMatch(/\.\d+Z$/);
    expect(f.inspect().externalStores).toEqual({
      'cloud1-sm/aws1': {
        [`svc/${accessor}/app/db`]: { value: JSON.stringify({ user: 'u', password: 'p' }), tags: { team: 'a' } },
      },
    });
    const read = await f.request('GET', `${AWS}/associations`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(reply.body.data);
  });

  test('setting again refreshes the same association (new updated_at, one entry)', async () => {
    await createAws();
    await f.writeSecret('app', { a: '1' });
    await set(AWS, 'app');
    f.clock.advance(1500);
    const again = await set(AWS, 'app');
    expect(again.status).toBe(200);
    expect(Object.keys(again.body.data.associated_secrets)).toEqual([`${accessor}/app`]);
    expect(again.body.data.associated_secrets[`${accessor}/app`]).toMatchObject({
      sync_status: 'SYNCED',
      updated_at: iso(START_MS + 1500),
    });
  });

  test('secret-key granularity: one entry per sub-key with sub_key, each pushed on its own', async () => {
    const gh = 'sys/sync/destinations/repohost/gh';
    expect((await f.request('POST', gh, REPOHOST_BODY)).status).toBe(200);
    await f.writeSecret('my-app', { api_key: 'k1', token: 't1' });
    const reply = await set(gh, 'my-app');
    expect(reply.status).toBe(200);
    expect(reply.body.data.associated_secrets).toEqual({
      [`${accessor}/my-app/api_key`]: {
        accessor,
        secret_name: 'my-app',
        sub_key: 'api_key',
        sync_status: 'SYNCED',
        updated_at: iso(START_MS),
      },
      [`${accessor}/my-app/token`]: {
        accessor,
        secret_name: 'my-app',
        sub_key: 'token',
        sync_status: 'SYNCED',
        updated_at: iso(START_MS),
      },
    });
    const upper = accessor.toUpperCase();
    expect(f.inspect().externalStores['repohost/gh']).toEqual({
      [`SVC_${upper}_MY_APP_API_KEY`]: { value: 'k1', tags: {} },
      [`SVC_${upper}_MY_APP_TOKEN`]: { value: 't1', tags: {} },
    });
  });

  test('a custom secret_name_template names the external secret', async () => {
    await createAws({ secret_name_template: 'team/{{ .SecretPath | uppercase }}' });
    await f.writeSecret('app', { a: '1' });
    await set(AWS, 'app');
    expect(Object.keys(f.inspect().externalStores['cloud1-sm/aws1'])).toEqual(['team/APP']);
  });

  test('refuses a mount that is not KV version 2 with 400', async () => {
    await createAws();
    expect((await f.request('POST', 'sys/mounts/kv1', { type: 'kv', options: { version: '1' } })).status).toBe(204);
    for (const mount of ['kv1', 'nomount']) {
      const reply = await set(AWS, 'app', mount);
      expect(reply).toEqual({
        status: 400,
        body: {
          errors: [
            `destination "cloud1-sm/aws1": mount "${mount}" is not a KV version 2 secrets engine; only KV v2 secrets can be synced`,
          ],
        },
      });
    }
  });

  test('refuses a secret that does not exist with 400', async () => {
    await createAws();
    const reply = await set(AWS, 'missing');
    expect(reply).toEqual({
      status: 400,
      body: { errors: ['destination "cloud1-sm/aws1": secret "missing" does not exist in mount "secret"'] },
    });
  });

  test('refuses a missing mount or secret_name field with 400', async () => {
    await createAws();
    const reply = await f.request('POST', `${AWS}/associations/set`, { mount: 'secret' });
    expect(reply).toEqual({
      status: 400,
      body: { errors: ['destination "cloud1-sm/aws1": missing required field "secret_name" (a non-empty string)'] },
    });
  });

  test('a destination that does not exist is 404', async () => {
    await f.writeSecret('app', { a: '1' });
    const reply = await set(AWS, 'app');
    expect(reply).toEqual({ status: 404, body: { errors: ['destination "cloud1-sm/aws1" does not exist'] } });
    expect((await f.request('GET', `${AWS}/associations`)).status).toBe(404);
  });

  test('set and remove need POST; read needs GET', async () => {
    await createAws();
    expect((await f.request('GET', `${AWS}/associations/set`)).status).toBe(405);
    expect((await f.request('POST', `${AWS}/associations`, {})).status).toBe(405);
    expect((await f.request('GET', `${AWS}/associations/other`)).status).toBe(404);
  });
});

describe('associations/remove', () => {
  test('shows the entry UNSYNCED, deletes the external secret, then the association is gone', async () => {
    await createAws();
    await f.writeSecret('app', { a: '1' });
    await f.writeSecret('other', { b: '2' });
    await set(AWS, 'app');
    await set(AWS, 'other');
    f.clock.advance(10);
    const reply = await remove(AWS, 'app');
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      associated_secrets: {
        [`${accessor}/app`]: { accessor, secret_name: 'app', sync_status: 'UNSYNCED', updated_at: iso(START_MS + 10) },
        [`${accessor}/other`]: { accessor, secret_name: 'other', sync_status: 'SYNCED', updated_at: iso(START_MS) },
      },
      store_name: 'aws1',
      store_type: 'cloud1-sm',
    });
    expect(Object.keys(f.inspect().externalStores['cloud1-sm/aws1'])).toEqual([`svc/${accessor}/other`]);
    const read = await f.request('GET', `${AWS}/associations`);
    expect(Object.keys(read.body.data.associated_secrets)).toEqual([`${accessor}/other`]);
  });

  test('succeeds when the association is already gone', async () => {
    await createAws();
    const reply = await remove(AWS, 'never-associated');
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ associated_secrets: {}, store_name: 'aws1', store_type: 'cloud1-sm' });
  });

  test('succeeds when the external secret is already gone', async () => {
    await createAws();
    await f.writeSecret('app', { a: '1' });
    await set(AWS, 'app');
    // Deleting the KV secret removes the external copy but keeps the association.
    await f.deleteSecret('app');
    expect(f.inspect().externalStores['cloud1-sm/aws1']).toBeUndefined();
    const reply = await remove(AWS, 'app');
    expect(reply.status).toBe(200);
    expect(reply.body.data.associated_secrets[`${accessor}/app`]).toMatchObject({ sync_status: 'UNSYNCED' });
    const read = await f.request('GET', `${AWS}/associations`);
    expect(read.body.data.associated_secrets).toEqual({});
  });

  test('after removing the last association the destination can be deleted without purge', async () => {
    await createAws();
    await f.writeSecret('app', { a: '1' });
    await set(AWS, 'app');
    await remove(AWS, 'app');
    expect((await f.request('DELETE', AWS)).status).toBe(204);
  });
});

describe('changes of associated secrets', () => {
  test('a KV write re-pushes the secret and moves updated_at', async () => {
    await createAws();
    await f.writeSecret('app', { a: '1' });
    await set(AWS, 'app');
    f.clock.advance(2000);
    await f.writeSecret('app', { a: '2' });
    const read = await f.request('GET', `${AWS}/associations`);
    expect(read.body.data.associated_secrets[`${accessor}/app`]).toMatchObject({
      sync_status: 'SYNCED',
      updated_at: iso(START_MS + 2000),
    });
    expect(f.inspect().externalStores['cloud1-sm/aws1'][`svc/${accessor}/app`].value).toBe('{"a":"2"}');
  });

  test('secret-key granularity follows added and removed keys', async () => {
    const gh = 'sys/sync/destinations/repohost/gh';
    await f.request('POST', gh, { ...REPOHOST_BODY, secret_name_template: '{{ .SecretKey }}' });
    await f.writeSecret('app', { one: '1', two: '2' });
    await set(gh, 'app');
    await f.writeSecret('app', { two: '2b', three: '3' });
    const read = await f.request('GET', `${gh}/associations`);
    expect(Object.keys(read.body.data.associated_secrets).sort()).toEqual([`${accessor}/app/three`, `${accessor}/app/two`]);
    expect(f.inspect().externalStores['repohost/gh']).toEqual({
      three: { value: '3', tags: {} },
      two: { value: '2b', tags: {} },
    });
  });

  test('a KV delete turns the status into a SECRET_NOT_FOUND cause and removes the external copy', async () => {
    await createAws();
    await f.writeSecret('app', { a: '1' });
    await set(AWS, 'app');
    await f.deleteSecret('app');
    const read = await f.request('GET', `${AWS}/associations`);
    expect(read.body.data.associated_secrets[`${accessor}/app`].sync_status).toBe(
      'SECRET_NOT_FOUND: secret "app" does not exist in mount "secret"',
    );
    expect(f.inspect().externalStores['cloud1-sm/aws1']).toBeUndefined();
    await f.writeSecret('app', { a: '3' });
    const again = await f.request('GET', `${AWS}/associations`);
    expect(again.body.data.associated_secrets[`${accessor}/app`].sync_status).toBe('SYNCED');
  });

  test('changing the destination granularity re-pushes in the new form', async () => {
    await createAws();
    await f.writeSecret('app', { a: '1', b: '2' });
    await set(AWS, 'app');
    expect((await f.request('POST', AWS, { granularity: 'secret-key' })).status).toBe(200);
    expect(Object.keys(f.inspect().externalStores['cloud1-sm/aws1']).sort()).toEqual([
      `svc/${accessor}/app/a`,
      `svc/${accessor}/app/b`,
    ]);
    const read = await f.request('GET', `${AWS}/associations`);
    expect(Object.keys(read.body.data.associated_secrets).sort()).toEqual([`${accessor}/app/a`, `${accessor}/app/b`]);
  });
});

describe('remote failures', () => {
  test('with a failure set, a sync reports the cause as status; clearing it and setting again syncs', async () => {
    await createAws();
    await f.writeSecret('app', { a: '1' });
    f.inspect().setRemoteFailure('cloud1-sm', 'aws1', 'PERMISSION_DENIED: not authorized to create secrets');
    const failed = await set(AWS, 'app');
    expect(failed.status).toBe(200);
    expect(failed.body.data.associated_secrets[`${accessor}/app`].sync_status).toBe(
      'PERMISSION_DENIED: not authorized to create secrets',
    );
    expect(f.inspect().externalStores).toEqual({});
    const bySecret = await f.request('GET', 'sys/sync/associations/secret/app');
    expect(bySecret.body.data.associated_destinations['cloud1-sm/aws1'].sync_status).toBe(
      'PERMISSION_DENIED: not authorized to create secrets',
    );

    f.inspect().setRemoteFailure('cloud1-sm', 'aws1', null);
    const retried = await set(AWS, 'app');
    expect(retried.body.data.associated_secrets[`${accessor}/app`].sync_status).toBe('SYNCED');
  });

  test('a failed unsync keeps the association with the cause as status', async () => {
    await createAws();
    await f.writeSecret('app', { a: '1' });
    await set(AWS, 'app');
    f.inspect().setRemoteFailure('cloud1-sm', 'aws1', 'UNAVAILABLE: store unreachable');
    const reply = await remove(AWS, 'app');
    expect(reply.body.data.associated_secrets[`${accessor}/app`].sync_status).toBe('UNAVAILABLE: store unreachable');
    const read = await f.request('GET', `${AWS}/associations`);
    expect(Object.keys(read.body.data.associated_secrets)).toEqual([`${accessor}/app`]);
  });
});

describe('sys/sync/associations', () => {
  test('LIST is 404 when there are no associations', async () => {
    expect(await f.request('LIST', 'sys/sync/associations')).toEqual({ status: 404, body: { errors: [] } });
  });

  test('LIST shows each secret once, with mount/ and secret_path, and the totals', async () => {
    await createAws();
    await f.request('POST', 'sys/sync/destinations/repohost/gh', REPOHOST_BODY);
    await f.writeSecret('app', { a: '1' });
    await f.writeSecret('team/db', { b: '2' });
    await set(AWS, 'app');
    await set('sys/sync/destinations/repohost/gh', 'app');
    await set(AWS, 'team/db');
    const reply = await f.request('LIST', 'sys/sync/associations');
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      keys: ['secret/app', 'secret/team/db'],
      key_info: {
        'secret/app': [{ mount: 'secret/', secret_path: 'app' }],
        'secret/team/db': [{ mount: 'secret/', secret_path: 'team/db' }],
      },
      total_associations: 3,
      total_secrets: 2,
    });
  });

  test('GET by path and by query list the destinations of a secret', async () => {
    await createAws();
    await f.request('POST', 'sys/sync/destinations/repohost/gh', REPOHOST_BODY);
    await f.writeSecret('team/db', { b: '2' });
    await set(AWS, 'team/db');
    f.clock.advance(5);
    await set('sys/sync/destinations/repohost/gh', 'team/db');
    const expected = {
      associated_destinations: {
        'cloud1-sm/aws1': { type: 'cloud1-sm', name: 'aws1', sync_status: 'SYNCED', updated_at: iso(START_MS) },
        'repohost/gh': { type: 'repohost', name: 'gh', sync_status: 'SYNCED', updated_at: iso(START_MS + 5) },
      },
    };
    const byPath = await f.request('GET', 'sys/sync/associations/secret/team/db');
    expect(byPath.status).toBe(200);
    expect(byPath.body.data).toEqual(expected);
    const byQuery = await f.request('GET', 'sys/sync/associations/destinations?mount=secret&secret_name=team/db');
    expect(byQuery.status).toBe(200);
    expect(byQuery.body.data).toEqual(expected);
  });

  test('GET lists the destinations in the order they were created, not the order of association', async () => {
    const gh = 'sys/sync/destinations/repohost/gh';
    await createAws();
    await f.request('POST', gh, REPOHOST_BODY);
    await f.writeSecret('app', { a: '1' });
    await set(gh, 'app');
    await set(AWS, 'app');
    const reply = await f.request('GET', 'sys/sync/associations/secret/app');
    expect(Object.keys(reply.body.data.associated_destinations)).toEqual(['cloud1-sm/aws1', 'repohost/gh']);
  });

  test('GET and KV writes forget removed associations and those of deleted destinations', async () => {
    const gh = 'sys/sync/destinations/repohost/gh';
    await createAws();
    await f.request('POST', gh, REPOHOST_BODY);
    await f.writeSecret('app', { a: '1' });
    await set(AWS, 'app');
    await set(gh, 'app');
    await remove(AWS, 'app');
    const afterRemove = await f.request('GET', 'sys/sync/associations/secret/app');
    expect(Object.keys(afterRemove.body.data.associated_destinations)).toEqual(['repohost/gh']);

    expect((await f.request('DELETE', `${gh}?force_delete=true`)).status).toBe(204);
    await f.request('POST', gh, REPOHOST_BODY);
    await f.writeSecret('app', { a: '2' });
    expect((await f.request('GET', 'sys/sync/associations/secret/app')).body.data).toEqual({ associated_destinations: {} });
    expect(f.inspect().externalStores).toEqual({});
  });

  test('GET forgets the associations of a destination once its purge completes', async () => {
    await createAws();
    await f.writeSecret('app', { a: '1' });
    await set(AWS, 'app');
    expect((await f.request('DELETE', `${AWS}?purge=true`)).status).toBe(204);
    f.clock.advance(300);
    expect((await f.request('GET', 'sys/sync/associations/secret/app')).body.data).toEqual({ associated_destinations: {} });
    await createAws();
    await set(AWS, 'app');
    const again = await f.request('GET', 'sys/sync/associations/secret/app');
    expect(Object.keys(again.body.data.associated_destinations)).toEqual(['cloud1-sm/aws1']);
  });

  test('a secret without associations has no destinations', async () => {
    const reply = await f.request('GET', 'sys/sync/associations/secret/none');
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({ associated_destinations: {} });
  });

  test('the query form needs mount and secret_name', async () => {
    const reply = await f.request('GET', 'sys/sync/associations/destinations?mount=secret');
    expect(reply).toEqual({
      status: 400,
      body: { errors: ['associations/destinations: query parameters "mount" and "secret_name" are required'] },
    });
  });
});
