/**
 * For every resource type, against the dev server: create; a second plan shows nothing; a change in code is an
 * update (or a replace for an immutable field); a change outside the code is drift that apply reverts; a
 * delete outside the code is drift that apply re-creates; removal from code deletes; destroy removes the rest.
 */
import type { TerraformStack } from 'cdktf';
import {
  AuthMount, CloudSecretBackend, CloudSecretRole, LdapDynamicRole, LdapLibrarySet, LdapSecretBackend, LdapStaticRole, SecretsMount,
  SecretValue, SyncAssociation, SyncCloud1SmDestination, SyncCloud2KvDestination, SyncCloud3SmDestination, SyncConfig, SyncGithubApp,
  SyncRepohostDestination, SyncWebhostProjectDestination, UserpassUser,
} from '../../src';
import { apply, destroy, plan, type Plan } from '../../src';
import { ADMIN_DN, ADMIN_PASSWORD, newStack, startHarness, unwrap, USERS_DN, type Harness } from './engine-harness';

type Variant = 'base' | 'updated' | 'replaced' | 'removed';

interface Scenario {
  /** The resource under test, by address. */
  address: string;
  type: string;
  build(stack: TerraformStack, variant: Variant): void;
  setup?(h: Harness): Promise<void>;
  /** Changes the object on the service (the drift the next plan must show). */
  changeOutside?(h: Harness): Promise<unknown>;
  /** Deletes the object on the service; omitted where "deleted" is not a state the object has. */
  deleteOutside?(h: Harness): Promise<unknown>;
  /** The field the `updated` variant changes ('' for none), and the one the `replaced` variant forces replacement with. */
  updatedField: string;
  replacePath?: string[];
  /** Whether the object is gone from the service. */
  gone(h: Harness): Promise<boolean>;
  /** The first apply adopts an object that always exists (the sync configuration) rather than creating it. */
  alwaysExists?: boolean;
}

const ldapBackend = (stack: TerraformStack) =>
  new LdapSecretBackend(stack, 'ldap', { binddn: ADMIN_DN, bindpass: SecretValue.unsafePlainText(ADMIN_PASSWORD), userdn: USERS_DN, url: 'ldap://directory' });
const cloudBackend = (stack: TerraformStack) =>
  new CloudSecretBackend(stack, 'cloud', { subscriptionId: 'sub-1', tenantId: 'tenant-1', clientId: 'client-1', clientSecret: SecretValue.unsafePlainText('cloud-root-secret-1') });
const status404 = (path: string) => async (h: Harness) => (await h.call('GET', path)).status === 404;
const LDIF_CREATE = 'dn: cn={{.Username}},ou=users,dc=engine,dc=test\nobjectClass: person\ncn: {{.Username}}\nsn: {{.Username}}\nuserPassword: {{.Password}}\n';
const LDIF_DELETE = 'dn: cn={{.Username}},ou=users,dc=engine,dc=test\nchangetype: delete\n';

function destinationScenario(
  type: string,
  kind: string,
  make: (stack: TerraformStack, variant: Variant) => void,
  outsideBody: Record<string, unknown>,
  replacePath: string,
): Scenario {
  return {
    address: 'test/dest',
    type,
    build: (stack, variant) => {
      if (variant !== 'removed') make(stack, variant);
    },
    changeOutside: (h) => h.call('POST', `sys/sync/destinations/${kind}/dest-1`, outsideBody),
    deleteOutside: (h) => h.call('DELETE', `sys/sync/destinations/${kind}/dest-1`),
    updatedField: 'secret_name_template',
    replacePath: [replacePath],
    gone: status404(`sys/sync/destinations/${kind}/dest-1`),
  };
}

const APP_KEY = '-----BEGIN RSA PRIVATE KEY-----\napp-private-key-value-1\n-----END RSA PRIVATE KEY-----';
const OTHER_APP_KEY = '-----BEGIN RSA PRIVATE KEY-----\nkey-set-outside-the-code\n-----END RSA PRIVATE KEY-----';
const template = (variant: Variant) => (variant === 'base' ? 'svc-{{ .SecretPath }}' : 'svc2-{{ .SecretPath }}');

