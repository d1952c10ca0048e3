/**
 * Each rule of the built-in `recommended` pack, on a case that fires and one that does not, over the resource
 * view policies really get (every field present, null when absent, secrets as `(sensitive)`).
 */
import type { PlannedChange } from '../../../src/engine/plan/plan';
import { RECOMMENDED_POLICIES } from '../../../src/policy/recommended';
import { policyResourceOf } from '../../../src/engine/policy/resource-view';
import type { PolicyResource } from '../../../src/policy/policy';

function resourceOf(type: string, spec: Record<string, unknown>, secretFields: string[] = []): PolicyResource {
  const change: PlannedChange = {
    address: `prod/${type}`, type, id: 'x', action: 'create', reasons: [], before: null, after: spec, sensitive: secretFields,
    replacePaths: [], fieldChanges: [], secrets: [],
  };
  return policyResourceOf('prod', change, { address: change.address, type, spec, secretFields }, undefined);
}

async function violations(id: string, resource: PolicyResource): Promise<string[]> {
  const policy = RECOMMENDED_POLICIES.find((candidate) => candidate.id === id);
  if (!policy) throw new Error(`no recommended policy ${id}`);
  if (policy.resourceTypes && !policy.resourceTypes.includes(resource.type)) return [];
  return ((await policy.check(resource)) ?? []).map((violation) => `${violation.field ?? ''}: ${violation.message}`);
}

const USER = { username: 'ci', token_ttl: '1h', token_max_ttl: '24h', token_bound_cidrs: ['10.0.0.0/8'] };
const LDAP = { binddn: 'cn=admin', url: 'ldaps://dir.example.org' };
const CASES: { id: string; fires: PolicyResource; passes: PolicyResource }[] = [
  { id: 'userpass-token-ttl', fires: resourceOf('userpass_user', { ...USER, token_ttl: '48h' }), passes: resourceOf('userpass_user', USER) },
  { id: 'userpass-token-max-ttl', fires: resourceOf('userpass_user', { ...USER, token_max_ttl: undefined }), passes: resourceOf('userpass_user', USER) },
  { id: 'userpass-token-bound-cidrs', fires: resourceOf('userpass_user', { ...USER, token_bound_cidrs: [] }), passes: resourceOf('userpass_user', USER) },
  { id: 'userpass-no-periodic-tokens', fires: resourceOf('userpass_user', { ...USER, token_period: '1h' }), passes: resourceOf('userpass_user', USER) },
  {
    id: 'ldap-static-role-rotation',
    fires: resourceOf('ldap_static_role', { mount: 'ldap', name: 'svc', username: 'svc', rotation_period: 45 * 86400 }),
    passes: resourceOf('ldap_static_role', { mount: 'ldap', name: 'svc', username: 'svc', rotation_period: '24h' }),
  },
  {
    id: 'cloud-root-password-ttl',
    // Unset: the service's default (about 6 months) applies.
    fires: resourceOf('cloud_secret_backend', { path: 'cloud', subscription_id: 's', tenant_id: 't', client_id: 'c' }, ['client_secret']),
    passes: resourceOf('cloud_secret_backend', { path: 'cloud', subscription_id: 's', tenant_id: 't', client_id: 'c', root_password_ttl: 30 * 86400 }, ['client_secret']),
  },
  {
    id: 'ldap-library-check-out-limit',
    fires: resourceOf('ldap_library_set', { mount: 'ldap', name: 'pool', service_account_names: ['a'], max_ttl: '72h' }),
    passes: resourceOf('ldap_library_set', { mount: 'ldap', name: 'pool', service_account_names: ['a'] }),
  },
  {
    id: 'ldap-library-check-in-enforcement',
    fires: resourceOf('ldap_library_set', { mount: 'ldap', name: 'pool', service_account_names: ['a'], disable_check_in_enforcement: true }),
    passes: resourceOf('ldap_library_set', { mount: 'ldap', name: 'pool', service_account_names: ['a'], disable_check_in_enforcement: false }),
  },
  {
    id: 'ldap-tls',
    fires: resourceOf('ldap_secret_backend', { ...LDAP, url: 'ldaps://a.example.org,ldap://b.example.org' }, ['bindpass']),
    passes: resourceOf('ldap_secret_backend', { ...LDAP, url: 'ldap://a.example.org', starttls: true }, ['bindpass']),
  },
  {
    id: 'ldap-tls-verified',
    fires: resourceOf('ldap_secret_backend', { ...LDAP, insecure_tls: true }, ['bindpass']),
    passes: resourceOf('ldap_secret_backend', LDAP, ['bindpass']),
  },
  {
    id: 'repohost-destination-app',
    fires: resourceOf('sync_destination_repohost', { name: 'gh', repository_owner: 'o', repository_name: 'r' }, ['access_token']),
    passes: resourceOf('sync_destination_repohost', { name: 'gh', repository_owner: 'o', repository_name: 'r', app_name: 'app', installation_id: '1' }),
  },
  {
    id: 'cloud1-destination-role',
    fires: resourceOf('sync_destination_cloud1_sm', { name: 'aws', access_key_id: 'AKIA', region: 'us-east-1' }, ['secret_access_key']),
    passes: resourceOf('sync_destination_cloud1_sm', { name: 'aws', access_key_id: 'AKIA', region: 'us-east-1', role_arn: 'arn:role/sync' }, ['secret_access_key']),
  },
  {
    id: 'cloud2-destination-client-secret',
    fires: resourceOf('sync_destination_cloud2_kv', { name: 'kv', key_vault_uri: 'https://v', client_id: 'c', tenant_id: 't' }, ['client_secret']),
    passes: resourceOf('sync_destination_cloud2_kv', { name: 'kv', key_vault_uri: 'https://v', tenant_id: 't' }),
  },
  {
    id: 'cloud-backend-workload-identity',
    fires: resourceOf('cloud_secret_backend', { path: 'cloud', subscription_id: 's', tenant_id: 't', client_id: 'c' }, ['client_secret']),
    passes: resourceOf('cloud_secret_backend', { path: 'cloud', subscription_id: 's', tenant_id: 't', client_id: 'c', identity_token_audience: 'api://x' }),
  },
  {
    id: 'no-deprecated-fields',
    fires: resourceOf('userpass_user', { ...USER, policies: ['admin'] }),
    passes: resourceOf('userpass_user', { ...USER, token_policies: ['admin'] }),
  },
  { id: 'sync-enabled', fires: resourceOf('sync_config', { disabled: true }), passes: resourceOf('sync_config', { disabled: false }) },
];

