/**
 * Masked fields: root credentials are sent only when their desired value changed (a rotate-root done outside is
 * never undone), a secret changed in code is a sensitive update, and imports adopt without re-sending.
 */
import type { TerraformStack } from 'cdktf';
import { AuthMount, CloudSecretBackend, CloudSecretRole, LdapSecretBackend, LdapStaticRole, SecretValue, UserpassUser } from '../../src';
import { apply, importResource, plan } from '../../src';
import { actions, ADMIN_DN, ADMIN_PASSWORD, newStack, startHarness, unwrap, USERS_DN, type Harness } from './engine-harness';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const path = (entry: { path: string }) => entry.path.replace(/^\/+/, '');
const writesTo = (target: string) => h.logSince().filter((entry) => path(entry) === target && entry.method === 'POST');

function ldapStack(url: string, bindpass = ADMIN_PASSWORD, withRole = false): TerraformStack {
  const stack = newStack();
  const backend = new LdapSecretBackend(stack, 'ldap', { binddn: ADMIN_DN, bindpass: SecretValue.unsafePlainText(bindpass), userdn: USERS_DN, url });
  if (withRole) new LdapStaticRole(stack, 'role', { backend, name: 'svc', username: 'svc-a', rotationPeriod: '1h' });
  return stack;
}

test('after a rotate-root outside the code, an unrelated update does not re-send bindpass, and the engine still binds', async () => {
  expect(unwrap(await apply(h.options(ldapStack('ldap://one')))).succeeded).toBe(true);
  const rotated = await h.call('POST', 'ldap/rotate-root');
  expect(rotated.status).toBe(204);

  const planned = unwrap(await plan(h.options(ldapStack('ldap://two', ADMIN_PASSWORD, true))));
  const backend = planned.changes.find((c) => c.address === 'test/ldap')!;
  expect(backend).toMatchObject({ action: 'update', sensitive: [], secrets: [{ field: 'bindpass', status: 'unverifiable' }] });

  h.markLog();
  const result = unwrap(await apply(h.options(ldapStack('ldap://two', ADMIN_PASSWORD, true))));
  expect(result.succeeded).toBe(true);
  const configWrites = writesTo('ldap/config');
  expect(configWrites).toHaveLength(1);
  // The request log keeps field names only, never a body.
  expect(configWrites[0].fields).toContain('url');
  expect(configWrites[0].fields).not.toContain('bindpass');
  expect((await h.call('GET', 'ldap/config')).body.data.url).toBe('ldap://two');
  // The static role was created with a bind using the rotated password (the old one would fail).
  expect((await h.call('GET', 'ldap/static-cred/svc')).status).toBe(200);
});

test('a root credential changed in code is sent, once', async () => {
  unwrap(await apply(h.options(ldapStack('ldap://one'))));
  h.markLog();
  const planned = unwrap(await plan(h.options(ldapStack('ldap://one', 'new-admin-password'))));
  expect(planned.changes.find((c) => c.address === 'test/ldap')).toMatchObject({ action: 'update', sensitive: ['bindpass'], secrets: [{ field: 'bindpass', status: 'changed' }] });
  unwrap(await apply(h.options(ldapStack('ldap://one', 'new-admin-password'))));
  expect(writesTo('ldap/config').map((entry) => entry.fields.includes('bindpass'))).toEqual([true]);
  expect((h.server.inspectMount('ldap') as { config: { bindpass: string } }).config.bindpass).toBe('new-admin-password');
  expect(actions(unwrap(await plan(h.options(ldapStack('ldap://one', 'new-admin-password')))))).toEqual({});
});

test('the cloud client_secret survives a rotate-root and an unrelated update; credentials still issue', async () => {
  const cloudStack = (tenant: string) => {
    const stack = newStack();
    const backend = new CloudSecretBackend(stack, 'cloud', { subscriptionId: 'sub-1', tenantId: tenant, clientId: 'client-1', clientSecret: SecretValue.unsafePlainText('cloud-secret-1') });
    new CloudSecretRole(stack, 'role', { backend, name: 'reader', cloudRoles: [{ scope: '/subscriptions/sub-1', roleName: 'Reader' }] });
    return stack;
  };
  unwrap(await apply(h.options(cloudStack('tenant-1'))));
  expect((await h.call('POST', 'cloud/rotate-root')).status).toBe(204);
  h.markLog();
  expect(unwrap(await apply(h.options(cloudStack('tenant-2')))).succeeded).toBe(true);
  const writes = writesTo('cloud/config');
  expect(writes).toHaveLength(1);
  expect(writes[0].fields).not.toContain('client_secret');
  expect((await h.call('GET', 'cloud/creds/reader')).status).toBe(200);
});

