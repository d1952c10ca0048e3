// The operations of service-api.md end to end on one dev server (issue 13): rotate-root of both engines,
// cloud creds, rotate-role and static-cred, dynamic creds, library check-out / check-in / forced check-in /
// status, userpass login. The areas' own tests cover each rule; these check what the document says across
// operations, and that the request log never holds a credential value the server returned or received.
import { ADMIN_DN, ADMIN_PASSWORD, START_MS, USERS_DN, accountDn, configure, entryPassword, loginToken, startLdapFixture, type LdapFixture } from './ldap-fixture';

let fixture: LdapFixture;
beforeEach(async () => {
  fixture = await startLdapFixture();
  await configure(fixture);
});
afterEach(() => fixture.close());

const iso = (ms: number) => new Date(ms).toISOString();

test('rotate-role sets a new password and moves last_service_rotation, last_password and ttl', async () => {
  expect((await fixture.request('POST', 'ldap/static-role/app', { username: 'alice', rotation_period: '1h' })).status).toBe(204);
  const created = await fixture.request('GET', 'ldap/static-cred/app');
  expect(created.body.last_service_rotation).toBe(iso(START_MS));

  fixture.clock.advance(20 * 60_000);
  expect((await fixture.request('POST', 'ldap/rotate-role/app')).status).toBe(204);
  const rotatedAt = iso(START_MS + 20 * 60_000);
  const cred = await fixture.request('GET', 'ldap/static-cred/app');
  expect(cred.body).toMatchObject({ last_service_rotation: rotatedAt, last_password: created.body.password, ttl: 3600, rotation_period: 3600 });
  expect(cred.body.password).toBe(entryPassword(fixture, accountDn('alice')));
  expect((await fixture.request('GET', 'ldap/static-role/app')).body.data.last_service_rotation).toBe(rotatedAt);

  // The next automatic rotation counts from the manual one.
  fixture.clock.advance(30 * 60_000);
  expect((await fixture.request('GET', 'ldap/static-cred/app')).body).toMatchObject({ last_service_rotation: rotatedAt, ttl: 1800 });
});

test('after a directory rotate-root the bind password is known only to the server: the old one no longer binds', async () => {
  expect((await fixture.request('POST', 'ldap/rotate-root')).status).toBe(204);
  const rotated = entryPassword(fixture, ADMIN_DN)!;
  expect(rotated).not.toBe(ADMIN_PASSWORD);
  expect(() => fixture.server.directory.bind(ADMIN_DN, ADMIN_PASSWORD)).toThrow();
  const read = await fixture.request('GET', 'ldap/config');
  expect(JSON.stringify(read.body)).not.toContain(rotated);
  // The engine keeps working with the password only it knows.
  expect((await fixture.request('POST', 'ldap/static-role/app', { username: 'bob', rotation_period: '1h' })).status).toBe(204);
});

test('the request log holds no credential value returned or sent by any operation', async () => {
  const secrets: string[] = [];
  const keep = (value: unknown) => {
    expect(typeof value).toBe('string');
    expect((value as string).length).toBeGreaterThan(3);
    secrets.push(value as string);
  };
  const ok = async (method: string, path: string, body?: unknown, token?: string) => {
    const reply = await fixture.request(method, path, body, token);
    if (reply.status >= 300) throw new Error(`${method} ${path}: ${reply.status} ${JSON.stringify(reply.body)}`);
    return reply.body;
  };

  // Cloud engine: config with a root secret, rotate-root, creds.
  await ok('POST', 'sys/mounts/cloud', { type: 'cloud' });
  const rootSecret = 'cloud-root-secret-1';
  keep(rootSecret);
  await ok('POST', 'cloud/config', { subscription_id: 'sub', tenant_id: 'tenant', client_id: 'client', client_secret: rootSecret });
  await ok('POST', 'cloud/roles/reader', { cloud_roles: JSON.stringify([{ role_name: 'Reader', scope: '/subscriptions/sub' }]) });
  await ok('POST', 'cloud/rotate-root');
  keep((fixture.server.inspectMount('cloud') as { config: { client_secret: string } }).config.client_secret);
  keep((await ok('GET', 'cloud/creds/reader')).data.client_secret);

  // Directory engine: rotate-root, static role, dynamic role, library.
  keep(ADMIN_PASSWORD);
  await ok('POST', 'ldap/rotate-root');
  keep(entryPassword(fixture, ADMIN_DN));
  await ok('POST', 'ldap/static-role/app', { username: 'alice', rotation_period: '1h' });
  await ok('POST', 'ldap/rotate-role/app');
  const cred = await ok('GET', 'ldap/static-cred/app');
  keep(cred.password);
  keep(cred.last_password);
  const ldif = `dn: cn={{.Username}},${USERS_DN}\nchangetype: add\nobjectClass: person\ncn: {{.Username}}\nsn: x\nuserPassword: {{.Password}}\n`;
  await ok('POST', 'ldap/role/dyn', { creation_ldif: ldif, deletion_ldif: `dn: cn={{.Username}},${USERS_DN}\nchangetype: delete\n` });
  keep((await ok('GET', 'ldap/creds/dyn')).password);
  await ok('POST', 'ldap/library/pool', { service_account_names: ['bob', 'carol'], ttl: '1h' });

  // Userpass login, then the library as that user.
  const borrower = await loginToken(fixture, 'borrower');
  keep(borrower);
  const out = await ok('POST', 'ldap/library/pool/check-out', { ttl: '2h' }, borrower);
  expect(out.lease_duration).toBe(3600);
  keep(out.data.password);
  const status = await ok('GET', 'ldap/library/pool/status');
  expect(status.data[out.data.service_account_name]).toMatchObject({ available: false, borrower_client_token: borrower });
  const second = await ok('POST', 'ldap/library/pool/check-out', {}, borrower);
  keep(second.data.password);
  expect((await ok('POST', 'ldap/library/pool/check-in', { service_account_names: [out.data.service_account_name] }, borrower)).data.check_ins).toEqual([
    out.data.service_account_name,
  ]);
  expect((await ok('POST', 'ldap/library/manage/pool/check-in', { service_account_names: [second.data.service_account_name] })).data.check_ins).toEqual([
    second.data.service_account_name,
  ]);

  const log = JSON.stringify(fixture.server.requestLog);
  expect(fixture.server.requestLog.length).toBeGreaterThan(20);
  for (const secret of secrets) expect(log).not.toContain(secret);
  // The user's password ("pw") is too short to search for as text: no entry has a field holding values.
  expect(fixture.server.requestLog.every((entry) => Object.keys(entry).sort().join() === 'fields,method,path,query,status')).toBe(true);
  expect(fixture.server.requestLog.find((e) => e.path === 'cloud/config' && e.method === 'POST')?.fields).toEqual(['client_id', 'client_secret', 'subscription_id', 'tenant_id']);
});
