import { START_MS, USERS_DN, configure, loginToken, multiErrorBody, startLdapFixture, type LdapFixture } from './ldap-fixture';

let fixture: LdapFixture;
beforeEach(async () => {
  fixture = await startLdapFixture();
});
afterEach(async () => {
  await fixture.close();
});

const CREATION_LDIF = [
  `dn: cn={{.Username}},${USERS_DN}`,
  'changetype: add',
  'objectClass: person',
  'cn: {{.Username}}',
  'sn: {{.RoleName}}',
  'userPassword: {{.Password}}',
  '',
].join('\n');
const DELETION_LDIF = [`dn: cn={{.Username}},${USERS_DN}`, 'changetype: delete', ''].join('\n');
const ROLLBACK_LDIF = DELETION_LDIF;

const writeRole = (name: string, body: Record<string, unknown>) => fixture.request('POST', `ldap/role/${name}`, body);

describe('dynamic role writes', () => {
  it('creates with 204 and reads back the fields with defaults', async () => {
    await configure(fixture);
    expect((await writeRole('dyn', { creation_ldif: CREATION_LDIF, deletion_ldif: DELETION_LDIF })).status).toBe(204);
    const read = await fixture.request('GET', 'ldap/role/dyn');
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      creation_ldif: CREATION_LDIF,
      deletion_ldif: DELETION_LDIF,
      rollback_ldif: '',
      username_template: '',
      default_ttl: 0,
      max_ttl: 0,
    });
  });

  it('stores base64-encoded LDIF decoded', async () => {
    const encoded = Buffer.from(CREATION_LDIF).toString('base64');
    await writeRole('b64', { creation_ldif: encoded, deletion_ldif: Buffer.from(DELETION_LDIF).toString('base64') });
    const data = (await fixture.request('GET', 'ldap/role/b64')).body.data;
    expect(data.creation_ldif).toBe(CREATION_LDIF);
    expect(data.deletion_ldif).toBe(DELETION_LDIF);
  });

  it('rejects a create without creation_ldif or deletion_ldif with a 500 multierror', async () => {
    expect(await writeRole('r', { deletion_ldif: DELETION_LDIF })).toEqual({ status: 500, body: multiErrorBody('missing creation_ldif') });
    expect(await writeRole('r', { creation_ldif: CREATION_LDIF })).toEqual({ status: 500, body: multiErrorBody('missing deletion_ldif') });
    expect((await fixture.request('GET', 'ldap/role/r')).status).toBe(404);
  });

  it('rejects a template or LDIF that does not parse with 500', async () => {
    const badTemplate = await writeRole('r', { creation_ldif: `dn: cn={{.Username},${USERS_DN}\n`, deletion_ldif: DELETION_LDIF });
    expect(badTemplate.status).toBe(500);
    expect(badTemplate.body.errors[0]).toMatch(/^1 error occurred:\n\t\* invalid creation_ldif template: /);
    const badLdif = await writeRole('r', { creation_ldif: CREATION_LDIF, deletion_ldif: 'this is not ldif' });
    expect(badLdif.status).toBe(500);
    expect(badLdif.body.errors[0]).toMatch(/invalid deletion_ldif/);
    const badUsername = await writeRole('r', {
      creation_ldif: CREATION_LDIF,
      deletion_ldif: DELETION_LDIF,
      username_template: '{{nosuchfunction}}',
    });
    expect(badUsername.status).toBe(500);
    expect(badUsername.body.errors[0]).toMatch(/invalid username_template/);
    const unknownField = await writeRole('r', { creation_ldif: `dn: cn={{.Nope}},${USERS_DN}\ncn: x\n`, deletion_ldif: DELETION_LDIF });
    expect(unknownField.status).toBe(500);
    expect(unknownField.body.errors[0]).toMatch(/invalid creation_ldif template: .*Nope/);
    expect((await fixture.request('GET', 'ldap/role/r')).status).toBe(404);
  });

  it('applies a partial update: only the keys sent change, and "" clears a value', async () => {
    await writeRole('dyn', {
      creation_ldif: CREATION_LDIF,
      deletion_ldif: DELETION_LDIF,
      rollback_ldif: ROLLBACK_LDIF,
      username_template: '{{.RoleName}}_{{random 4}}',
      default_ttl: '1h',
      max_ttl: '2h',
    });
    expect((await writeRole('dyn', { default_ttl: 600 })).status).toBe(204);
    let data = (await fixture.request('GET', 'ldap/role/dyn')).body.data;
    expect(data).toEqual({
      creation_ldif: CREATION_LDIF,
      deletion_ldif: DELETION_LDIF,
      rollback_ldif: ROLLBACK_LDIF,
      username_template: '{{.RoleName}}_{{random 4}}',
      default_ttl: 600,
      max_ttl: 7200,
    });
    await writeRole('dyn', { rollback_ldif: '', username_template: '' });
    data = (await fixture.request('GET', 'ldap/role/dyn')).body.data;
    expect(data.rollback_ldif).toBe('');
    expect(data.username_template).toBe('');
    expect(data.default_ttl).toBe(600);
    expect(await writeRole('dyn', { deletion_ldif: '' })).toEqual({ status: 500, body: multiErrorBody('missing deletion_ldif') });
  });

  it('rejects a max_ttl above the mount maximum of 768h with 400', async () => {
    const response = await writeRole('r', { creation_ldif: CREATION_LDIF, deletion_ldif: DELETION_LDIF, max_ttl: '769h' });
    expect(response).toEqual({
      status: 400,
      body: { errors: ["max_ttl of 2768400s exceeds the mount's maximum TTL of 2764800s"] },
    });
    expect((await writeRole('r', { creation_ldif: CREATION_LDIF, deletion_ldif: DELETION_LDIF, max_ttl: '768h' })).status).toBe(204);
  });

  it('lists roles in an envelope and deletes with 204', async () => {
    await writeRole('a', { creation_ldif: CREATION_LDIF, deletion_ldif: DELETION_LDIF });
    await writeRole('group/b', { creation_ldif: CREATION_LDIF, deletion_ldif: DELETION_LDIF });
    const list = await fixture.request('LIST', 'ldap/role');
    expect(list.status).toBe(200);
    expect(list.body.data.keys).toEqual(['a', 'group/']);
    expect((await fixture.request('DELETE', 'ldap/role/a')).status).toBe(204);
    expect((await fixture.request('GET', 'ldap/role/a')).status).toBe(404);
  });
});

