/** The diff of one resource (desired, last applied, live) and where its secrets stand. */
import { createHash } from 'node:crypto';
import type { DesiredResource } from '../../src/engine/setup/desired';
import { diffResource, type ResourceDiffInput } from '../../src/engine/plan/resource-diff';
import { compareSecrets } from '../../src/engine/plan/secret-comparison';
import { FingerprintKey } from '../../src/engine/state/fingerprint';
import type { ResourceState } from '../../src/engine/state/state-file';
import { getResourceType } from '../../src/resources/registry';
import { SecretValue } from '../../src/secret-value';

const KEY = FingerprintKey.keyed(Buffer.from('resource-diff-test-key'), 'test');
const OTHER_KEY = FingerprintKey.keyed(Buffer.from('another-key'), 'test');

function desired(type: string, spec: Record<string, unknown>, secrets: string[] = []): DesiredResource {
  const resourceType = getResourceType(type);
  return {
    address: 'prod/r',
    type,
    id: resourceType.id(resourceType.normaliseDesired(spec)),
    spec,
    secrets: Object.fromEntries(secrets.map((field) => [field, SecretValue.fromEnv(field.toUpperCase())])),
    dependsOn: [],
    digest: 'sha256:x',
  };
}

function state(resource: DesiredResource, attributes: Record<string, unknown>, secrets: Record<string, string> = {}): ResourceState {
  return { type: resource.type, id: resource.id, attributes, secrets, dependencies: [], applied_at: '2026-01-01T00:00:00Z' };
}

function diff(input: Partial<ResourceDiffInput> & Pick<ResourceDiffInput, 'live'>, resource?: DesiredResource) {
  const type = resource?.type ?? input.stateEntry!.type;
  return diffResource({
    address: 'prod/r',
    resourceType: getResourceType(type),
    desired: resource,
    secrets: {},
    fingerprintKey: KEY,
    refreshOnly: false,
    ...input,
  });
}

const ROLE = { mount: 'ldap', name: 'svc', username: 'svc', rotation_period: '1h' };
const ROLE_LIVE = { mount: 'ldap', name: 'svc', username: 'svc', rotation_period: 3600 };

