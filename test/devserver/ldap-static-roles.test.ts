import {
  START_MS,
  accountDn,
  configure,
  entryPassword,
  loginToken,
  startLdapFixture,
  type LdapFixture,
} from './ldap-fixture';

let fixture: LdapFixture;
beforeEach(async () => {
  fixture = await startLdapFixture();
});
afterEach(async () => {
  await fixture.close();
});

const createRole = (name: string, body: Record<string, unknown>) => fixture.request('POST', `ldap/static-role/${name}`, body);

describe('static role writes', () => {
  it('creates with 204, rotating the entry password on import', async () => {
    await configure(fixture);
    expect((await createRole('app', { username: 'alice', rotation_period: '1h' })).status).toBe(204);
    const password = entryPassword(fixture, accountDn('alice'));
    expect(password).toMatch(/^[A-Za-z0-9]{64}$/);
    const read = await fixture.request('GET', 'ldap/static-role/app');
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      dn: '',
      username: 'alice',
      rotation_period: 3600,
      last_service_rotation: new Date(START_MS).toISOString(),
    });
    const cred = await fixture.request('GET', 'ldap/static-cred/app');
    expect(cred).toEqual({
      status: 200,
      body: {
        dn: accountDn('alice'),
        last_service_rotation: new Date(START_MS).toISOString(),
        password,
        last_password: '',
        rotation_period: 3600,
        ttl: 3600,
        username: 'alice',
      },
    });
  });

  it('skips the import rotation when asked, leaving the password empty until the first rotation', async () => {
    await configure(fixture);
    expect((await createRole('quiet', { username: 'bob', rotation_period: 60, skip_import_rotation: true })).status).toBe(204);
    expect(entryPassword(fixture, accountDn('bob'))).toBe('bob-initial');
    const read = await fixture.request('GET', 'ldap/static-role/quiet');
    expect(read.body.data).toEqual({ dn: '', username: 'bob', rotation_period: 60 });
    const cred = await fixture.request('GET', 'ldap/static-cred/quiet');
    expect(cred.status).toBe(200);
    expect(cred.body.password).toBe('');
    expect(cred.body.ttl).toBe(60);
  });

  it('takes the config default skip_static_role_import_rotation, overridden by the role value', async () => {
    await configure(fixture, { skip_static_role_import_rotation: true });
    await createRole('skipped', { username: 'bob', rotation_period: '1h' });
    expect(entryPassword(fixture, accountDn('bob'))).toBe('bob-initial');
    await createRole('rotated', { username: 'carol', rotation_period: '1h', skip_import_rotation: false });
    expect(entryPassword(fixture, accountDn('carol'))).not.toBe('carol-initial');
  });

  it('finds the entry by dn when given', async () => {
    await configure(fixture);
    expect((await createRole('by-dn', { username: 'whatever', dn: accountDn('dave'), rotation_period: '1h' })).status).toBe(204);
    expect(entryPassword(fixture, accountDn('dave'))).not.toBe('dave-initial');
    expect((await fixture.request('GET', 'ldap/static-role/by-dn')).body.data.dn).toBe(accountDn('dave'));
  });

  it('rejects a create without username or rotation_period, or with a period under 5 s, with 400', async () => {
    await configure(fixture);
    const noUser = await createRole('r', { rotation_period: '1h' });
    expect(noUser.status).toBe(400);
    expect(noUser.body.errors[0]).toMatch(/missing username/);
    const noPeriod = await createRole('r', { username: 'alice' });
    expect(noPeriod.status).toBe(400);
    expect(noPeriod.body.errors[0]).toMatch(/missing rotation_period/);
    const short = await createRole('r', { username: 'alice', rotation_period: '4s' });
    expect(short).toEqual({ status: 400, body: { errors: ['rotation_period of 4s is too short: the minimum is 5 seconds'] } });
    expect((await createRole('r', { username: 'alice', rotation_period: '5s' })).status).toBe(204);
  });

  it('rejects a create for an entry missing from the directory with 400', async () => {
    await configure(fixture);
    const missing = await createRole('r', { username: 'nobody', rotation_period: '1h' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toBe(
      'static role "r": no entry found in the directory under "ou=users,dc=ldaptest,dc=net" with cn=nobody',
    );
    const badDn = await createRole('r', { username: 'x', dn: 'cn=nobody,dc=ldaptest,dc=net', rotation_period: '1h' });
    expect(badDn.status).toBe(400);
    expect(badDn.body.errors[0]).toMatch(/no entry with dn "cn=nobody,dc=ldaptest,dc=net"/);
    expect((await fixture.request('GET', 'ldap/static-role/r')).status).toBe(404);
  });

  it('rejects a create without engine config with 400', async () => {
    const response = await createRole('r', { username: 'alice', rotation_period: '1h' });
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatch(/has no configuration/);
  });

  it('on update changes only rotation_period and rejects username, dn or skip_import_rotation changes with 400', async () => {
    await configure(fixture);
    await createRole('app', { username: 'alice', rotation_period: '1h' });
    const user = await createRole('app', { username: 'bob' });
    expect(user).toEqual({ status: 400, body: { errors: ['cannot change username of static role "app" (from "alice" to "bob")'] } });
    const dn = await createRole('app', { dn: accountDn('bob') });
    expect(dn.status).toBe(400);
    expect(dn.body.errors[0]).toMatch(/cannot change dn/);
    const skip = await createRole('app', { skip_import_rotation: true });
    expect(skip).toEqual({
      status: 400,
      body: { errors: ['skip_import_rotation can only be set when static role "app" is created'] },
    });
    expect((await createRole('app', { username: 'alice', rotation_period: '2h' })).status).toBe(204);
    expect((await fixture.request('GET', 'ldap/static-role/app')).body.data.rotation_period).toBe(7200);
  });

  it('lower-cases names and deletes with 204', async () => {
    await configure(fixture);
    await createRole('MyApp', { username: 'alice', rotation_period: '1h' });
    expect((await fixture.request('GET', 'ldap/static-role/myapp')).status).toBe(200);
    expect((await fixture.request('DELETE', 'ldap/static-role/MYAPP')).status).toBe(204);
    expect(await fixture.request('GET', 'ldap/static-role/myapp')).toEqual({ status: 404, body: { errors: [] } });
  });
});