test('a password changed in code is written through the password endpoint, not the user write', async () => {
  const userStack = (password: string) => {
    const stack = newStack();
    const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
    new UserpassUser(stack, 'alice', { mount, username: 'alice', password: SecretValue.unsafePlainText(password), tokenTtl: '1h' });
    return stack;
  };
  unwrap(await apply(h.options(userStack('first-password'))));
  expect(unwrap(await plan(h.options(userStack('first-password')))).changes.find((c) => c.address === 'test/alice'))
    .toMatchObject({ action: 'no-op', secrets: [{ field: 'password', status: 'unverifiable' }] });

  const planned = unwrap(await plan(h.options(userStack('second-password'))));
  expect(planned.changes.find((c) => c.address === 'test/alice')).toMatchObject({ action: 'update', sensitive: ['password'], fieldChanges: [] });
  h.markLog();
  unwrap(await apply(h.options(userStack('second-password'))));
  expect(writesTo('auth/userpass/users/alice')).toHaveLength(0);
  expect(writesTo('auth/userpass/users/alice/password').map((entry) => entry.fields)).toEqual([['password']]);
  const login = await fetch(`${h.server.url}/v1/auth/userpass/login/alice`, { method: 'POST', body: JSON.stringify({ password: 'second-password' }) });
  expect(login.status).toBe(200);
});

test('a fingerprint made with another state key: a root credential is not sent and the plan warns', async () => {
  unwrap(await apply(h.options(ldapStack('ldap://one'))));
  const otherKey = { env: { ...h.env, SECRETFORM_STATE_KEY: 'another-key' } };
  const planned = unwrap(await plan(h.options(ldapStack('ldap://one'), otherKey)));
  expect(planned.changes.find((c) => c.address === 'test/ldap')).toMatchObject({ action: 'no-op', sensitive: [] });
  expect(planned.warnings.join('\n')).toMatch(/test\/ldap: the fingerprint of "bindpass" in state was made with another SECRETFORM_STATE_KEY/);
});

describe('import', () => {
  test('adopts an existing object: no write follows, and the root credential is never re-sent', async () => {
    await h.call('POST', 'sys/mounts/ldap', { type: 'ldap' });
    await h.call('POST', 'ldap/config', { binddn: ADMIN_DN, bindpass: ADMIN_PASSWORD, userdn: USERS_DN, url: 'ldap://one' });
    // The mount is in code too: import it first.
    const stack = () => ldapStack('ldap://one');
    expect(unwrap(await importResource(h.options(stack()), 'test/ldap/mount', 'sys/mounts/ldap'))).toEqual({ address: 'test/ldap/mount', id: 'sys/mounts/ldap', type: 'secrets_mount' });
    expect(unwrap(await importResource(h.options(stack()), 'test/ldap', 'ldap/config'))).toMatchObject({ id: 'ldap/config', type: 'ldap_secret_backend' });
    const state = await h.state();
    expect(state.resources['test/ldap']).toMatchObject({ type: 'ldap_secret_backend', id: 'ldap/config', attributes: { path: 'ldap', url: 'ldap://one', binddn: ADMIN_DN } });
    expect(state.resources['test/ldap'].secrets.bindpass).toMatch(/^hmac-sha256:/);

    const planned = unwrap(await plan(h.options(stack())));
    expect(actions(planned)).toEqual({});
    expect(planned.changes.find((c) => c.address === 'test/ldap')!.secrets).toEqual([{ field: 'bindpass', status: 'unverifiable' }]);
  });

  test('rejects an id of another form, an id the code does not manage there, a missing object and an unknown address', async () => {
    const stack = () => ldapStack('ldap://one');
    const wrongForm = await importResource(h.options(stack()), 'test/ldap', 'ldap/roles/x');
    expect(wrongForm).toMatchObject({ ok: false, error: { code: 'import_invalid' } });
    const otherObject = await importResource(h.options(stack()), 'test/ldap', 'other/config');
    expect(otherObject.ok).toBe(false);
    if (!otherObject.ok) expect(otherObject.error.message).toContain('the code manages ldap/config');
    const missing = await importResource(h.options(stack()), 'test/ldap', 'ldap/config');
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error.message).toContain('does not exist on the service');
    const unknown = await importResource(h.options(stack()), 'test/nope', 'ldap/config');
    expect(unknown).toMatchObject({ ok: false, error: { code: 'address_unknown' } });
  });
});