const SCENARIOS: Record<string, Scenario> = {
  secrets_mount: {
    address: 'test/kv',
    type: 'secrets_mount',
    build: (stack, variant) => {
      if (variant === 'removed') return;
      if (variant === 'replaced') new SecretsMount(stack, 'kv', { path: 'apps', type: 'ldap', description: 'first' });
      else new SecretsMount(stack, 'kv', { path: 'apps', type: 'kv', options: { version: '2' }, description: variant === 'updated' ? 'second' : 'first' });
    },
    changeOutside: (h) => h.call('POST', 'sys/mounts/apps/tune', { description: 'changed outside' }),
    deleteOutside: (h) => h.call('DELETE', 'sys/mounts/apps'),
    updatedField: 'description',
    replacePath: ['type'],
    gone: async (h) => !('apps/' in (await h.call('GET', 'sys/mounts')).body.data),
  },
  auth_mount: {
    address: 'test/userpass',
    type: 'auth_mount',
    build: (stack, variant) => {
      if (variant === 'removed') return;
      new AuthMount(stack, 'userpass', { path: variant === 'replaced' ? 'people' : 'userpass', type: 'userpass', description: variant === 'updated' ? 'second' : 'first' });
    },
    changeOutside: (h) => h.call('POST', 'sys/auth/userpass/tune', { description: 'changed outside' }),
    deleteOutside: (h) => h.call('DELETE', 'sys/auth/userpass'),
    updatedField: 'description',
    replacePath: ['path'],
    gone: async (h) => {
      const data = (await h.call('GET', 'sys/auth')).body.data;
      return !('userpass/' in data) && !('people/' in data);
    },
  },
  cloud_secret_backend: {
    address: 'test/cloud',
    type: 'cloud_secret_backend',
    build: (stack, variant) => {
      if (variant === 'removed') {
        new SecretsMount(stack, 'cloud-mount', { path: 'cloud', type: 'cloud' });
        return;
      }
      new CloudSecretBackend(stack, 'cloud', {
        manageMount: false, subscriptionId: 'sub-1', tenantId: variant === 'base' ? 'tenant-1' : 'tenant-2', clientId: 'client-1',
        clientSecret: SecretValue.unsafePlainText('cloud-root-secret-1'),
      });
      new SecretsMount(stack, 'cloud-mount', { path: 'cloud', type: 'cloud' });
    },
    changeOutside: (h) => h.call('POST', 'cloud/config', { client_id: 'client-outside' }),
    deleteOutside: (h) => h.call('DELETE', 'cloud/config'),
    updatedField: 'tenant_id',
    gone: async (h) => {
      const read = await h.call('GET', 'cloud/config');
      return read.status === 404 || read.body.data.subscription_id === '';
    },
  },
  cloud_secret_role: {
    address: 'test/role',
    type: 'cloud_secret_role',
    build: (stack, variant) => {
      const backend = cloudBackend(stack);
      if (variant === 'removed') return;
      new CloudSecretRole(stack, 'role', {
        backend, name: variant === 'replaced' ? 'deployer2' : 'deployer', cloudRoles: [{ scope: '/subscriptions/sub-1', roleName: 'Reader' }],
        ttl: variant === 'base' ? '1h' : '2h', maxTtl: '3h', tags: ['b', 'a'],
      });
    },
    changeOutside: (h) => h.call('POST', 'cloud/roles/deployer', { ttl: 120 }),
    deleteOutside: (h) => h.call('DELETE', 'cloud/roles/deployer'),
    updatedField: 'ttl',
    replacePath: ['name'],
    gone: async (h) => (await h.call('GET', 'cloud/roles/deployer')).status === 404 && (await h.call('GET', 'cloud/roles/deployer2')).status === 404,
  },
  userpass_user: {
    address: 'test/alice',
    type: 'userpass_user',
    build: (stack, variant) => {
      const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
      if (variant === 'removed') return;
      new UserpassUser(stack, 'alice', {
        mount, username: variant === 'replaced' ? 'alice2' : 'alice', password: SecretValue.unsafePlainText('alice-pw-1'),
        tokenTtl: variant === 'base' ? '1h' : '2h', tokenPolicies: ['readers', 'default'],
      });
    },
    changeOutside: (h) => h.call('POST', 'auth/userpass/users/alice', { token_policies: 'outside' }),
    deleteOutside: (h) => h.call('DELETE', 'auth/userpass/users/alice'),
    updatedField: 'token_ttl',
    replacePath: ['username'],
    gone: async (h) => (await h.call('GET', 'auth/userpass/users/alice')).status === 404 && (await h.call('GET', 'auth/userpass/users/alice2')).status === 404,
  },
  sync_config: {
    address: 'test/sync-config',
    type: 'sync_config',
    build: (stack, variant) => {
      if (variant === 'removed') return;
      new SyncConfig(stack, 'sync-config', { queueCapacity: variant === 'base' ? 5000 : 6000 });
    },
    changeOutside: (h) => h.call('PATCH', 'sys/sync/config', { queue_capacity: 42 }, 'application/merge-patch+json'),
    updatedField: 'queue_capacity',
    alwaysExists: true,
    // Removing the configuration resets it to the defaults.
    gone: async (h) => (await h.call('GET', 'sys/sync/config')).body.data.queue_capacity === 1000000,
  },
  sync_github_app: {
    address: 'test/app',
    type: 'sync_github_app',
    build: (stack, variant) => {
      if (variant === 'removed') return;
      new SyncGithubApp(stack, 'app', { name: variant === 'replaced' ? 'ci2' : 'ci', appId: variant === 'base' ? '100' : '200', privateKey: SecretValue.unsafePlainText(APP_KEY) });
    },
    // A key set outside the code: only the server's fingerprint can tell.
    changeOutside: (h) => h.call('POST', 'sys/sync/github-apps/ci', { app_id: '200', private_key: OTHER_APP_KEY }),
    deleteOutside: (h) => h.call('DELETE', 'sys/sync/github-apps/ci'),
    updatedField: 'app_id',
    replacePath: ['name'],
    gone: async (h) => (await h.call('GET', 'sys/sync/github-apps/ci')).status === 404 && (await h.call('GET', 'sys/sync/github-apps/ci2')).status === 404,
  },
  sync_destination_cloud1_sm: destinationScenario('sync_destination_cloud1_sm', 'cloud1-sm', (stack, variant) => {
    new SyncCloud1SmDestination(stack, 'dest', {
      name: 'dest-1', accessKeyId: SecretValue.unsafePlainText('AKIA-1'), secretAccessKey: SecretValue.unsafePlainText('cloud1-secret-1'),
      region: variant === 'replaced' ? 'us-east-1' : 'eu-west-1', customTags: { team: 'ops' }, secretNameTemplate: template(variant),
    });
  }, { region: 'eu-west-1', access_key_id: 'AKIA-1', secret_access_key: 'x', custom_tags: { team: 'outside' }, secret_name_template: 'outside-{{ .SecretPath }}' }, 'region'),
  sync_destination_cloud2_kv: destinationScenario('sync_destination_cloud2_kv', 'cloud2-kv', (stack, variant) => {
    new SyncCloud2KvDestination(stack, 'dest', {
      name: 'dest-1', keyVaultUri: variant === 'replaced' ? 'https://other.example.net/' : 'https://vault.example.net/', clientId: 'c2-client',
      clientSecret: SecretValue.unsafePlainText('cloud2-secret-1'), tenantId: 'c2-tenant', secretNameTemplate: template(variant),
    });
  }, { key_vault_uri: 'https://vault.example.net/', client_id: 'c2-outside', client_secret: 'x', tenant_id: 'c2-tenant', secret_name_template: 'outside-{{ .SecretPath }}' }, 'key_vault_uri'),
  sync_destination_cloud3_sm: destinationScenario('sync_destination_cloud3_sm', 'cloud3-sm', (stack, variant) => {
    new SyncCloud3SmDestination(stack, 'dest', {
      name: 'dest-1', credentials: SecretValue.unsafePlainText('{"type":"service_account"}'), projectId: variant === 'replaced' ? 'project-9' : 'project-3',
      secretNameTemplate: template(variant),
    });
  }, { credentials: '{}', project_id: 'project-3', custom_tags: { team: 'outside' }, secret_name_template: 'outside-{{ .SecretPath }}' }, 'project_id'),
  sync_destination_repohost: destinationScenario('sync_destination_repohost', 'repohost', (stack, variant) => {
    new SyncRepohostDestination(stack, 'dest', {
      name: 'dest-1', accessToken: SecretValue.unsafePlainText('ghp-token-1'), repositoryOwner: 'acme',
      repositoryName: variant === 'replaced' ? 'api' : 'web', secretNameTemplate: template(variant),
    });
  }, { access_token: 'x', repository_owner: 'acme', repository_name: 'web', granularity: 'secret-path', secret_name_template: 'outside-{{ .SecretPath }}' }, 'repository_name'),
  sync_destination_webhost_project: destinationScenario('sync_destination_webhost_project', 'webhost-project', (stack, variant) => {
    new SyncWebhostProjectDestination(stack, 'dest', {
      name: 'dest-1', accessToken: SecretValue.unsafePlainText('webhost-token-1'), projectId: variant === 'replaced' ? 'prj_2' : 'prj_1',
      deploymentEnvironments: ['production', 'preview'], secretNameTemplate: template(variant),
    });
  }, { access_token: 'x', project_id: 'prj_1', deployment_environments: ['development'], secret_name_template: 'outside-{{ .SecretPath }}' }, 'project_id'),
  sync_association: {
    address: 'test/assoc',
    type: 'sync_association',
    setup: async (h) => {
      for (const name of ['app/db', 'app/cache']) {
        const written = await h.call('POST', `secret/data/${name}`, { data: { password: 'kv-value' } });
        if (written.status >= 300) throw new Error(`kv write: ${written.status}`);
      }
    },
    build: (stack, variant) => {
      const destination = new SyncCloud1SmDestination(stack, 'dest', {
        name: 'dest-1', region: 'eu-west-1', secretNameTemplate: variant === 'base' ? 'a-{{ .SecretPath }}' : 'b-{{ .SecretPath }}',
      });
      if (variant === 'removed') return;
      new SyncAssociation(stack, 'assoc', { destination, mount: 'secret', secretName: variant === 'replaced' ? 'app/cache' : 'app/db' });
    },
    changeOutside: async (h) => {
      // A failing remote store: the association's status carries the cause.
      (h.server.inspectSync() as { setRemoteFailure(t: string, n: string, c: string | null): void }).setRemoteFailure('cloud1-sm', 'dest-1', 'remote store unreachable');
      await h.call('POST', 'sys/sync/destinations/cloud1-sm/dest-1/associations/set', { mount: 'secret', secret_name: 'app/db' });
      (h.server.inspectSync() as { setRemoteFailure(t: string, n: string, c: string | null): void }).setRemoteFailure('cloud1-sm', 'dest-1', null);
    },
    deleteOutside: (h) => h.call('POST', 'sys/sync/destinations/cloud1-sm/dest-1/associations/remove', { mount: 'secret', secret_name: 'app/db' }),
    updatedField: '', // an association has nothing to update; the destination changes instead
    replacePath: ['secret_name'],
    gone: async (h) => {
      const read = await h.call('GET', 'sys/sync/destinations/cloud1-sm/dest-1/associations');
      return read.status === 404 || Object.keys(read.body.data.associated_secrets).length === 0;
    },
  },
  ldap_secret_backend: {
    address: 'test/ldap',
    type: 'ldap_secret_backend',
    build: (stack, variant) => {
      new SecretsMount(stack, 'ldap-mount', { path: 'ldap', type: 'ldap' });
      if (variant === 'removed') return;
      new LdapSecretBackend(stack, 'ldap', {
        manageMount: false, binddn: ADMIN_DN, bindpass: SecretValue.unsafePlainText(ADMIN_PASSWORD), userdn: USERS_DN,
        url: variant === 'base' ? 'ldap://directory' : 'ldap://directory2', requestTimeout: '60s',
      });
    },
    changeOutside: (h) => h.call('POST', 'ldap/config', { request_timeout: 10 }),
    deleteOutside: (h) => h.call('DELETE', 'ldap/config'),
    updatedField: 'url',
    gone: status404('ldap/config'),
  },
  ldap_static_role: {
    address: 'test/static',
    type: 'ldap_static_role',
    build: (stack, variant) => {
      const backend = ldapBackend(stack);
      if (variant === 'removed') return;
      new LdapStaticRole(stack, 'static', { backend, name: 'svc', username: variant === 'replaced' ? 'svc-b' : 'svc-a', rotationPeriod: variant === 'base' ? '24h' : '48h' });
    },
    changeOutside: (h) => h.call('POST', 'ldap/static-role/svc', { rotation_period: 600 }),
    deleteOutside: (h) => h.call('DELETE', 'ldap/static-role/svc'),
    updatedField: 'rotation_period',
    replacePath: ['username'],
    gone: status404('ldap/static-role/svc'),
  },
  ldap_dynamic_role: {
    address: 'test/dynamic',
    type: 'ldap_dynamic_role',
    build: (stack, variant) => {
      const backend = ldapBackend(stack);
      if (variant === 'removed') return;
      new LdapDynamicRole(stack, 'dynamic', {
        backend, name: variant === 'replaced' ? 'temp2' : 'temp', creationLdif: LDIF_CREATE, deletionLdif: LDIF_DELETE,
        // Removed from code in the update: a partial write must send "" to clear it.
        ...(variant === 'base' ? { usernameTemplate: 'v_{{.RoleName}}_{{random 8}}' } : {}),
        defaultTtl: '1h',
      });
    },
    changeOutside: (h) => h.call('POST', 'ldap/role/temp', { default_ttl: 60 }),
    deleteOutside: (h) => h.call('DELETE', 'ldap/role/temp'),
    updatedField: 'username_template',
    replacePath: ['name'],
    gone: async (h) => (await h.call('GET', 'ldap/role/temp')).status === 404 && (await h.call('GET', 'ldap/role/temp2')).status === 404,
  },
  ldap_library_set: {
    address: 'test/library',
    type: 'ldap_library_set',
    build: (stack, variant) => {
      const backend = ldapBackend(stack);
      if (variant === 'removed') return;
      new LdapLibrarySet(stack, 'library', {
        backend, name: variant === 'replaced' ? 'pool2' : 'pool', serviceAccountNames: ['svc-c', 'svc-d'], ttl: variant === 'base' ? '1h' : '2h', maxTtl: '4h',
      });
    },
    changeOutside: (h) => h.call('POST', 'ldap/library/pool', { service_account_names: ['svc-c'] }),
    deleteOutside: (h) => h.call('DELETE', 'ldap/library/pool'),
    updatedField: 'ttl',
    replacePath: ['name'],
    gone: async (h) => (await h.call('GET', 'ldap/library/pool')).status === 404 && (await h.call('GET', 'ldap/library/pool2')).status === 404,
  },
};

