import { allResourceTypes, getResourceType, ImportIdError, parseDuration, RESOURCE_TYPES, resourceTypeOfConstruct } from '../../src/resources';
import fc from 'fast-check';
import { desiredId } from '../../src/resources/define';
import { field } from '../../src/resources/field';
import { fieldIndex } from '../../src/resources/field-index';
import type { Attributes, ResourceType } from '../../src/resources';

const type = (name: string): ResourceType => getResourceType(name);

describe('registry', () => {
  test('holds one definition per resource type of interface.md, each with its construct name', () => {
    expect(allResourceTypes().map((resourceType) => [resourceType.type, resourceType.construct])).toEqual([
      ['secrets_mount', 'SecretsMount'],
      ['auth_mount', 'AuthMount'],
      ['cloud_secret_backend', 'CloudSecretBackend'],
      ['cloud_secret_role', 'CloudSecretRole'],
      ['userpass_user', 'UserpassUser'],
      ['sync_config', 'SyncConfig'],
      ['sync_github_app', 'SyncGithubApp'],
      ['sync_destination_cloud1_sm', 'SyncCloud1SmDestination'],
      ['sync_destination_cloud2_kv', 'SyncCloud2KvDestination'],
      ['sync_destination_cloud3_sm', 'SyncCloud3SmDestination'],
      ['sync_destination_repohost', 'SyncRepohostDestination'],
      ['sync_destination_webhost_project', 'SyncWebhostProjectDestination'],
      ['sync_association', 'SyncAssociation'],
      ['ldap_secret_backend', 'LdapSecretBackend'],
      ['ldap_static_role', 'LdapStaticRole'],
      ['ldap_dynamic_role', 'LdapDynamicRole'],
      ['ldap_library_set', 'LdapLibrarySet'],
    ]);
    expect(resourceTypeOfConstruct('LdapStaticRole')).toBe(type('ldap_static_role'));
    expect(() => getResourceType('vault_mount')).toThrow('unknown resource type "vault_mount"; known types: secrets_mount, auth_mount');
  });

});

describe('secrets', () => {
  test('a sensitive field never enters a canonical spec or a write body, except as a resolved secret passed in', () => {
    for (const resourceType of RESOURCE_TYPES) {
      for (const secret of resourceType.fields.filter((field) => field.sensitive)) {
        const canonical = resourceType.normaliseDesired({ [secret.api]: 'plain-secret' });
        expect(canonical[secret.api]).toBeUndefined();
        expect(resourceType.writeBody(canonical, { create: true })[secret.api]).toBeUndefined();
        if (resourceType.writeSemantics !== 'create-only') {
          expect(resourceType.writeBody(canonical, { create: true, secrets: { [secret.api]: 'resolved' } })[secret.api]).toBe('resolved');
        }
      }
    }
  });
});