test('the pack has at least ten rules, each with an id, a one-line rationale and a default enforcement, and a case here', () => {
  expect(RECOMMENDED_POLICIES.length).toBeGreaterThanOrEqual(10);
  for (const policy of RECOMMENDED_POLICIES) {
    expect(policy.description).not.toContain('\n');
    expect(['advisory', 'mandatory']).toContain(policy.enforcement);
  }
  expect(CASES.map((entry) => entry.id).sort()).toEqual(RECOMMENDED_POLICIES.map((policy) => policy.id).sort());
});

test.each(CASES)('$id fires on the bad case and passes the good one', async ({ id, fires, passes }) => {
  const fired = await violations(id, fires);
  expect(fired.length).toBeGreaterThan(0);
  expect(fired.join('\n')).not.toMatch(/undefined|\[object/);
  expect(await violations(id, passes)).toEqual([]);
});

test('a removed construct (nothing desired) is judged by no rule', async () => {
  const change: PlannedChange = {
    address: 'prod/u', type: 'userpass_user', id: 'auth/userpass/users/u', action: 'delete', reasons: [], before: { username: 'u', token_ttl: 0 },
    after: null, sensitive: [], replacePaths: [], fieldChanges: [], secrets: [],
  };
  const resource = policyResourceOf('prod', change, undefined, undefined);
  for (const policy of RECOMMENDED_POLICIES) expect([policy.id, (await policy.check(resource)) ?? []]).toEqual([policy.id, []]);
});

test('the view shows every field (null when absent) and secret fields only as (sensitive)', () => {
  const resource = resourceOf('userpass_user', { username: 'ci', token_ttl: '1h' }, ['password']);
  expect(resource.desired).toMatchObject({ username: 'ci', token_ttl: 3600, token_max_ttl: null, password: '(sensitive)', password_hash: null });
  expect(resource.action).toEqual(['create']);
  expect(Object.isFrozen(resource.desired)).toBe(true);
});