describe('static role listing', () => {
  beforeEach(async () => {
    await configure(fixture);
    for (const name of ['web', 'team/api', 'team/db', 'team/deep/x']) {
      await createRole(name, { username: 'alice', rotation_period: '1h', skip_import_rotation: true });
    }
  });

  it('lists as a bare array with one trailing slash per hierarchy level', async () => {
    expect(await fixture.request('LIST', 'ldap/static-role')).toEqual({ status: 200, body: ['team/', 'web'] });
    expect(await fixture.request('GET', 'ldap/static-role?list=true')).toEqual({ status: 200, body: ['team/', 'web'] });
    expect(await fixture.request('LIST', 'ldap/static-role/team/')).toEqual({ status: 200, body: ['api', 'db', 'deep/'] });
  });

  it('lists on a plain GET of the collection, as the document states', async () => {
    expect(await fixture.request('GET', 'ldap/static-role')).toEqual({ status: 200, body: ['team/', 'web'] });
  });

  it('reads and deletes hierarchical names', async () => {
    expect((await fixture.request('GET', 'ldap/static-role/team/api')).body.data.username).toBe('alice');
    await fixture.request('DELETE', 'ldap/static-role/team/deep/x');
    expect(await fixture.request('LIST', 'ldap/static-role/team')).toEqual({ status: 200, body: ['api', 'db'] });
  });

  it('answers an empty listing with 404 and no errors', async () => {
    expect(await fixture.request('LIST', 'ldap/static-role/none/')).toEqual({ status: 404, body: { errors: [] } });
  });
});