describe('ids and import ids', () => {
  const cases: Array<[string, Attributes, string]> = [
    ['secrets_mount', { path: 'team/kv' }, 'sys/mounts/team/kv'],
    ['auth_mount', { path: 'userpass' }, 'sys/auth/userpass'],
    ['cloud_secret_backend', { path: 'cloud' }, 'cloud/config'],
    ['cloud_secret_role', { mount: 'cloud', name: 'deployer' }, 'cloud/roles/deployer'],
    ['userpass_user', { mount: 'userpass', username: 'alice' }, 'auth/userpass/users/alice'],
    ['sync_config', {}, 'sys/sync/config'],
    ['sync_github_app', { name: 'ci' }, 'sys/sync/github-apps/ci'],
    ['sync_destination_cloud1_sm', { name: 'c1' }, 'sys/sync/destinations/cloud1-sm/c1'],
    ['sync_destination_cloud2_kv', { name: 'c2' }, 'sys/sync/destinations/cloud2-kv/c2'],
    ['sync_destination_cloud3_sm', { name: 'c3' }, 'sys/sync/destinations/cloud3-sm/c3'],
    ['sync_destination_repohost', { name: 'gh' }, 'sys/sync/destinations/repohost/gh'],
    ['sync_destination_webhost_project', { name: 'web' }, 'sys/sync/destinations/webhost-project/web'],
    ['sync_association', { destination_type: 'repohost', destination_name: 'gh', mount: 'secret', secret_name: 'app/db' },
      'sys/sync/destinations/repohost/gh/associations/secret/app/db'],
    ['ldap_secret_backend', { path: 'ldap' }, 'ldap/config'],
    ['ldap_static_role', { mount: 'ldap', name: 'team/svc' }, 'ldap/static-role/team/svc'],
    ['ldap_dynamic_role', { mount: 'ldap', name: 'temp' }, 'ldap/role/temp'],
    ['ldap_library_set', { mount: 'ldap', name: 'pool' }, 'ldap/library/pool'],
  ];

  test.each(cases)('%s: id and import id round-trip every identity field', (name, identity, id) => {
    expect(type(name).id(identity)).toBe(id);
    expect(type(name).parseImportId(id)).toEqual(identity);
  });

  test('desiredId is id(normaliseDesired(spec)) of any spec, its outcome or its error alike', () => {
    const outcome = (compute: () => string) => {
      try {
        return compute();
      } catch (error) {
        return `threw: ${(error as Error).message}`;
      }
    };
    const value = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('Team/SVC', 'a/b', ''), fc.integer(), fc.constant(null), fc.jsonValue({ maxDepth: 1 }));
    for (const resourceType of RESOURCE_TYPES) {
      const spec = fc.record(Object.fromEntries(resourceType.fields.map((known) => [known.api, value])), { requiredKeys: [] });
      fc.assert(fc.property(spec, (drawn) => {
        expect(outcome(() => desiredId(resourceType, drawn))).toBe(outcome(() => resourceType.id(resourceType.normaliseDesired(drawn))));
      }), { seed: 20261126, numRuns: 60 });
    }
  });

  test('names the server lower-cases are lower-cased in the id', () => {
    expect(type('ldap_static_role').id({ mount: 'ldap', name: 'SVC' })).toBe('ldap/static-role/svc');
    expect(type('userpass_user').parseImportId('auth/userpass/users/Alice')).toEqual({ mount: 'userpass', username: 'alice' });
  });

  test('an import id of the wrong form fails naming the expected form', () => {
    expect(() => type('ldap_static_role').parseImportId('ldap/role/x')).toThrow(ImportIdError);
    expect(() => type('ldap_static_role').parseImportId('ldap/role/x')).toThrow('ldap_static_role: import id "ldap/role/x" does not have the form <mount>/static-role/<name>');
    expect(() => type('sync_destination_cloud1_sm').parseImportId('sys/sync/destinations/cloud2-kv/x')).toThrow(ImportIdError);
    expect(() => type('sync_config').parseImportId('sys/sync/configs')).toThrow(ImportIdError);
    expect(type('cloud_secret_role').parseImportId('/v1/cloud/roles/x/')).toEqual({ mount: 'cloud', name: 'x' });
  });
});