describe('diffResource', () => {
  test('an object in code only is created, writing every secret', () => {
    const user = desired('userpass_user', { mount: 'userpass', username: 'alice', token_ttl: '1h' }, ['password']);
    const { plan } = diff({ live: { attributes: null, data: null }, secrets: { password: 'pw' } }, user);
    expect(plan.change).toMatchObject({ action: 'create', reasons: [], before: null, sensitive: ['password'] });
    expect(plan.change.after).toEqual({ mount: 'userpass', username: 'alice', token_ttl: 3600 });
    expect(plan.writeSecrets).toEqual(['password']);
    expect(plan.drift).toBeUndefined();
  });

  test('an applied object deleted outside secretform is created again, and that is drift', () => {
    const role = desired('ldap_static_role', ROLE);
    const { plan } = diff({ live: { attributes: null, data: null }, stateEntry: state(role, ROLE_LIVE) }, role);
    expect(plan.change).toMatchObject({ action: 'create', reasons: [{ kind: 'deleted_outside' }] });
    expect(plan.drift).toMatchObject({ kind: 'deleted', before: ROLE_LIVE, after: null });
  });

  test('an identity changed in code replaces the object state holds, deleting it by its recorded identity', () => {
    const role = desired('ldap_static_role', { ...ROLE, name: 'svc2' });
    const old = { ...state(role, ROLE_LIVE), id: 'ldap/static-role/svc' };
    const { plan } = diff({ live: { attributes: null, data: null }, stateEntry: old }, role);
    expect(plan.change).toMatchObject({
      action: 'replace',
      reasons: [{ kind: 'identity_changed', from: 'ldap/static-role/svc', to: 'ldap/static-role/svc2' }],
      replacePaths: [['name']],
    });
    expect(plan.deleteIdentity).toEqual(ROLE_LIVE);
  });

  test('a changed immutable field replaces the object', () => {
    const role = desired('ldap_static_role', { ...ROLE, username: 'other' });
    const { plan } = diff({ live: { attributes: ROLE_LIVE, data: null }, stateEntry: state(role, ROLE_LIVE) }, role);
    expect(plan.change).toMatchObject({ action: 'replace', reasons: [{ kind: 'immutable_fields', fields: ['username'] }], replacePaths: [['username']] });
    expect(plan.writeCall).toBe(true);
  });

  test('a field changed outside secretform is drift, and the update sets it back', () => {
    const role = desired('ldap_static_role', ROLE);
    const live = { ...ROLE_LIVE, rotation_period: 60 };
    const { plan } = diff({ live: { attributes: live, data: null }, stateEntry: state(role, ROLE_LIVE) }, role);
    expect(plan.change).toMatchObject({ action: 'update', reasons: [{ kind: 'changed_outside' }] });
    expect(plan.change.fieldChanges).toEqual([{ field: 'rotation_period', from: 60, to: 3600, forcesReplacement: false }]);
    expect(plan.drift).toMatchObject({ kind: 'changed', fields: [{ field: 'rotation_period', applied: 3600, live: 60 }] });
  });

  test('an object as the code says is a no-op; server defaults of fields never set are not changes', () => {
    const role = desired('ldap_static_role', ROLE);
    const { plan } = diff({ live: { attributes: { ...ROLE_LIVE, dn: 'cn=svc' }, data: null }, stateEntry: state(role, ROLE_LIVE) }, role);
    expect(plan.change).toMatchObject({ action: 'no-op', reasons: [], fieldChanges: [] });
    expect(plan.change.after).toBe(plan.change.before);
    expect(plan.writeCall).toBe(false);
  });

  test('an object on the service but not in state is adopted by an update', () => {
    const role = desired('ldap_static_role', ROLE);
    const { plan } = diff({ live: { attributes: ROLE_LIVE, data: null } }, role);
    expect(plan.change).toMatchObject({ action: 'update', reasons: [{ kind: 'adopt' }], fieldChanges: [] });
  });

  test("a type's health hook turns an unhealthy live object into drift of its kind and a write that repairs it", () => {
    const association = desired('sync_association', { destination_type: 'cloud1-sm', destination_name: 'd', mount: 'secret', secret_name: 'db' });
    const live = { destination_type: 'cloud1-sm', destination_name: 'd', mount: 'secret', secret_name: 'db', sync_status: 'PENDING' };
    const { plan } = diff({ live: { attributes: live, data: null }, stateEntry: state(association, live) }, association);
    expect(plan.drift).toMatchObject({ kind: 'out_of_sync', detail: 'PENDING', health: { label: 'sync status', headline: 'is out of sync on the service' } });
    expect(plan.change).toMatchObject({ action: 'update', reasons: [{ kind: 'unhealthy', label: 'sync status', status: 'PENDING' }] });
    expect(plan.writeCall).toBe(true);
    const synced = diff({ live: { attributes: { ...live, sync_status: 'SYNCED' }, data: null }, stateEntry: state(association, live) }, association);
    expect(synced.plan.change.action).toBe('no-op');
    expect(synced.plan.drift).toBeUndefined();
  });

  test('a write that replaces the whole object carries every secret, changed or not', async () => {
    const spec = { name: 'kv', key_vault_uri: 'https://v', client_id: 'c', tenant_id: 't' };
    const destination = desired('sync_destination_cloud2_kv', { ...spec, client_id: 'c2' }, ['client_secret']);
    const recorded = { client_secret: await KEY.fingerprint('s') };
    const { plan } = diff({ live: { attributes: spec, data: null }, stateEntry: state(destination, spec, recorded), secrets: { client_secret: 's' } }, destination);
    expect(plan.change.action).toBe('update');
    expect(plan.writeSecrets).toEqual(['client_secret']);
  });

  test('a secret with an endpoint of its own is written by that call alone', async () => {
    const user = desired('userpass_user', { mount: 'userpass', username: 'alice' }, ['password']);
    const live = { mount: 'userpass', username: 'alice' };
    const recorded = { password: await KEY.fingerprint('old') };
    const { plan } = diff({ live: { attributes: live, data: null }, stateEntry: state(user, live, recorded), secrets: { password: 'new' } }, user);
    expect(plan.change).toMatchObject({ action: 'update', sensitive: ['password'] });
    expect(plan.writeSecrets).toEqual(['password']);
    expect(plan.writeCall).toBe(false);
  });

  test('refresh-only keeps every object as it is but still reports drift', () => {
    const role = desired('ldap_static_role', ROLE);
    const live = { ...ROLE_LIVE, rotation_period: 60 };
    const { plan } = diff({ live: { attributes: live, data: null }, stateEntry: state(role, ROLE_LIVE), refreshOnly: true }, role);
    expect(plan.change).toMatchObject({ action: 'no-op', reasons: [], fieldChanges: [], sensitive: [] });
    expect(plan.writeCall).toBe(false);
    expect(plan.drift?.kind).toBe('changed');
  });

  test('an object in state only is deleted; already gone, it is forgotten', () => {
    const role = desired('ldap_static_role', ROLE);
    const entry = state(role, ROLE_LIVE);
    expect(diff({ live: { attributes: ROLE_LIVE, data: null }, stateEntry: entry }).plan.change).toMatchObject({ action: 'delete', after: null });
    const gone = diff({ live: { attributes: null, data: null }, stateEntry: entry }).plan;
    expect(gone.change).toMatchObject({ action: 'no-op', reasons: [{ kind: 'forget_deleted' }] });
    expect(gone.drift?.kind).toBe('deleted');
  });
});

