import { accountDn, configure, entryPassword, loginToken, startLdapFixture, type LdapFixture } from './ldap-fixture';

let fixture: LdapFixture;
beforeEach(async () => {
  fixture = await startLdapFixture();
});
afterEach(async () => {
  await fixture.close();
});

const writeSet = (name: string, body: Record<string, unknown>) => fixture.request('POST', `ldap/library/${name}`, body);

describe('library set writes', () => {
  beforeEach(async () => {
    await configure(fixture);
  });

  it('creates with 204 and reads a top-level object with defaults', async () => {
    expect((await writeSet('pool', { service_account_names: 'alice, bob' })).status).toBe(204);
    expect(await fixture.request('GET', 'ldap/library/pool')).toEqual({
      status: 200,
      body: { service_account_names: ['alice', 'bob'], ttl: 86400, max_ttl: 86400, disable_check_in_enforcement: false },
    });
  });

  it('accepts a list of names and durations, and merges an update', async () => {
    await writeSet('pool', { service_account_names: ['alice'], ttl: '1h', max_ttl: 0, disable_check_in_enforcement: true });
    await writeSet('pool', { service_account_names: ['alice', 'bob'] });
    expect((await fixture.request('GET', 'ldap/library/pool')).body).toEqual({
      service_account_names: ['alice', 'bob'],
      ttl: 3600,
      max_ttl: 0,
      disable_check_in_enforcement: true,
    });
  });

  it('rejects a set without accounts, or with an account missing from the directory, with 400', async () => {
    expect(await writeSet('pool', {})).toEqual({
      status: 400,
      body: { errors: ['library set "pool" needs at least one account in service_account_names'] },
    });
    const missing = await writeSet('pool', { service_account_names: 'alice,nobody' });
    expect(missing.status).toBe(400);
    expect(missing.body.errors[0]).toBe(
      'library set "pool", account "nobody": no entry found in the directory under "ou=users,dc=ldaptest,dc=net" with cn=nobody',
    );
    expect((await fixture.request('GET', 'ldap/library/pool')).status).toBe(404);
  });

  it('rejects an account that belongs to another set with 400', async () => {
    await writeSet('first', { service_account_names: 'alice' });
    expect(await writeSet('second', { service_account_names: 'bob,alice' })).toEqual({
      status: 400,
      body: { errors: ['account "alice" already belongs to library set "first"'] },
    });
  });

  it('lets another set take an account once its set dropped it or was deleted', async () => {
    await writeSet('first', { service_account_names: 'alice,bob' });
    await writeSet('first', { service_account_names: 'bob' });
    expect((await writeSet('second', { service_account_names: 'alice' })).status).toBe(204);
    expect(await writeSet('first', { service_account_names: 'bob,alice' })).toEqual({
      status: 400,
      body: { errors: ['account "alice" already belongs to library set "second"'] },
    });
    expect((await fixture.request('DELETE', 'ldap/library/first')).status).toBe(204);
    expect((await writeSet('third', { service_account_names: 'bob' })).status).toBe(204);
  });

  it('lists as a bare hierarchical array and deletes with 204', async () => {
    await writeSet('pool', { service_account_names: 'alice' });
    await writeSet('team/a', { service_account_names: 'bob' });
    await writeSet('team/b', { service_account_names: 'carol' });
    expect(await fixture.request('LIST', 'ldap/library')).toEqual({ status: 200, body: ['pool', 'team/'] });
    expect(await fixture.request('LIST', 'ldap/library/team/')).toEqual({ status: 200, body: ['a', 'b'] });
    expect((await fixture.request('GET', 'ldap/library/team/a')).body.service_account_names).toEqual(['bob']);
    expect((await fixture.request('DELETE', 'ldap/library/team/a')).status).toBe(204);
    expect(await fixture.request('LIST', 'ldap/library/team/')).toEqual({ status: 200, body: ['b'] });
  });
});

describe('library set preconditions', () => {
  it('rejects a write without engine config with 400', async () => {
    const response = await writeSet('pool', { service_account_names: 'alice' });
    expect(response.status).toBe(400);
    expect(response.body.errors[0]).toMatch(/has no configuration/);
  });

  it('answers status of an unknown set with 400', async () => {
    await configure(fixture);
    expect(await fixture.request('GET', 'ldap/library/ghost/status')).toEqual({
      status: 400,
      body: { errors: ['unknown library set: ghost'] },
    });
  });
});