describe('static role rotation', () => {
  it('rotates when the period elapses, keeping the previous password as last_password', async () => {
    await configure(fixture);
    await createRole('app', { username: 'alice', rotation_period: '10m' });
    const first = entryPassword(fixture, accountDn('alice'));
    fixture.clock.advance(9 * 60_000);
    const before = await fixture.request('GET', 'ldap/static-cred/app');
    expect(before.body.password).toBe(first);
    expect(before.body.ttl).toBe(60);

    fixture.clock.advance(60_000);
    const after = await fixture.request('GET', 'ldap/static-cred/app');
    const second = entryPassword(fixture, accountDn('alice'));
    expect(second).not.toBe(first);
    expect(after.body).toMatchObject({
      password: second,
      last_password: first,
      ttl: 600,
      last_service_rotation: new Date(START_MS + 600_000).toISOString(),
    });
  });

  it('rotates a role created with skip_import_rotation once its first period elapses', async () => {
    await configure(fixture);
    await createRole('quiet', { username: 'bob', rotation_period: '30s', skip_import_rotation: true });
    fixture.clock.advance(30_000);
    const cred = await fixture.request('GET', 'ldap/static-cred/quiet');
    expect(cred.body.password).toBe(entryPassword(fixture, accountDn('bob')));
    expect(cred.body.password).not.toBe('bob-initial');
    expect((await fixture.request('GET', 'ldap/static-role/quiet')).body.data.last_service_rotation).toBe(
      new Date(START_MS + 30_000).toISOString(),
    );
  });

  it('reschedules the next rotation from the last one when rotation_period changes', async () => {
    await configure(fixture);
    await createRole('app', { username: 'alice', rotation_period: '1h' });
    fixture.clock.advance(10 * 60_000);
    await createRole('app', { rotation_period: '20m' });
    expect((await fixture.request('GET', 'ldap/static-cred/app')).body.ttl).toBe(600);
    const first = entryPassword(fixture, accountDn('alice'));
    fixture.clock.advance(10 * 60_000);
    expect((await fixture.request('GET', 'ldap/static-cred/app')).body.last_password).toBe(first);
  });

  it('rotates at the new time, not the old one, when rotation_period grows', async () => {
    await configure(fixture);
    await createRole('app', { username: 'alice', rotation_period: '10m' });
    await createRole('app', { rotation_period: '1h' });
    const first = entryPassword(fixture, accountDn('alice'));
    fixture.clock.advance(10 * 60_000);
    expect((await fixture.request('GET', 'ldap/static-cred/app')).body).toMatchObject({ password: first, ttl: 3000 });
    fixture.clock.advance(50 * 60_000);
    expect((await fixture.request('GET', 'ldap/static-cred/app')).body).toMatchObject({ last_password: first, ttl: 3600 });
  });

  it('rotates a role deleted and created again on the schedule of the new role', async () => {
    await configure(fixture);
    await createRole('app', { username: 'alice', rotation_period: '10m' });
    expect((await fixture.request('DELETE', 'ldap/static-role/app')).status).toBe(204);
    fixture.clock.advance(5 * 60_000);
    await createRole('app', { username: 'alice', rotation_period: '1h' });
    const imported = entryPassword(fixture, accountDn('alice'));
    fixture.clock.advance(5 * 60_000);
    expect((await fixture.request('GET', 'ldap/static-cred/app')).body).toMatchObject({ password: imported, ttl: 3300 });
  });

  it('stops rotating a deleted role', async () => {
    await configure(fixture);
    await createRole('app', { username: 'alice', rotation_period: '10m' });
    await fixture.request('DELETE', 'ldap/static-role/app');
    const left = entryPassword(fixture, accountDn('alice'));
    fixture.clock.advance(10 * 60_000);
    expect((await fixture.request('GET', 'ldap/static-role/app')).status).toBe(404);
    expect(entryPassword(fixture, accountDn('alice'))).toBe(left);
    expect((fixture.server.inspectMount('ldap') as { backgroundErrors: string[] }).backgroundErrors).toEqual([]);
  });

  it('retries a failed rotation on every later request until it succeeds', async () => {
    await configure(fixture);
    await createRole('app', { username: 'alice', rotation_period: '10m' });
    fixture.server.directory.delete(accountDn('alice'));
    fixture.clock.advance(10 * 60_000);
    await fixture.request('GET', 'ldap/static-role/app');
    await fixture.request('GET', 'ldap/static-role/app');
    const state = fixture.server.inspectMount('ldap') as { backgroundErrors: string[] };
    expect(state.backgroundErrors).toHaveLength(2);
    fixture.server.directory.add(accountDn('alice'), { cn: ['alice'], userPassword: ['restored'] });
    const cred = await fixture.request('GET', 'ldap/static-cred/app');
    expect(cred.body.password).toBe(entryPassword(fixture, accountDn('alice')));
    expect(cred.body.ttl).toBe(600);
  });

  it('rotates now on rotate-role with 204', async () => {
    await configure(fixture);
    await createRole('app', { username: 'alice', rotation_period: '1h' });
    const first = entryPassword(fixture, accountDn('alice'));
    fixture.clock.advance(1000);
    expect((await fixture.request('POST', 'ldap/rotate-role/app')).status).toBe(204);
    const cred = await fixture.request('GET', 'ldap/static-cred/app');
    expect(cred.body.password).toBe(entryPassword(fixture, accountDn('alice')));
    expect(cred.body.password).not.toBe(first);
    expect(cred.body.last_password).toBe(first);
    expect(cred.body.ttl).toBe(3600);
  });

  it('answers static-cred and rotate-role of an unknown role with 400 unknown role', async () => {
    await configure(fixture);
    expect(await fixture.request('GET', 'ldap/static-cred/ghost')).toEqual({ status: 400, body: { errors: ['unknown role: ghost'] } });
    expect(await fixture.request('POST', 'ldap/rotate-role/ghost')).toEqual({ status: 400, body: { errors: ['unknown role: ghost'] } });
  });

  it('lets a login token read static-cred but not rotate a role', async () => {
    await configure(fixture);
    await createRole('app', { username: 'alice', rotation_period: '1h' });
    const token = await loginToken(fixture, 'app-user');
    const cred = await fixture.request('GET', 'ldap/static-cred/app', undefined, token);
    expect(cred.status).toBe(200);
    expect(cred.body.password).toBe(entryPassword(fixture, accountDn('alice')));
    expect((await fixture.request('POST', 'ldap/rotate-role/app', undefined, token)).status).toBe(403);
  });
});