describe('read normalisation meets desired normalisation', () => {
  test('durations become integer seconds whatever form was written', () => {
    expect(parseDuration('1h30m')).toBe(5400);
    expect(parseDuration('48d')).toBe(4147200);
    expect(parseDuration('90')).toBe(90);
    expect(parseDuration(3600)).toBe(3600);
    expect(parseDuration('1.5h')).toBe(5400);
    expect(parseDuration('soon')).toBeUndefined();
    expect(parseDuration(-1)).toBeUndefined();
    const role = type('ldap_static_role');
    const desired = role.normaliseDesired({ mount: 'ldap', name: 'svc', username: 'svc', rotation_period: '24h', skip_import_rotation: true });
    const read = role.normaliseRead({ request_id: 'r', lease_id: '', data: { dn: '', username: 'svc', rotation_period: 86400, last_service_rotation: '2026-01-01T00:00:00Z' } }, { mount: 'ldap', name: 'svc' });
    expect(desired).toEqual({ mount: 'ldap', name: 'svc', username: 'svc', rotation_period: 86400, skip_import_rotation: true });
    // skip_import_rotation is create-only: never read back.
    expect(read).toEqual({ mount: 'ldap', name: 'svc', dn: '', username: 'svc', rotation_period: 86400 });
  });

  test('cloud role: JSON-string lists parsed, server-filled role ids dropped, comma tags split, order ignored', () => {
    const role = type('cloud_secret_role');
    const spec = {
      mount: 'cloud', name: 'Deployer', ttl: '1h', max_ttl: 7200,
      cloud_roles: [{ scope: '/s/2', role_id: '/defs/2' }, { scope: '/s/1', role_name: 'Reader' }],
      cloud_groups: [{ group_name: 'ops' }], tags: ['b', 'a'],
    };
    const raw = {
      data: {
        ttl: 3600, max_ttl: 7200, explicit_max_ttl: 0, application_object_id: '', permanently_delete: false, persist_app: false, sign_in_audience: '',
        cloud_roles: [{ role_name: 'Reader', role_id: '/defs/1', scope: '/s/1' }, { role_name: 'Contributor', role_id: '/defs/2', scope: '/s/2' }],
        cloud_groups: [{ group_name: 'ops', object_id: 'oid-1' }],
        tags: ['a', 'b'],
      },
    };
    const desired = role.normaliseDesired(spec);
    const read = role.normaliseRead(raw, { mount: 'cloud', name: 'deployer' }, spec)!;
    for (const field of ['name', 'ttl', 'max_ttl', 'cloud_roles', 'cloud_groups', 'tags']) expect([field, read[field]]).toEqual([field, desired[field]]);
    expect(desired.name).toBe('deployer');
    // Without the desired spec the server's full form is kept.
    expect(role.normaliseRead(raw, { mount: 'cloud', name: 'deployer' })!.cloud_roles).toHaveLength(2);
    expect((role.normaliseRead(raw, { mount: 'cloud', name: 'deployer' })!.cloud_roles as Attributes[])[0]).toEqual({ role_id: '/defs/1', role_name: 'Reader', scope: '/s/1' });
    // A comma-separated or JSON-string answer normalises the same way.
    const stringly = role.normaliseRead({ data: { ...raw.data, tags: 'b,a', cloud_roles: JSON.stringify(raw.data.cloud_roles) } }, { mount: 'cloud', name: 'deployer' }, spec)!;
    expect(stringly.tags).toEqual(['a', 'b']);
    expect(stringly.cloud_roles).toEqual(desired.cloud_roles);
  });

  test('cloud backend: the config read of an unconfigured engine means absent; client_secret never appears', () => {
    const backend = type('cloud_secret_backend');
    expect(backend.normaliseRead({ data: { subscription_id: '', tenant_id: '', client_id: '', environment: '', root_password_ttl: 15768000 } }, { path: 'cloud' })).toBeNull();
    const read = backend.normaliseRead({ data: { subscription_id: 's', tenant_id: 't', client_id: 'c', environment: '', root_password_ttl: 4147200, client_secret: 'leak' } }, { path: 'cloud' })!;
    expect(read).toEqual({ path: 'cloud', subscription_id: 's', tenant_id: 't', client_id: 'c', environment: '', root_password_ttl: 4147200 });
    expect(backend.normaliseDesired({ path: 'cloud', subscription_id: 's', root_password_ttl: '48d' }).root_password_ttl).toBe(4147200);
    expect(backend.fields.find((field) => field.api === 'root_password_ttl')!.serviceDefault).toBe(15768000);
  });

  test('userpass user: policies lower-cased and sorted, comma strings split, durations in seconds', () => {
    const user = type('userpass_user');
    const desired = user.normaliseDesired({ mount: 'userpass', username: 'Alice', token_policies: ['Readers', 'default'], token_ttl: '1h', token_bound_cidrs: ['10.0.0.0/8'] });
    const read = user.normaliseRead({ data: { token_policies: 'default,readers', token_ttl: 3600, token_bound_cidrs: ['10.0.0.0/8'], token_type: 'default', token_num_uses: 0 } }, { mount: 'userpass', username: 'alice' })!;
    expect(read).toMatchObject({ username: 'alice', token_policies: desired.token_policies, token_ttl: 3600, token_bound_cidrs: ['10.0.0.0/8'] });
    expect(desired.token_policies).toEqual(['default', 'readers']);
    expect(desired).not.toHaveProperty('password');
  });

  test('destination: connection details and options flattened to field names, masked secrets never read', () => {
    const destination = type('sync_destination_cloud1_sm');
    const raw = {
      data: {
        type: 'cloud1-sm', name: 'c1',
        connection_details: { access_key_id: '*****', secret_access_key: '*****', region: 'eu-west-1', role_arn: '', external_id: '' },
        options: { granularity_level: 'secret-key', secret_name_template: 'svc/{{ .MountAccessor }}/{{ .SecretPath }}', custom_tags: { team: 'ops' } },
      },
    };
    expect(destination.normaliseRead(raw, { name: 'c1' })).toEqual({
      name: 'c1', region: 'eu-west-1', role_arn: '', external_id: '', granularity: 'secret-key',
      secret_name_template: 'svc/{{ .MountAccessor }}/{{ .SecretPath }}', custom_tags: { team: 'ops' },
    });
    const webhost = type('sync_destination_webhost_project');
    const read = webhost.normaliseRead({ data: { connection_details: { access_token: '*****', project_id: 'p', team_id: '', deployment_environments: ['production', 'preview'] }, options: { granularity_level: 'secret-key', secret_name_template: '' } } }, { name: 'web' })!;
    expect(read.deployment_environments).toEqual(webhost.normaliseDesired({ name: 'web', deployment_environments: ['preview', 'production'] }).deployment_environments);
    expect(read).not.toHaveProperty('custom_tags');
    expect(read).not.toHaveProperty('access_token');
  });

  test('mounts are found in the sys/mounts listing by "<path>/"; a missing one is absent', () => {
    const mount = type('secrets_mount');
    const listing = { data: { 'secret/': { type: 'kv', description: '', accessor: 'kv_1', options: { version: '2' } }, 'cloud/': { type: 'cloud', description: 'x', options: null } } };
    expect(mount.normaliseRead(listing, { path: 'secret' })).toEqual({ path: 'secret', type: 'kv', description: '', options: { version: '2' } });
    expect(mount.normaliseRead(listing, { path: 'cloud' })).toEqual({ path: 'cloud', type: 'cloud', description: 'x' });
    expect(mount.normaliseRead(listing, { path: 'ldap' })).toBeNull();
    expect(type('auth_mount').normaliseRead({ 'userpass/': { type: 'userpass', description: '' } }, { path: 'userpass' })).toEqual({ path: 'userpass', type: 'userpass', description: '' });
  });

  test('association: the sync status of this destination, absent when the secret is not associated with it', () => {
    const association = type('sync_association');
    const identity = { destination_type: 'cloud1-sm', destination_name: 'c1', mount: 'secret', secret_name: 'app/db' };
    const raw = { data: { associated_destinations: { 'cloud1-sm/c1': { type: 'cloud1-sm', name: 'c1', sync_status: 'SYNCED', updated_at: 't' } } } };
    expect(association.normaliseRead(raw, identity)).toEqual({ ...identity, sync_status: 'SYNCED' });
    expect(association.normaliseRead(raw, { ...identity, destination_name: 'other' })).toBeNull();
    expect(association.normaliseDesired(identity)).toEqual(identity);
  });

  test('dynamic role: base64 LDIF in code equals the decoded LDIF the server returns', () => {
    const role = type('ldap_dynamic_role');
    const ldif = 'dn: cn={{.Username}},dc=x\nobjectClass: person\ncn: {{.Username}}\n';
    const desired = role.normaliseDesired({ mount: 'ldap', name: 'temp', creation_ldif: Buffer.from(ldif).toString('base64'), deletion_ldif: ldif, default_ttl: '1h' });
    const read = role.normaliseRead({ data: { creation_ldif: ldif, deletion_ldif: `${ldif}\n\n`, rollback_ldif: '', username_template: '', default_ttl: 3600, max_ttl: 0 } }, { mount: 'ldap', name: 'temp' })!;
    expect(read.creation_ldif).toBe(desired.creation_ldif);
    expect(read.deletion_ldif).toBe(desired.deletion_ldif);
    expect(read.default_ttl).toBe(desired.default_ttl);
  });

  test('library set: a bare top-level answer (no envelope) reads the same as an envelope', () => {
    const set = type('ldap_library_set');
    const bare = { service_account_names: ['b', 'a'], ttl: 36000, max_ttl: 72000, disable_check_in_enforcement: false };
    const expected = { mount: 'ldap', name: 'pool', service_account_names: ['a', 'b'], ttl: 36000, max_ttl: 72000, disable_check_in_enforcement: false };
    expect(set.normaliseRead(bare, { mount: 'ldap', name: 'pool' })).toEqual(expected);
    expect(set.normaliseRead({ request_id: 'x', data: bare }, { mount: 'ldap', name: 'pool' })).toEqual(expected);
    expect(set.normaliseDesired({ mount: 'ldap', name: 'pool', service_account_names: ['a', 'b'], ttl: '10h', max_ttl: '20h' })).toEqual({ ...expected, disable_check_in_enforcement: undefined, ttl: 36000, max_ttl: 72000 });
  });

  test('github app: the integer app id read back equals the string sent; the masked key is not read', () => {
    const app = type('sync_github_app');
    expect(app.normaliseRead({ data: { app_id: 123456, fingerprint: 'f', name: 'ci', private_key: '*****' }, mount_type: 'system' }, { name: 'ci' })).toEqual({ name: 'ci', app_id: '123456' });
    expect(app.normaliseDesired({ name: 'ci', app_id: '123456' })).toEqual({ name: 'ci', app_id: '123456' });
  });

  test('an answer without an object, or an envelope whose data is null, means absent', () => {
    expect(type('ldap_static_role').normaliseRead(undefined, { mount: 'ldap', name: 'x' })).toBeNull();
    expect(type('ldap_static_role').normaliseRead({ request_id: 'r', data: null }, { mount: 'ldap', name: 'x' })).toBeNull();
  });
});

