import {
  ADMIN_DN,
  ADMIN_PASSWORD,
  DIGITS_POLICY,
  USERS_DN,
  configure,
  entryPassword,
  loginToken,
  multiErrorBody,
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

describe('directory engine config', () => {
  it('reads 404 with no errors before a config is written', async () => {
    expect(await fixture.request('GET', 'ldap/config')).toEqual({ status: 404, body: { errors: [] } });
  });

  it('writes with 204 and reads back defaults, without bindpass or the client key pair', async () => {
    const written = await fixture.request('POST', 'ldap/config', {
      binddn: ADMIN_DN,
      bindpass: ADMIN_PASSWORD,
      client_tls_cert: 'CERT',
      client_tls_key: 'KEY',
    });
    expect(written.status).toBe(204);
    const read = await fixture.request('GET', 'ldap/config');
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      binddn: ADMIN_DN,
      case_sensitive_names: false,
      certificate: '',
      connection_timeout: 30,
      insecure_tls: false,
      request_timeout: 90,
      schema: 'openldap',
      skip_static_role_import_rotation: false,
      starttls: false,
      tls_max_version: 'tls12',
      tls_min_version: 'tls12',
      upndomain: '',
      url: 'ldap://127.0.0.1',
      userattr: 'cn',
      userdn: '',
    });
  });

  it('rejects a first write without binddn or bindpass with 400', async () => {
    const noDn = await fixture.request('POST', 'ldap/config', { bindpass: 'x' });
    expect(noDn.status).toBe(400);
    expect(noDn.body.errors[0]).toMatch(/missing binddn/);
    const noPass = await fixture.request('POST', 'ldap/config', { binddn: ADMIN_DN });
    expect(noPass.status).toBe(400);
    expect(noPass.body.errors[0]).toMatch(/missing bindpass/);
  });

  it('rejects an unknown schema with 400 and defaults userattr by schema', async () => {
    const bad = await fixture.request('POST', 'ldap/config', { binddn: ADMIN_DN, bindpass: 'x', schema: 'novell' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toBe('invalid schema "novell": must be one of openldap, ad, racf');
    await configure(fixture, { schema: 'ad' });
    expect((await fixture.request('GET', 'ldap/config')).body.data.userattr).toBe('userPrincipalName');
    await configure(fixture, { schema: 'racf' });
    expect((await fixture.request('GET', 'ldap/config')).body.data.userattr).toBe('racfid');
    await configure(fixture, { userattr: 'uid' });
    expect((await fixture.request('GET', 'ldap/config')).body.data.userattr).toBe('uid');
  });

  it('rejects length together with password_policy with a 500 multierror', async () => {
    const both = await fixture.request('POST', 'ldap/config', {
      binddn: ADMIN_DN,
      bindpass: ADMIN_PASSWORD,
      length: 20,
      password_policy: 'strong',
    });
    expect(both).toEqual({ status: 500, body: multiErrorBody("cannot set both 'password_policy' and 'length'") });
  });

  it('merges updates, converts durations to seconds and shows length or password_policy only when set', async () => {
    await configure(fixture, { request_timeout: '2m', connection_timeout: 10, length: 20, url: 'ldaps://dir:636' });
    await fixture.request('POST', 'ldap/config', { starttls: true, skip_static_role_import_rotation: 'true' });
    const data = (await fixture.request('GET', 'ldap/config')).body.data;
    expect(data).toMatchObject({
      binddn: ADMIN_DN,
      userdn: USERS_DN,
      request_timeout: 120,
      connection_timeout: 10,
      length: 20,
      url: 'ldaps://dir:636',
      starttls: true,
      skip_static_role_import_rotation: true,
    });
    expect(data).not.toHaveProperty('password_policy');
    expect(data).not.toHaveProperty('bindpass');

    await fixture.request('POST', 'ldap/config', { length: 0, password_policy: 'strong' });
    const switched = (await fixture.request('GET', 'ldap/config')).body.data;
    expect(switched.password_policy).toBe('strong');
    expect(switched).not.toHaveProperty('length');
  });

  it('deletes with 204, after which reads are 404', async () => {
    await configure(fixture);
    expect((await fixture.request('DELETE', 'ldap/config')).status).toBe(204);
    expect((await fixture.request('GET', 'ldap/config')).status).toBe(404);
  });

  it('refuses configuration changes from a login token with 403', async () => {
    const token = await loginToken(fixture, 'reader');
    const response = await fixture.request('POST', 'ldap/config', { binddn: ADMIN_DN, bindpass: 'x' }, token);
    expect(response.status).toBe(403);
  });

  it('answers an unknown subpath with 404 unsupported path and a wrong method with 405', async () => {
    expect(await fixture.request('GET', 'ldap/nothing-here')).toEqual({ status: 404, body: { errors: ['unsupported path'] } });
    expect(await fixture.request('DELETE', 'ldap/rotate-root')).toEqual({ status: 405, body: { errors: ['unsupported operation'] } });
    expect(await fixture.request('GET', 'ldap/rotate-root')).toEqual({ status: 405, body: { errors: ['unsupported operation'] } });
  });
});

describe('directory engine rotate-root and binding', () => {
  it('rotates the bind password on the binddn entry and keeps it only in the engine', async () => {
    await configure(fixture);
    expect((await fixture.request('POST', 'ldap/rotate-root')).status).toBe(204);
    const newPassword = entryPassword(fixture, ADMIN_DN);
    expect(newPassword).toMatch(/^[A-Za-z0-9]{64}$/);
    const state = fixture.server.inspectMount('ldap') as { config: { bindpass: string } };
    expect(state.config.bindpass).toBe(newPassword);
    expect(JSON.stringify((await fixture.request('GET', 'ldap/config')).body)).not.toContain(newPassword as string);
  });

  it('generates passwords of the configured length', async () => {
    await configure(fixture, { length: 12 });
    await fixture.request('POST', 'ldap/rotate-root');
    expect(entryPassword(fixture, ADMIN_DN)).toMatch(/^[A-Za-z0-9]{12}$/);
  });

  it('fails an operation with the LDAP error after the stale bindpass is written back', async () => {
    await configure(fixture);
    await fixture.request('POST', 'ldap/rotate-root');
    await fixture.request('POST', 'ldap/config', { bindpass: ADMIN_PASSWORD });
    const response = await fixture.request('POST', 'ldap/rotate-root');
    expect(response).toEqual({
      status: 500,
      body: { errors: [`LDAP Result Code 49 "Invalid Credentials": bind as ${ADMIN_DN} failed`] },
    });
    const role = await fixture.request('POST', 'ldap/static-role/app', { username: 'alice', rotation_period: '1h' });
    expect(role.status).toBe(500);
    expect(role.body.errors[0]).toMatch(/LDAP Result Code 49/);
  });

  it('fails to bind as a binddn that is not in the directory', async () => {
    await configure(fixture, { binddn: 'cn=ghost,dc=ldaptest,dc=net' });
    const response = await fixture.request('POST', 'ldap/rotate-root');
    expect(response.status).toBe(500);
    expect(response.body.errors[0]).toBe('LDAP Result Code 49 "Invalid Credentials": bind as cn=ghost,dc=ldaptest,dc=net failed');
  });

  it('rejects rotate-root without a config with 400', async () => {
    const response = await fixture.request('POST', 'ldap/rotate-root');
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatch(/has no configuration: write ldap\/config first/);
  });

  it('generates passwords from the named password policy', async () => {
    await configure(fixture, { password_policy: DIGITS_POLICY });
    expect((await fixture.request('POST', 'ldap/rotate-root')).status).toBe(204);
    expect(entryPassword(fixture, ADMIN_DN)).toMatch(/^[0-9]{12}$/);
  });

  it('fails with 500 only when a password is generated from an unknown password policy', async () => {
    await configure(fixture, { password_policy: 'missing-policy' });
    const response = await fixture.request('POST', 'ldap/rotate-root');
    expect(response).toEqual({
      status: 500,
      body: multiErrorBody('unable to generate password: password policy "missing-policy" does not exist'),
    });
    expect(entryPassword(fixture, ADMIN_DN)).toBe(ADMIN_PASSWORD);
  });
});
