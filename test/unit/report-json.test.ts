import { renderJson, stackReport } from '../../src/report';
import {
  change,
  emptyPlan,
  fullPlan,
  ldapStaticRoleReplace,
  userpassUserCreate,
} from './report-plan-fixture';

const TOP_LEVEL_KEYS = ['format_version', 'resource_changes', 'resource_drift', 'stack', 'summary'];
const CHANGE_KEYS = ['actions', 'address', 'after', 'before', 'id', 'replace_paths', 'sensitive', 'type'];
const DRIFT_KEYS = ['address', 'after', 'before', 'id', 'kind', 'type'];

function parse(text: string): any {
  return JSON.parse(text);
}

describe('renderJson', () => {
  it('writes valid JSON with exactly the interface.md keys at every level', () => {
    const doc = parse(renderJson([stackReport(fullPlan())]));

    expect(Object.keys(doc).sort()).toEqual(TOP_LEVEL_KEYS);
    expect(doc.format_version).toBe('1.0');
    expect(doc.stack).toBe('prod');
    for (const entry of doc.resource_changes) {
      const expected = entry.address === 'prod/ldap/app-role'
        ? [...CHANGE_KEYS, 'action_reason'].sort()
        : CHANGE_KEYS;
      expect(Object.keys(entry).sort()).toEqual(expected);
    }
    for (const entry of doc.resource_drift) expect(Object.keys(entry).sort()).toEqual(DRIFT_KEYS);
    expect(doc.summary).toEqual({ create: 3, update: 1, replace: 1, delete: 1, forget: 0, no_op: 2, drifted: 3 });
  });

  it('maps each plan action to terraform action lists, a replacement being delete then create', () => {
    const doc = parse(renderJson([stackReport(fullPlan())]));
    const actions = Object.fromEntries(doc.resource_changes.map((c: any) => [c.address, c.actions]));

    expect(actions).toEqual({
      'prod/cloud/backend': ['no-op'],
      'prod/github/ci-app': ['no-op'],
      'prod/ldap/backend': ['update'],
      'prod/ldap/old-set': ['delete'],
      'prod/ldap/app-role': ['delete', 'create'],
      'prod/ldap/svc-role': ['create'],
      'prod/sync/cloud1': ['create'],
      'prod/users/alice': ['create'],
    });
  });

  it('keeps plan order and writes a replacement in full: reason, before, after, sensitive and replace paths', () => {
    const doc = parse(renderJson([stackReport(emptyPlan({ changes: [ldapStaticRoleReplace(), userpassUserCreate()] }))]));

    expect(doc.resource_changes).toEqual([
      {
        address: 'prod/ldap/app-role',
        type: 'ldap_static_role',
        id: 'ldap/static-role/app',
        actions: ['delete', 'create'],
        action_reason: 'username cannot change on an existing object',
        before: { username: 'app', dn: 'cn=app,ou=users,dc=example,dc=org', rotation_period: 86400 },
        after: { username: 'app2', dn: 'cn=app,ou=users,dc=example,dc=org', rotation_period: 86400 },
        sensitive: [],
        replace_paths: [['username']],
      },
      {
        address: 'prod/users/alice',
        type: 'userpass_user',
        id: 'auth/userpass/users/alice',
        actions: ['create'],
        before: null,
        after: { token_policies: ['default', 'dev'], token_ttl: 3600 },
        sensitive: ['password'],
        replace_paths: [],
      },
    ]);
    expect(doc.summary).toEqual({ create: 1, update: 0, replace: 1, delete: 0, forget: 0, no_op: 0, drifted: 0 });
  });

  it('writes each drift kind with the last applied attributes as before and the live ones as after', () => {
    const doc = parse(renderJson([stackReport(fullPlan())]));

    expect(doc.resource_drift).toEqual([
      {
        address: 'prod/users/carol',
        type: 'userpass_user',
        id: 'auth/userpass/users/carol',
        kind: 'changed',
        before: { token_ttl: 3600, token_policies: ['default'] },
        after: { token_ttl: 7200, token_policies: ['default'] },
      },
      {
        address: 'prod/ldap/dyn',
        type: 'ldap_dynamic_role',
        id: 'ldap/role/dyn',
        kind: 'deleted',
        before: { default_ttl: 3600, max_ttl: 86400, username_template: 'v_{{.RoleName}}_{{random 8}}' },
        after: null,
      },
      {
        address: 'prod/sync/db-assoc',
        type: 'sync_association',
        id: 'sys/sync/destinations/cloud1-sm/prod-sm/associations/secret/db',
        kind: 'out_of_sync',
        before: { mount: 'secret', secret_name: 'db', sync_status: 'SYNCED' },
        after: { mount: 'secret', secret_name: 'db', sync_status: 'PENDING' },
      },
    ]);
  });

  it('never writes a value for a secret field, even if one slipped into before or after', () => {
    const leaky = change({
      address: 'prod/sync/cloud1',
      type: 'sync_destination_cloud1_sm',
      id: 'sys/sync/destinations/cloud1-sm/prod-sm',
      action: 'update',
      before: { region: 'us-east-1', secret_access_key: 'OLD-SECRET-KEY-123' },
      after: { region: 'us-west-2', secret_access_key: 'NEW-SECRET-KEY-456', access_key_id: 'AKIA-LEAK' },
      sensitive: ['secret_access_key'],
      secrets: [
        { field: 'secret_access_key', status: 'changed' },
        { field: 'access_key_id', status: 'unverifiable' },
      ],
    });
    const text = renderJson([stackReport(emptyPlan({ changes: [leaky] }))]);
    const doc = parse(text);

    expect(text).not.toMatch(/SECRET-KEY|AKIA-LEAK/);
    expect(doc.resource_changes[0].before).toEqual({ region: 'us-east-1' });
    expect(doc.resource_changes[0].after).toEqual({ region: 'us-west-2' });
    expect(doc.resource_changes[0].sensitive).toEqual(['secret_access_key']);
  });

  it('writes an empty plan with empty lists and zero counts, ending with a newline', () => {
    const text = renderJson([stackReport(emptyPlan({ stack: 'staging' }))]);

    expect(text.endsWith('}\n')).toBe(true);
    expect(parse(text)).toEqual({
      format_version: '1.0',
      stack: 'staging',
      resource_changes: [],
      resource_drift: [],
      summary: { create: 0, update: 0, replace: 0, delete: 0, forget: 0, no_op: 0, drifted: 0 },
    });
  });

  it('gives previous_address to a resource whose construct id changed, and only to it', () => {
    const plan = emptyPlan({
      changes: [
        change({ address: 'prod/users/new', previousAddress: 'prod/users/old', type: 'userpass_user', id: 'auth/userpass/users/a', action: 'no-op', before: { token_ttl: 3600 }, after: { token_ttl: 3600 } }),
        userpassUserCreate(),
      ],
    });
    const json = parse(renderJson([stackReport(plan)]));
    expect(json.resource_changes[0]).toMatchObject({ address: 'prod/users/new', previous_address: 'prod/users/old', actions: ['no-op'] });
    expect(json.resource_changes[1].previous_address).toBeUndefined();
  });
});