describe('request bodies and API calls', () => {
  test('cloud role: lists go as a JSON string, tags comma-separated, identity stays in the path', () => {
    const role = type('cloud_secret_role');
    const desired = role.normaliseDesired({ mount: 'cloud', name: 'r', cloud_roles: [{ scope: '/s', role_name: 'Reader' }], tags: ['b', 'a'], ttl: '1h' });
    expect(role.writeBody(desired, { create: true })).toEqual({ cloud_roles: '[{"role_name":"Reader","scope":"/s"}]', tags: 'a,b', ttl: 3600 });
    expect(role.api({ mount: 'cloud', name: 'r' }).update).toEqual({ method: 'POST', path: 'cloud/roles/r' });
  });

  test('static role: skip_import_rotation only on create; secrets only when given', () => {
    const role = type('ldap_static_role');
    const desired = role.normaliseDesired({ mount: 'ldap', name: 'svc', username: 'svc', rotation_period: '1h', skip_import_rotation: true });
    expect(role.writeBody(desired, { create: true })).toEqual({ username: 'svc', rotation_period: 3600, skip_import_rotation: true });
    expect(role.writeBody(desired, { create: false })).toEqual({ username: 'svc', rotation_period: 3600 });
    const backend = type('ldap_secret_backend');
    const config = backend.normaliseDesired({ path: 'ldap', binddn: 'cn=admin' });
    expect(backend.writeBody(config, { create: false })).toEqual({ binddn: 'cn=admin' });
    expect(backend.writeBody(config, { create: true, secrets: { bindpass: 'p' } })).toEqual({ binddn: 'cn=admin', bindpass: 'p' });
    expect(backend.operations.map((operation) => [operation.name, operation.call({ path: 'ldap' }, {})])).toEqual([['rotate-root', { method: 'POST', path: 'ldap/rotate-root' }]]);
  });

  test('dynamic role: partial writes, a cleared field is sent as ""', () => {
    const role = type('ldap_dynamic_role');
    expect(role.writeSemantics).toBe('partial-empty-deletes');
    const desired = role.normaliseDesired({ mount: 'ldap', name: 'd', creation_ldif: 'dn: cn=x\ncn: x', deletion_ldif: 'dn: cn=x\nchangetype: delete' });
    expect(role.writeBody(desired, { create: false, clear: ['rollback_ldif'] })).toEqual({ creation_ldif: 'dn: cn=x\ncn: x', deletion_ldif: 'dn: cn=x\nchangetype: delete', rollback_ldif: '' });
  });

  test('mounts: created with type and options, updated through tune', () => {
    const mount = type('secrets_mount');
    const desired = mount.normaliseDesired({ path: 'secret', type: 'kv', options: { version: '2' }, description: 'd' });
    expect(mount.writeBody(desired, { create: true })).toEqual({ type: 'kv', options: { version: '2' }, description: 'd' });
    expect(mount.writeBody(desired, { create: false })).toEqual({ description: 'd' });
    expect(mount.api({ path: 'secret' })).toMatchObject({ read: { method: 'GET', path: 'sys/mounts' }, update: { method: 'POST', path: 'sys/mounts/secret/tune' } });
    const auth = type('auth_mount');
    const method = auth.normaliseDesired({ path: 'userpass', type: 'userpass', description: 'people' });
    expect(auth.writeBody(method, { create: true })).toEqual({ type: 'userpass', description: 'people' });
    expect(auth.writeBody(method, { create: false })).toEqual({ description: 'people' });
    expect(auth.api({ path: 'userpass' })).toEqual({
      read: { method: 'GET', path: 'sys/auth' },
      create: { method: 'POST', path: 'sys/auth/userpass' },
      update: { method: 'POST', path: 'sys/auth/userpass/tune' },
      delete: { method: 'DELETE', path: 'sys/auth/userpass' },
    });
    expect(() => auth.parseImportId('sys/mounts/userpass')).toThrow('auth_mount: import id "sys/mounts/userpass" does not have the form sys/auth/<path>');
  });

  test('sync config is patched with merge-patch and reset by delete', () => {
    const calls = type('sync_config').api({});
    expect(calls.update).toEqual({ method: 'PATCH', path: 'sys/sync/config', contentType: 'application/merge-patch+json' });
    expect(calls.delete).toEqual({ method: 'DELETE', path: 'sys/sync/config' });
  });

  test('association: set and remove carry mount and secret_name; read looks the secret up by query', () => {
    const association = type('sync_association');
    const spec = { destination_type: 'repohost', destination_name: 'gh', mount: 'secret', secret_name: 'app/db' };
    expect(association.writeBody(association.normaliseDesired(spec), { create: true })).toEqual({ mount: 'secret', secret_name: 'app/db' });
    expect(association.api(spec)).toMatchObject({
      read: { method: 'GET', path: 'sys/sync/associations/destinations', query: { mount: 'secret', secret_name: 'app/db' } },
      create: { method: 'POST', path: 'sys/sync/destinations/repohost/gh/associations/set' },
      delete: { method: 'POST', path: 'sys/sync/destinations/repohost/gh/associations/remove', body: { mount: 'secret', secret_name: 'app/db' } },
    });
  });

  test('destinations send the whole object (secrets included) and can be purged', () => {
    const destination = type('sync_destination_cloud2_kv');
    expect(destination.writeSemantics).toBe('replace');
    const desired = destination.normaliseDesired({ name: 'c2', key_vault_uri: 'https://v', client_id: 'c', tenant_id: 't', custom_tags: { b: '2', a: '1' } });
    expect(destination.writeBody(desired, { create: false, secrets: { client_secret: 's' } })).toEqual({ key_vault_uri: 'https://v', client_id: 'c', tenant_id: 't', custom_tags: { a: '1', b: '2' }, client_secret: 's' });
    const steps = destination.deleteSteps({ name: 'c2' });
    expect(steps.call).toEqual({ method: 'DELETE', path: 'sys/sync/destinations/cloud2-kv/c2' });
    expect(steps.whenOccupied?.call).toEqual({ method: 'DELETE', path: 'sys/sync/destinations/cloud2-kv/c2', query: { purge: 'true' } });
    expect(steps.whenOccupied?.isOccupied({ associated_secrets: {} })).toBe(false);
    expect(steps.whenOccupied?.isOccupied({ associated_secrets: { 'kv_1234/app': { sync_status: 'SYNCED' } } })).toBe(true);
  });

  test('dependencies are the ids of the mount, backend, destination or app an object needs', () => {
    expect(type('ldap_static_role').dependsOn({ mount: 'ldap', name: 'x' })).toEqual(['ldap/config', 'sys/mounts/ldap']);
    expect(type('cloud_secret_backend').dependsOn({ path: 'cloud' })).toEqual(['sys/mounts/cloud']);
    expect(type('userpass_user').dependsOn({ mount: 'userpass', username: 'a' })).toEqual(['sys/auth/userpass']);
    expect(type('sync_association').dependsOn({ destination_type: 'repohost', destination_name: 'gh', mount: 'secret', secret_name: 'x' }))
      .toEqual(['sys/sync/destinations/repohost/gh', 'sys/mounts/secret']);
    expect(type('sync_destination_repohost').dependsOn({ name: 'gh', app_name: 'ci' })).toEqual(['sys/sync/github-apps/ci']);
    expect(type('sync_destination_repohost').dependsOn({ name: 'gh' })).toEqual([]);
  });
});

