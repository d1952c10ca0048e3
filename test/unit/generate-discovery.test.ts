/**
 * The discovery facts of the resource model over canned answers of the service (the listing shapes of the
 * service document): what is found, what is reported as not expressed, hierarchical names, and the shape each
 * listing's answer must have.
 */
import { listAllNames } from '../../src/resources/discovery';
import { allResourceTypes, getResourceType, type ApiCall, type Attributes, type ListingCall, type ListingShape } from '../../src/resources';

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

/** The shape a type's discovery declares for the answer of `METHOD path` (its `find` run over canned answers). */
async function declaredShape(type: string, key: string, answers: Record<string, unknown>, parent?: Attributes): Promise<ListingShape> {
  const calls: ListingCall[] = [];
  const read = (call: ListingCall): Promise<unknown> => {
    calls.push(call);
    return Promise.resolve(answers[`${call.method} ${call.path}`]);
  };
  await getResourceType(type).discover!.find(read, parent);
  const call = calls.find((sent) => `${sent.method} ${sent.path}` === key);
  if (!call) throw new Error(`${type} sent no ${key}; sent ${calls.map((sent) => `${sent.method} ${sent.path}`).join(', ')}`);
  return call.answers;
}

describe('the shape of each listing answer (service-api.md), checked before discovery reads it', () => {
  const USERS = 'LIST auth/team/users';
  const users = () => declaredShape('userpass_user', USERS, {}, { path: 'team', type: 'userpass' });

  test.each<[string, unknown, string]>([
    ['no body', undefined, 'no body'],
    ['JSON null', null, 'a JSON null'],
    ['{}', {}, 'an object without "keys" where a list was expected'],
    ['data without keys', { data: {} }, 'an object without "keys" where a list was expected'],
    ['keys that is a string', { data: { keys: 'deployer' } }, '"keys" holding a string instead of an array'],
    ['keys with a number', { data: { keys: ['deployer', 7] } }, 'a list with entries that are not strings (a number)'],
    ['a string', 'ok', 'a string where a list was expected'],
  ])('a LIST answer that is not a list of names is refused, saying what is wrong: %s', async (_name, body, problem) => {
    expect((await users()).problem(body)).toBe(problem);
  });

  test('a real listing passes, an empty one too: data.keys, a bare array (directory engine), an envelope with no names', async () => {
    const shape = await users();
    expect(shape.expected).toContain('data.keys');
    for (const body of [{ data: { keys: ['a', 'b'] } }, ['a', 'b/'], { request_id: 'r', data: { keys: [] } }, [], { request_id: 'r', data: null }]) {
      expect(shape.problem(body)).toBeUndefined();
    }
    expect(await listAllNames(cannedRead({ 'LIST empty': { request_id: 'r', data: { keys: [] } } }), 'empty', true)).toEqual([]);
  });

  test('every listing of names declares that shape: roles, directory names, GitHub apps, destinations', async () => {
    const shapes = await Promise.all([
      declaredShape('cloud_secret_role', 'LIST cloud/roles', {}, { path: 'cloud', type: 'cloud' }),
      declaredShape('ldap_static_role', 'LIST dir/static-role', {}, { path: 'dir', type: 'ldap' }),
      declaredShape('ldap_library_set', 'LIST dir/library/pools', { 'LIST dir/library': ['pools/'] }, { path: 'dir', type: 'ldap' }),
      declaredShape('sync_github_app', 'LIST sys/sync/github-apps', {}),
      declaredShape('sync_destination_repohost', 'LIST sys/sync/destinations', {}),
      declaredShape('sync_destination_repohost', 'LIST sys/sync/destinations/repohost', {}),
    ]);
    for (const shape of shapes) expect(shape.problem({ data: {} })).toBe('an object without "keys" where a list was expected');
  });

  test.each<[string, unknown, string]>([
    ['entries without a type', { request_id: 'r', data: { 'team/': { accessor: 'a' } } }, 'a mount listing whose entries "team/" have no "type"'],
    ['keys that are not mount paths', { status: 'ok', service: 'x' }, 'an object with keys that are not mount paths ending in "/" ("status", "service") where a mount listing was expected'],
    ['a bare {}', {}, 'an empty object, neither the envelope nor any mount'],
    ['an array', [], 'a JSON array instead of an object'],
  ])('a mount listing (GET sys/auth, GET sys/mounts) is refused with %s', async (_name, body, problem) => {
    expect((await declaredShape('auth_mount', 'GET sys/auth', {})).problem(body)).toBe(problem);
    expect((await declaredShape('secrets_mount', 'GET sys/mounts', {})).problem(body)).toBe(problem);
  });

  test('a mount listing with its entries passes, and the envelope with no mount is an empty listing', async () => {
    const shape = await declaredShape('auth_mount', 'GET sys/auth', {});
    const listing = { 'token/': { type: 'token' }, 'team/': { type: 'userpass', accessor: 'a' } };
    expect(shape.problem({ ...listing, request_id: 'r', data: listing })).toBeUndefined();
    expect(shape.problem({ request_id: 'r', data: {} })).toBeUndefined();
  });

  test('the association listing: a listed secret without its {mount, secret_path} in key_info is refused', async () => {
    const shape = await declaredShape('sync_association', 'LIST sys/sync/associations', {});
    const keyInfo = { 'secret/app/db': [{ mount: 'secret/', secret_path: 'app/db' }] };
    expect(shape.problem({ data: { keys: ['secret/app/db'], key_info: keyInfo } })).toBeUndefined();
    expect(shape.problem({ data: { keys: ['secret/app/db'] } })).toBe('a listing without "key_info", where each associated secret gives its mount and path');
    expect(shape.problem({ data: { keys: ['secret/app/db', 'secret/other'], key_info: { ...keyInfo, 'secret/other': [{ mount: 'secret/' }] } } })).toBe(
      'a listing whose "key_info" gives no {mount, secret_path} for "secret/other"',
    );
    expect(shape.problem({ data: {} })).toBe('an object without "keys" where a list was expected');
  });

  test("the per-secret lookup: destinations without their type and name are refused, a secret's empty map passes", async () => {
    const listing = { data: { keys: ['secret/app/db'], key_info: { 'secret/app/db': [{ mount: 'secret/', secret_path: 'app/db' }] } } };
    const shape = await declaredShape('sync_association', 'GET sys/sync/associations/destinations', { 'LIST sys/sync/associations': listing });
    expect(shape.problem({ data: { associated_destinations: {} } })).toBeUndefined();
    expect(shape.problem({ data: { associated_destinations: { 'repohost/deploy': { sync_status: 'SYNCED' } } } })).toBe(
      '"associated_destinations" whose entries "repohost/deploy" have no "type" and "name"',
    );
    expect(shape.problem({ data: { destinations: [] } })).toBe('an object without "associated_destinations" where the association lookup was expected');
  });
});