function stackOf(scenario: Scenario, variant: Variant): TerraformStack {
  const stack = newStack();
  scenario.build(stack, variant);
  return stack;
}

function changeOf(result: Plan, address: string) {
  const found = result.changes.find((c) => c.address === address);
  if (!found) throw new Error(`no change for ${address} in ${JSON.stringify(result.changes.map((c) => c.address))}`);
  return found;
}

function expectClean(result: Plan): void {
  expect(result.changes.filter((c) => c.action !== 'no-op').map((c) => `${c.address}: ${c.action} ${JSON.stringify(c.reasons)} ${JSON.stringify(c.fieldChanges)}`)).toEqual([]);
  expect(result.drift).toEqual([]);
}

async function applyOk(h: Harness, stack: TerraformStack) {
  const result = unwrap(await apply(h.options(stack)));
  expect(result.outcomes.filter((o) => o.status !== 'succeeded')).toEqual([]);
  expect(result.succeeded).toBe(true);
  return result;
}

describe.each(Object.keys(SCENARIOS))('%s', (name) => {
  const scenario = SCENARIOS[name];
  let h: Harness;
  beforeEach(async () => {
    h = await startHarness();
    await scenario.setup?.(h);
  });
  afterEach(() => h.close());

  test('creates, converges, updates, reverts drift, re-creates, replaces, deletes and destroys', async () => {
    const first = unwrap(await plan(h.options(stackOf(scenario, 'base'))));
    if (scenario.alwaysExists) {
      expect(changeOf(first, scenario.address)).toMatchObject({ action: 'update', reasons: expect.arrayContaining([{ kind: 'adopt' }]) });
    } else {
      expect(changeOf(first, scenario.address)).toMatchObject({ action: 'create', type: scenario.type, before: null });
    }
    await applyOk(h, stackOf(scenario, 'base'));
    expect((await h.state()).resources[scenario.address]).toMatchObject({ type: scenario.type });
    expectClean(unwrap(await plan(h.options(stackOf(scenario, 'base')))));

    // A change in code.
    const updated = unwrap(await plan(h.options(stackOf(scenario, 'updated'))));
    if (scenario.updatedField !== '') {
      const change = changeOf(updated, scenario.address);
      expect(change.action).toBe('update');
      expect(change.fieldChanges.map((f) => f.field)).toContain(scenario.updatedField);
    }
    await applyOk(h, stackOf(scenario, 'updated'));
    expectClean(unwrap(await plan(h.options(stackOf(scenario, 'updated')))));

    // A change outside the code: drift, and an update that reverts it.
    if (scenario.changeOutside) {
      await scenario.changeOutside(h);
      const drifted = unwrap(await plan(h.options(stackOf(scenario, 'updated'))));
      const drift = drifted.drift.find((d) => d.address === scenario.address);
      expect(drift).toBeDefined();
      expect(['changed', 'out_of_sync']).toContain(drift!.kind);
      expect(changeOf(drifted, scenario.address).action).toBe('update');
      await applyOk(h, stackOf(scenario, 'updated'));
      expectClean(unwrap(await plan(h.options(stackOf(scenario, 'updated')))));
    }

    // Deleted outside the code: drift "deleted", and a create.
    if (scenario.deleteOutside) {
      await scenario.deleteOutside(h);
      const deleted = unwrap(await plan(h.options(stackOf(scenario, 'updated'))));
      expect(deleted.drift.find((d) => d.address === scenario.address)).toMatchObject({ kind: 'deleted', after: null });
      expect(changeOf(deleted, scenario.address)).toMatchObject({ action: 'create', reasons: [{ kind: 'deleted_outside' }] });
      await applyOk(h, stackOf(scenario, 'updated'));
      expectClean(unwrap(await plan(h.options(stackOf(scenario, 'updated')))));
    }

    // An immutable field (or the identity) changed in code: replace.
    if (scenario.replacePath) {
      const replaced = unwrap(await plan(h.options(stackOf(scenario, 'replaced'))));
      expect(changeOf(replaced, scenario.address)).toMatchObject({ action: 'replace', replacePaths: [scenario.replacePath] });
      await applyOk(h, stackOf(scenario, 'replaced'));
      expectClean(unwrap(await plan(h.options(stackOf(scenario, 'replaced')))));
    }

    // Removed from code: delete.
    const removed = unwrap(await plan(h.options(stackOf(scenario, 'removed'))));
    expect(changeOf(removed, scenario.address)).toMatchObject({ action: 'delete', after: null });
    await applyOk(h, stackOf(scenario, 'removed'));
    expect(await scenario.gone(h)).toBe(true);
    expect((await h.state()).resources[scenario.address]).toBeUndefined();
    expectClean(unwrap(await plan(h.options(stackOf(scenario, 'removed')))));

    // Destroy: everything else the stack created goes too.
    await applyOk(h, stackOf(scenario, 'updated'));
    const destroyed = unwrap(await destroy(h.options(stackOf(scenario, 'updated'))));
    expect(destroyed.succeeded).toBe(true);
    expect(destroyed.outcomes.length).toBeGreaterThan(0);
    expect(destroyed.outcomes.every((o) => o.action === 'delete' && o.status === 'succeeded')).toBe(true);
    expect((await h.state()).resources).toEqual({});
    expect(await scenario.gone(h)).toBe(true);
  });
});
