import { getResourceType } from '../../src/resources/registry';
import type { DriftEntry, Plan, PlannedChange } from '../../src/engine/plan/plan';

/**
 * A plan for the report tests with every action, sensitive fields, secrets the service cannot verify and
 * each kind of drift, using the service's resource types and field names.
 */
export function fullPlan(overrides: Partial<Plan> = {}): Plan {
  return {
    stack: 'prod',
    refreshOnly: false,
    changes: [
      cloudBackendNoOp(),
      githubAppNoOp(),
      ldapConfigUpdate(),
      ldapLibrarySetDelete(),
      ldapStaticRoleReplace(),
      ldapStaticRoleCreate(),
      cloud1DestinationCreate(),
      userpassUserCreate(),
    ],
    drift: [userpassUserDrift(), ldapDynamicRoleDeleted(), associationOutOfSync()],
    warnings: [],
    ...overrides,
  };
}

export function emptyPlan(overrides: Partial<Plan> = {}): Plan {
  return { stack: 'prod', refreshOnly: false, changes: [], drift: [], warnings: [], ...overrides };
}

export function change(overrides: Partial<PlannedChange> & Pick<PlannedChange, 'address' | 'action'>): PlannedChange {
  return {
    type: 'ldap_static_role',
    id: 'ldap/static-role/svc',
    reasons: [],
    before: null,
    after: null,
    sensitive: [],
    replacePaths: [],
    fieldChanges: [],
    secrets: [],
    ...overrides,
  };
}

export function cloudBackendNoOp(): PlannedChange {
  const attributes = { subscription_id: 'sub-1', tenant_id: 'tenant-1', client_id: 'client-1', environment: 'PublicCloud' };
  return change({
    address: 'prod/cloud/backend',
    type: 'cloud_secret_backend',
    id: 'cloud/config',
    action: 'no-op',
    before: attributes,
    after: attributes,
    secrets: [{ field: 'client_secret', status: 'unverifiable' }],
  });
}

export function githubAppNoOp(): PlannedChange {
  const attributes = { name: 'ci', app_id: 123456 };
  return change({
    address: 'prod/github/ci-app',
    type: 'sync_github_app',
    id: 'sys/sync/github-apps/ci',
    action: 'no-op',
    before: attributes,
    after: attributes,
    secrets: [{ field: 'private_key', status: 'in_sync' }],
  });
}

export function ldapConfigUpdate(): PlannedChange {
  const before = {
    binddn: 'cn=admin,dc=example,dc=org',
    url: 'ldaps://old.example.org',
    userdn: 'ou=users,dc=example,dc=org',
    schema: 'openldap',
  };
  return change({
    address: 'prod/ldap/backend',
    type: 'ldap_secret_backend',
    id: 'ldap/config',
    action: 'update',
    before,
    after: { ...before, url: 'ldaps://ldap.example.org' },
    fieldChanges: [
      { field: 'url', from: 'ldaps://old.example.org', to: 'ldaps://ldap.example.org', forcesReplacement: false },
    ],
    secrets: [{ field: 'bindpass', status: 'unverifiable' }],
  });
}

export function ldapLibrarySetDelete(): PlannedChange {
  return change({
    address: 'prod/ldap/old-set',
    type: 'ldap_library_set',
    id: 'ldap/library/old-set',
    action: 'delete',
    before: { service_account_names: ['svc-a', 'svc-b'], ttl: 3600, max_ttl: 86400, disable_check_in_enforcement: false },
    after: null,
  });
}

export function ldapStaticRoleReplace(): PlannedChange {
  const before = { username: 'app', dn: 'cn=app,ou=users,dc=example,dc=org', rotation_period: 86400 };
  return change({
    address: 'prod/ldap/app-role',
    type: 'ldap_static_role',
    id: 'ldap/static-role/app',
    action: 'replace',
    reasons: [{ kind: 'immutable_fields', fields: ['username'] }],
    before,
    after: { ...before, username: 'app2' },
    replacePaths: [['username']],
    fieldChanges: [{ field: 'username', from: 'app', to: 'app2', forcesReplacement: true }],
  });
}

export function ldapStaticRoleCreate(): PlannedChange {
  return change({
    address: 'prod/ldap/svc-role',
    type: 'ldap_static_role',
    id: 'ldap/static-role/svc',
    action: 'create',
    after: { username: 'svc', dn: 'cn=svc,ou=users,dc=example,dc=org', rotation_period: 3600 },
  });
}

export function cloud1DestinationCreate(): PlannedChange {
  return change({
    address: 'prod/sync/cloud1',
    type: 'sync_destination_cloud1_sm',
    id: 'sys/sync/destinations/cloud1-sm/prod-sm',
    action: 'create',
    after: {
      name: 'prod-sm',
      region: 'us-east-1',
      role_arn: 'arn:cloud1:iam::123456789012:role/sync',
      granularity: 'secret-path',
      custom_tags: { team: 'payments' },
    },
    sensitive: ['secret_access_key'],
    secrets: [{ field: 'secret_access_key', status: 'changed' }],
  });
}

export function userpassUserCreate(): PlannedChange {
  return change({
    address: 'prod/users/alice',
    type: 'userpass_user',
    id: 'auth/userpass/users/alice',
    action: 'create',
    after: { token_policies: ['default', 'dev'], token_ttl: 3600 },
    sensitive: ['password'],
    secrets: [{ field: 'password', status: 'changed' }],
  });
}

export function userpassUserDrift(): DriftEntry {
  return {
    address: 'prod/users/carol',
    type: 'userpass_user',
    id: 'auth/userpass/users/carol',
    kind: 'changed',
    before: { token_ttl: 3600, token_policies: ['default'] },
    after: { token_ttl: 7200, token_policies: ['default'] },
    fields: [{ field: 'token_ttl', applied: 3600, live: 7200 }],
  };
}

export function ldapDynamicRoleDeleted(): DriftEntry {
  return {
    address: 'prod/ldap/dyn',
    type: 'ldap_dynamic_role',
    id: 'ldap/role/dyn',
    kind: 'deleted',
    before: { default_ttl: 3600, max_ttl: 86400, username_template: 'v_{{.RoleName}}_{{random 8}}' },
    after: null,
    fields: [],
  };
}

export function associationOutOfSync(): DriftEntry {
  // The words of this drift kind come from the type's health hook, as in a real plan.
  const problem = getResourceType('sync_association').health({ sync_status: 'PENDING' })!;
  return {
    address: 'prod/sync/db-assoc',
    type: 'sync_association',
    id: 'sys/sync/destinations/cloud1-sm/prod-sm/associations/secret/db',
    kind: 'out_of_sync',
    before: { mount: 'secret', secret_name: 'db', sync_status: 'SYNCED' },
    after: { mount: 'secret', secret_name: 'db', sync_status: 'PENDING' },
    fields: [],
    detail: problem.status,
    health: { headline: problem.headline, label: problem.label },
  };
}

/** A plan creating `count` userpass users, for the size tests. */
export function largePlan(count: number): Plan {
  const changes: PlannedChange[] = [];
  for (let i = 0; i < count; i += 1) {
    const name = `user-${String(i).padStart(4, '0')}`;
    changes.push(
      change({
        address: `prod/users/${name}`,
        type: 'userpass_user',
        id: `auth/userpass/users/${name}`,
        action: 'create',
        after: { token_policies: ['default', 'team-payments'], token_ttl: 3600, token_max_ttl: 86400 },
        sensitive: ['password'],
        secrets: [{ field: 'password', status: 'changed' }],
      }),
    );
  }
  return emptyPlan({ changes });
}