describe('compareSecrets', () => {
  const backend = getResourceType('ldap_secret_backend');
  const app = getResourceType('sync_github_app');
  const compare = (overrides: Partial<Parameters<typeof compareSecrets>[0]>) =>
    compareSecrets({ address: 'prod/r', resourceType: backend, desired: { bindpass: 'pw' }, recorded: undefined, creating: false, liveData: null, fingerprintKey: KEY, ...overrides });

  test('creating writes every desired secret', () => {
    expect(compare({ creating: true })).toEqual({ statuses: [{ field: 'bindpass', status: 'changed' }], changed: ['bindpass'], warnings: [], handedBack: [] });
  });

  test('a root credential the service rotated is managed by the service while its value in code is unchanged (or unknown)', async () => {
    const rotatedByService = { bindpass: '2026-01-01T00:00:00.000Z' };
    for (const recorded of <Record<string, string>[]>[{ bindpass: await KEY.fingerprint('pw') }, {}, { bindpass: await OTHER_KEY.fingerprint('pw') }]) {
      expect(compare({ recorded, rotatedByService })).toEqual({
        statuses: [{ field: 'bindpass', status: 'managed_by_service', rotatedAt: '2026-01-01T00:00:00.000Z' }], changed: [], warnings: [], handedBack: [],
      });
    }
  });

  test('a root credential the service rotated whose value in code changed is written on purpose (handed back)', async () => {
    const result = compare({ recorded: { bindpass: await KEY.fingerprint('old') }, rotatedByService: { bindpass: '2026-01-01T00:00:00.000Z' } });
    expect(result).toEqual({ statuses: [{ field: 'bindpass', status: 'changed' }], changed: ['bindpass'], warnings: [], handedBack: ['bindpass'] });
  });

  test('unchanged since the last apply: not written, and not verifiable on the service', async () => {
    expect(compare({ recorded: { bindpass: await KEY.fingerprint('pw') } })).toMatchObject({ statuses: [{ field: 'bindpass', status: 'unverifiable' }], changed: [] });
  });

  test('changed since the last apply, or never recorded: written', async () => {
    expect(compare({ recorded: { bindpass: await KEY.fingerprint('old') } }).changed).toEqual(['bindpass']);
    expect(compare({ recorded: {} }).changed).toEqual(['bindpass']);
  });

  test('a root credential fingerprinted with another key is not sent on a guess, and the plan says why', async () => {
    const result = compare({ recorded: { bindpass: await OTHER_KEY.fingerprint('pw') } });
    expect(result.changed).toEqual([]);
    expect(result.statuses).toEqual([{ field: 'bindpass', status: 'unverifiable' }]);
    expect(result.warnings[0]).toContain('as a root credential it is not sent');
    const key = compare({ desired: { client_tls_key: 'k' }, recorded: { client_tls_key: await OTHER_KEY.fingerprint('k') } });
    expect(key.changed).toEqual(['client_tls_key']);
  });

  test("a type's verifySecret hook confirms a secret on the service, or shows it changed there", async () => {
    const fingerprint = createHash('sha256').update('key-pem').digest('hex');
    const recorded = { private_key: await KEY.fingerprint('key-pem') };
    const base = { resourceType: app, desired: { private_key: 'key-pem' }, recorded };
    expect(compare({ ...base, liveData: { fingerprint } }).statuses).toEqual([{ field: 'private_key', status: 'in_sync' }]);
    const other = compare({ ...base, liveData: { fingerprint: createHash('sha256').update('rotated').digest('hex') } });
    expect(other).toMatchObject({ statuses: [{ field: 'private_key', status: 'drifted' }], changed: ['private_key'] });
    expect(compare({ ...base, liveData: {} }).statuses).toEqual([{ field: 'private_key', status: 'unverifiable' }]);
  });
});
