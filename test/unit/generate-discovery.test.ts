/**
 * The discovery facts of the resource model over canned answers of the service (the listing shapes of the
 * service document): what is found, what is reported as not expressed, and hierarchical names.
 */
import { listAllNames } from '../../src/resources/discovery';
import { allResourceTypes, getResourceType, type ApiCall } from '../../src/resources';

/** A read function answering from a table keyed `METHOD path`; anything else is a 404 (undefined). */
function cannedRead(answers: Record<string, unknown>, seen: string[] = []) {
  return (call: ApiCall): Promise<unknown> => {
    const key = `${call.method} ${call.path}`;
    seen.push(key);
    return Promise.resolve(answers[key]);
  };
}

test('secrets mounts: managed types found, built-in mounts skipped, unknown types reported', async () => {
  const read = cannedRead({
    'GET sys/mounts': {
      data: {
        'sys/': { type: 'system' },
        'cubbyhole/': { type: 'cubbyhole' },
        'secret/': { type: 'kv', options: { version: '2' } },
        'team/ldap/': { type: 'ldap' },
        'pki/': { type: 'pki' },
      },
    },
  });
  const result = await getResourceType('secrets_mount').discover!.find(read, undefined);
  expect(result.found).toEqual([{ path: 'secret' }, { path: 'team/ldap' }]);
  expect(result.unexpressed).toEqual(['sys/mounts/pki (mount type "pki" is not one secretform manages)']);
});

test('hierarchical names: every folder ending in "/" is listed again, names come back full and sorted', async () => {
  const seen: string[] = [];
  const read = cannedRead(
    {
      'LIST ldap/library': ['pools/', 'solo'],
      'LIST ldap/library/pools': { data: { keys: ['batch', 'nested/'] } },
      'LIST ldap/library/pools/nested': ['deep'],
    },
    seen,
  );
  expect(await listAllNames(read, 'ldap/library', true)).toEqual(['pools/batch', 'pools/nested/deep', 'solo']);
  expect(seen.sort()).toEqual(['LIST ldap/library', 'LIST ldap/library/pools', 'LIST ldap/library/pools/nested']);
});

test('library sets are found in directory mounts only, with the mount in their identity', async () => {
  const spec = getResourceType('ldap_library_set').discover!;
  const read = cannedRead({ 'LIST dir/library': ['a/', 'b'], 'LIST dir/library/a': ['c'] });
  expect(spec.within).toBe('secrets_mount');
  expect((await spec.find(read, { path: 'dir', type: 'ldap' })).found).toEqual([{ mount: 'dir', name: 'a/c' }, { mount: 'dir', name: 'b' }]);
  expect((await spec.find(read, { path: 'dir', type: 'kv' })).found).toEqual([]);
});

test('destinations: an unknown destination type is reported with each of its destinations', async () => {
  const read = cannedRead({
    'LIST sys/sync/destinations': { data: { keys: ['cloud1-sm/', 'mystery-cloud/'] } },
    'LIST sys/sync/destinations/cloud1-sm': { data: { keys: ['payments'] } },
    'LIST sys/sync/destinations/mystery-cloud': { data: { keys: ['x'] } },
  });
  const result = await getResourceType('sync_destination_cloud1_sm').discover!.find(read, undefined);
  expect(result.found).toEqual([{ name: 'payments' }]);
  expect(result.unexpressed).toEqual(['sys/sync/destinations/mystery-cloud/x (destination type "mystery-cloud" is not one secretform manages)']);
});

test('destinations: the secrets held are those the read shows (masked), unknown connection keys are reported', () => {
  const spec = getResourceType('sync_destination_cloud1_sm').discover!;
  const data = { connection_details: { access_key_id: '*****', region: 'eu-west-1', endpoint_url: 'https://x' }, options: { granularity_level: 'secret-path' } };
  expect(spec.secretsHeld!(data)).toEqual(['access_key_id']);
  expect(spec.unmodelledKeys!(data, { name: 'p' })).toEqual(['connection_details.endpoint_url']);
});

test('associations: each associated secret is looked up and each of its destinations is one association', async () => {
  const read = (call: ApiCall): Promise<unknown> => {
    if (call.method === 'LIST' && call.path === 'sys/sync/associations') {
      return Promise.resolve({ data: { keys: ['secret/app/db'], key_info: { 'secret/app/db': [{ mount: 'secret/', secret_path: 'app/db' }] } } });
    }
    if (call.path === 'sys/sync/associations/destinations' && call.query?.mount === 'secret' && call.query?.secret_name === 'app/db') {
      return Promise.resolve({
        data: {
          associated_destinations: {
            'cloud1-sm/payments': { type: 'cloud1-sm', name: 'payments', sync_status: 'SYNCED' },
            'mystery/x': { type: 'mystery', name: 'x', sync_status: 'SYNCED' },
          },
        },
      });
    }
    return Promise.resolve(undefined);
  };
  const result = await getResourceType('sync_association').discover!.find(read, undefined);
  expect(result.found).toEqual([{ destination_type: 'cloud1-sm', destination_name: 'payments', mount: 'secret', secret_name: 'app/db' }]);
  expect(result.unexpressed).toEqual(['sys/sync/destinations/mystery/x/associations/secret/app/db (destination type "mystery" is not one secretform manages)']);
});

test('every resource type declares how generate finds it', () => {
  expect(allResourceTypes().filter((resourceType) => !resourceType.discover).map((resourceType) => resourceType.type)).toEqual([]);
});