describe('library check-out and check-in', () => {
  let alice: string;
  let bob: string;
  beforeEach(async () => {
    await configure(fixture);
    await writeSet('pool', { service_account_names: 'alice,bob', ttl: '1h', max_ttl: '2h' });
    alice = await loginToken(fixture, 'user-a');
    bob = await loginToken(fixture, 'user-b');
  });

  it('checks out a free account with a new password and a lease, and reports the borrower in status', async () => {
    const out = await fixture.request('POST', 'ldap/library/pool/check-out', {}, alice);
    expect(out.status).toBe(200);
    expect(out.body.data).toEqual({ password: entryPassword(fixture, accountDn('alice')), service_account_name: 'alice' });
    expect(out.body.data.password).not.toBe('alice-initial');
    expect(out.body.lease_id).toMatch(/^ldap\/library\/pool\/check-out\/.+/);
    expect(out.body.renewable).toBe(true);
    expect(out.body.lease_duration).toBe(3600);

    const status = await fixture.request('GET', 'ldap/library/pool/status');
    expect(status.status).toBe(200);
    expect(status.body.data).toEqual({
      alice: { available: false, borrower_client_token: alice, borrower_entity_id: expect.any(String) },
      bob: { available: true },
    });
    expect(status.body.data.alice.borrower_entity_id).not.toBe('');
  });

  it('caps the check-out ttl at the set ttl and treats 0 as the set ttl when the set has one', async () => {
    expect((await fixture.request('POST', 'ldap/library/pool/check-out', { ttl: '10m' }, alice)).body.lease_duration).toBe(600);
    expect((await fixture.request('POST', 'ldap/library/pool/check-out', { ttl: '5h' }, alice)).body.lease_duration).toBe(3600);
    await fixture.request('POST', 'ldap/library/manage/pool/check-in', { service_account_names: 'alice,bob' });
    expect((await fixture.request('POST', 'ldap/library/pool/check-out', { ttl: 0 }, alice)).body.lease_duration).toBe(3600);
  });

  it('gives an unlimited check-out when the set ttl and max_ttl are 0', async () => {
    await writeSet('open', { service_account_names: 'carol', ttl: 0, max_ttl: 0 });
    const out = await fixture.request('POST', 'ldap/library/open/check-out', { ttl: 0 }, alice);
    expect(out.body.lease_duration).toBe(0);
    fixture.clock.advance(1000 * 86400 * 30);
    const status = await fixture.request('GET', 'ldap/library/open/status');
    expect(status.body.data.carol.available).toBe(false);
  });

  it('caps a check-out at the set max_ttl, also when ttl is 0, and checks it in when that elapses', async () => {
    await writeSet('capped', { service_account_names: 'carol', ttl: 0, max_ttl: '2h' });
    const out = await fixture.request('POST', 'ldap/library/capped/check-out', { ttl: 0 }, alice);
    expect(out.body.lease_duration).toBe(7200);
    fixture.clock.advance(7200 * 1000 - 1000);
    expect((await fixture.request('GET', 'ldap/library/capped/status')).body.data.carol.available).toBe(false);
    fixture.clock.advance(1000);
    expect((await fixture.request('GET', 'ldap/library/capped/status')).body.data.carol).toEqual({ available: true });
  });

  it('answers check-out of an unknown set with 400', async () => {
    expect(await fixture.request('POST', 'ldap/library/ghost/check-out', {}, alice)).toEqual({
      status: 400,
      body: { errors: ['unknown library set: ghost'] },
    });
  });

  it('rejects a check-in of an account outside the set with 400', async () => {
    expect(await fixture.request('POST', 'ldap/library/pool/check-in', { service_account_names: 'carol' }, alice)).toEqual({
      status: 400,
      body: { errors: ['account "carol" is not in library set "pool"'] },
    });
  });

  it('answers 400 when no account is free', async () => {
    await fixture.request('POST', 'ldap/library/pool/check-out', {}, alice);
    await fixture.request('POST', 'ldap/library/pool/check-out', {}, alice);
    expect(await fixture.request('POST', 'ldap/library/pool/check-out', {}, alice)).toEqual({
      status: 400,
      body: { errors: ['No service accounts available for check-out.'] },
    });
  });

  it('checks in for the borrower, rotating the password, and omits accounts already in', async () => {
    const out = await fixture.request('POST', 'ldap/library/pool/check-out', {}, alice);
    const lent = out.body.data.password;
    const back = await fixture.request('POST', 'ldap/library/pool/check-in', { service_account_names: 'alice' }, alice);
    expect(back.status).toBe(200);
    expect(back.body.data).toEqual({ check_ins: ['alice'] });
    expect(entryPassword(fixture, accountDn('alice'))).not.toBe(lent);
    const again = await fixture.request('POST', 'ldap/library/pool/check-in', { service_account_names: ['alice', 'bob'] }, alice);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ check_ins: [] });
    expect((await fixture.request('GET', 'ldap/library/pool/status')).body.data.alice).toEqual({ available: true });
  });

  it('checks in the only account the caller has out when names are omitted', async () => {
    await fixture.request('POST', 'ldap/library/pool/check-out', {}, alice);
    const back = await fixture.request('POST', 'ldap/library/pool/check-in', {}, alice);
    expect(back.body.data).toEqual({ check_ins: ['alice'] });
  });

  it('accepts a check-in from another token of the same entity', async () => {
    await fixture.request('POST', 'ldap/library/pool/check-out', {}, alice);
    const sameUser = await loginToken(fixture, 'user-a');
    const back = await fixture.request('POST', 'ldap/library/pool/check-in', {}, sameUser);
    expect(back.body.data).toEqual({ check_ins: ['alice'] });
  });

  it('refuses a check-in by a caller that did not check out with 400', async () => {
    await fixture.request('POST', 'ldap/library/pool/check-out', {}, alice);
    const refused = await fixture.request('POST', 'ldap/library/pool/check-in', { service_account_names: 'alice' }, bob);
    expect(refused).toEqual({
      status: 400,
      body: { errors: [`"alice" can't be checked in because it wasn't checked out by the caller`] },
    });
    expect((await fixture.request('GET', 'ldap/library/pool/status')).body.data.alice.available).toBe(false);
  });

  it('allows any caller to check in when enforcement is disabled', async () => {
    await writeSet('pool', { disable_check_in_enforcement: true });
    await fixture.request('POST', 'ldap/library/pool/check-out', {}, alice);
    const back = await fixture.request('POST', 'ldap/library/pool/check-in', { service_account_names: 'alice' }, bob);
    expect(back.body.data).toEqual({ check_ins: ['alice'] });
  });

  it('forces a check-in on the manage path for the root token only', async () => {
    await fixture.request('POST', 'ldap/library/pool/check-out', {}, alice);
    expect((await fixture.request('POST', 'ldap/library/manage/pool/check-in', { service_account_names: 'alice' }, bob)).status).toBe(403);
    const forced = await fixture.request('POST', 'ldap/library/manage/pool/check-in', { service_account_names: 'alice' });
    expect(forced.status).toBe(200);
    expect(forced.body.data).toEqual({ check_ins: ['alice'] });
  });

  it('checks an account back in automatically when its ttl elapses, rotating the password', async () => {
    const out = await fixture.request('POST', 'ldap/library/pool/check-out', { ttl: '10m' }, alice);
    fixture.clock.advance(10 * 60_000 - 1000);
    expect((await fixture.request('GET', 'ldap/library/pool/status')).body.data.alice.available).toBe(false);
    fixture.clock.advance(1000);
    expect((await fixture.request('GET', 'ldap/library/pool/status')).body.data.alice).toEqual({ available: true });
    expect(entryPassword(fixture, accountDn('alice'))).not.toBe(out.body.data.password);
  });

  it('does not check in at an earlier check-out\'s expiry an account checked in and out again', async () => {
    await fixture.request('POST', 'ldap/library/pool/check-out', { ttl: '10m' }, alice);
    await fixture.request('POST', 'ldap/library/pool/check-in', {}, alice);
    const again = await fixture.request('POST', 'ldap/library/pool/check-out', { ttl: '1h' }, alice);
    expect(again.body.data.service_account_name).toBe('alice');
    fixture.clock.advance(10 * 60_000);
    expect((await fixture.request('GET', 'ldap/library/pool/status')).body.data.alice.available).toBe(false);
    fixture.clock.advance(50 * 60_000);
    expect((await fixture.request('GET', 'ldap/library/pool/status')).body.data.alice).toEqual({ available: true });
  });

  it('leaves the password of an account checked in by hand alone when its check-out would have expired', async () => {
    await fixture.request('POST', 'ldap/library/pool/check-out', { ttl: '10m' }, alice);
    await fixture.request('POST', 'ldap/library/pool/check-in', {}, alice);
    const checkedIn = entryPassword(fixture, accountDn('alice'));
    fixture.clock.advance(10 * 60_000);
    await fixture.request('GET', 'ldap/library/pool/status');
    expect(entryPassword(fixture, accountDn('alice'))).toBe(checkedIn);
  });

  it('refuses to delete a set while an account is checked out with 400', async () => {
    await fixture.request('POST', 'ldap/library/pool/check-out', {}, alice);
    expect(await fixture.request('DELETE', 'ldap/library/pool')).toEqual({
      status: 400,
      body: { errors: ['cannot delete library set "pool": accounts are checked out (alice); check them in first'] },
    });
    await fixture.request('POST', 'ldap/library/pool/check-in', {}, alice);
    expect((await fixture.request('DELETE', 'ldap/library/pool')).status).toBe(204);
  });

  it('does not let a login token write or read-configure sets', async () => {
    expect((await writeSet('other', { service_account_names: 'carol' })).status).toBe(204);
    expect((await fixture.request('POST', 'ldap/library/other', { ttl: '1h' }, alice)).status).toBe(403);
    expect((await fixture.request('DELETE', 'ldap/library/other', undefined, alice)).status).toBe(403);
  });
});