describe('what a read answer must hold, derived from the model', () => {
  test.each(RESOURCE_TYPES.map((resourceType) => [resourceType.type, resourceType] as const))(
    '%s: no body, a scalar, an array, null data and {} are not an answer about the object',
    (_name, resourceType) => {
      for (const raw of [undefined, 42, 'text', true, [], [{}], null, { request_id: 'r', data: null }]) {
        expect(resourceType.readAnswerProblem(raw)).toEqual(expect.any(String));
      }
      // `{}` says nothing about an object, except where an empty listing is one (no mount of that kind).
      const emptyIsAListing = resourceType.type === 'secrets_mount' || resourceType.type === 'auth_mount';
      expect(resourceType.readAnswerProblem({})).toEqual(emptyIsAListing ? undefined : expect.any(String));
      expect(resourceType.readAnswerProblem({ errors: ['permission denied'] })).toEqual(expect.any(String));
    },
  );

  test('an answer holding one readable field of the type is one; the problem names the fields it lacks', () => {
    const user = type('userpass_user');
    expect(user.readAnswerProblem({ data: { token_ttl: 0 } })).toBeUndefined();
    expect(user.readAnswerProblem({ data: { password: 'x' } })).toMatch(/an object with only "password", none of the fields such a read returns \("token_ttl"/);
    expect(type('secrets_mount').readAnswerProblem({ 'kv/': { type: 'kv' }, request_id: 'r' })).toBeUndefined();
    expect(type('secrets_mount').readAnswerProblem({ 'kv/': 'x' })).toMatch(/entries "kv\/" have no "type"/);
    expect(type('secrets_mount').readAnswerProblem({ foo: 1 })).toMatch(/keys that are not mount paths/);
  });
});

describe('field index (field-index.ts)', () => {
  test.each(RESOURCE_TYPES.map((resourceType) => [resourceType.type, resourceType] as const))('%s: the lookups agree with its field list', (_, resourceType) => {
    const index = fieldIndex(resourceType.fields);
    expect(fieldIndex(resourceType.fields)).toBe(index);
    for (const field of resourceType.fields) expect(index.byApi.get(field.api)).toBe(resourceType.fields.find((candidate) => candidate.api === field.api));
    expect(index.byApi.size).toBe(new Set(resourceType.fields.map((field) => field.api)).size);
    expect(index.settable).toEqual(resourceType.fields.filter((field) => !field.sensitive && !field.computed));
    expect(index.required).toEqual(resourceType.fields.filter((field) => field.required && !field.sensitive && !field.computed));
    expect(index.identity).toEqual(resourceType.fields.filter((field) => field.identity));
  });

  test('the first field of a name wins, as with fields.find', () => {
    const fields = [field('name', 'string', 'first'), field('name', 'int', 'second')];
    expect(fieldIndex(fields).byApi.get('name')?.doc).toBe('first');
  });
});