describe('dynamic credentials', () => {
  beforeEach(async () => {
    await configure(fixture);
  });

  it('creates the entry from the creation LDIF and returns credentials with the lease at top level', async () => {
    await writeRole('dyn', { creation_ldif: CREATION_LDIF, deletion_ldif: DELETION_LDIF, default_ttl: '30m' });
    const creds = await fixture.request('GET', 'ldap/creds/dyn');
    expect(creds.status).toBe(200);
    const { username, password } = creds.body;
    expect(username).toMatch(new RegExp(`^v_root_dyn_[A-Za-z0-9]{10}_${START_MS / 1000}$`));
    expect(password).toMatch(/^[A-Za-z0-9]{64}$/);
    expect(creds.body.distinguished_names).toEqual([`cn=${username},${USERS_DN}`]);
    expect(creds.body.lease_id).toMatch(/^ldap\/creds\/dyn\/.+/);
    expect(creds.body.lease_duration).toBe(1800);
    expect(creds.body.renewable).toBe(true);
    const entry = fixture.server.directory.get(`cn=${username},${USERS_DN}`);
    expect(entry?.attributes).toMatchObject({ cn: [username], sn: ['dyn'], userPassword: [password] });
  });

  it('defaults the lease to 3600 s and renders a custom username template', async () => {
    await writeRole('dyn', { creation_ldif: CREATION_LDIF, deletion_ldif: DELETION_LDIF, username_template: '{{.RoleName}}-{{random 4 | lowercase}}' });
    const creds = await fixture.request('GET', 'ldap/creds/dyn');
    expect(creds.body.username).toMatch(/^dyn-[a-z0-9]{4}$/);
    expect(creds.body.lease_duration).toBe(3600);
  });

  it('runs the deletion LDIF when the lease expires', async () => {
    await writeRole('dyn', { creation_ldif: CREATION_LDIF, deletion_ldif: DELETION_LDIF, default_ttl: '10m' });
    const creds = await fixture.request('GET', 'ldap/creds/dyn');
    const dn = `cn=${creds.body.username},${USERS_DN}`;
    fixture.clock.advance(9 * 60_000);
    await fixture.request('GET', 'ldap/role/dyn');
    expect(fixture.server.directory.has(dn)).toBe(true);
    fixture.clock.advance(60_000);
    await fixture.request('GET', 'ldap/role/dyn');
    expect(fixture.server.directory.has(dn)).toBe(false);
    expect((fixture.server.inspectMount('ldap') as { leases: object }).leases).toEqual({});
  });

  it('runs every deletion entry even when an earlier one fails', async () => {
    const deletion = `dn: cn=not-there,${USERS_DN}\nchangetype: delete\n\n${DELETION_LDIF}`;
    await writeRole('dyn', { creation_ldif: CREATION_LDIF, deletion_ldif: deletion, default_ttl: 60 });
    const creds = await fixture.request('GET', 'ldap/creds/dyn');
    fixture.clock.advance(60_000);
    await fixture.request('GET', 'ldap/role/dyn');
    expect(fixture.server.directory.has(`cn=${creds.body.username},${USERS_DN}`)).toBe(false);
    const state = fixture.server.inspectMount('ldap') as { backgroundErrors: string[] };
    expect(state.backgroundErrors).toEqual([expect.stringMatching(/LDAP Result Code 32 "No Such Object"/)]);
  });

  it('removes the entries of outstanding credentials when the mount is disabled', async () => {
    await writeRole('dyn', { creation_ldif: CREATION_LDIF, deletion_ldif: DELETION_LDIF });
    const creds = await fixture.request('GET', 'ldap/creds/dyn');
    const dn = `cn=${creds.body.username},${USERS_DN}`;
    expect(fixture.server.directory.has(dn)).toBe(true);
    expect((await fixture.request('DELETE', 'sys/mounts/ldap')).status).toBe(204);
    expect(fixture.server.directory.has(dn)).toBe(false);
  });

  it('caps the lease at max_ttl', async () => {
    await writeRole('dyn', { creation_ldif: CREATION_LDIF, deletion_ldif: DELETION_LDIF, default_ttl: '2h', max_ttl: '30m' });
    expect((await fixture.request('GET', 'ldap/creds/dyn')).body.lease_duration).toBe(1800);
  });

  it('stops at the first failing creation entry, runs the rollback LDIF and answers 500', async () => {
    const failing = `dn: cn=missing-group,${USERS_DN}\nchangetype: modify\nadd: member\nmember: cn={{.Username}},${USERS_DN}\n-\n`;
    const never = `dn: cn=never-{{.Username}},${USERS_DN}\nchangetype: add\ncn: never\n`;
    const creation = `${CREATION_LDIF}\n${failing}\n${never}`;
    await writeRole('dyn', { creation_ldif: creation, deletion_ldif: DELETION_LDIF, rollback_ldif: ROLLBACK_LDIF });
    const before = fixture.server.directory.all().length;
    const creds = await fixture.request('GET', 'ldap/creds/dyn');
    expect(creds.status).toBe(500);
    expect(creds.body.errors[0]).toMatch(/^1 error occurred:\n\t\* failed to create entries from creation_ldif: LDAP Result Code 32/);
    expect(fixture.server.directory.all().length).toBe(before);
    expect((fixture.server.inspectMount('ldap') as { leases: object }).leases).toEqual({});
  });

  it('leaves the entries created before the failure in place when there is no rollback LDIF', async () => {
    const failing = `dn: cn=missing-group,${USERS_DN}\nchangetype: modify\nadd: member\nmember: x\n-\n`;
    await writeRole('dyn', { creation_ldif: `${CREATION_LDIF}\n${failing}`, deletion_ldif: DELETION_LDIF });
    const before = fixture.server.directory.all().length;
    expect((await fixture.request('GET', 'ldap/creds/dyn')).status).toBe(500);
    expect(fixture.server.directory.all().length).toBe(before + 1);
  });

  it('answers 404 for an unknown role', async () => {
    expect(await fixture.request('GET', 'ldap/creds/ghost')).toEqual({ status: 404, body: { errors: [] } });
  });

  it('issues credentials to a login token, using its display name', async () => {
    await writeRole('dyn', { creation_ldif: CREATION_LDIF, deletion_ldif: DELETION_LDIF });
    const token = await loginToken(fixture, 'app-user');
    const creds = await fixture.request('GET', 'ldap/creds/dyn', undefined, token);
    expect(creds.status).toBe(200);
    expect(creds.body.username).toMatch(/^v_userpass-app-user_dyn_/);
    expect(fixture.server.directory.has(`cn=${creds.body.username},${USERS_DN}`)).toBe(true);
  });

  it('fails with the LDAP error when the bind password is stale', async () => {
    await writeRole('dyn', { creation_ldif: CREATION_LDIF, deletion_ldif: DELETION_LDIF });
    await fixture.request('POST', 'ldap/rotate-root');
    await fixture.request('POST', 'ldap/config', { bindpass: 'admin-pass' });
    const creds = await fixture.request('GET', 'ldap/creds/dyn');
    expect(creds.status).toBe(500);
    expect(creds.body.errors[0]).toMatch(/LDAP Result Code 49 "Invalid Credentials"/);
  });
});
