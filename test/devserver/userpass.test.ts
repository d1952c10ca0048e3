// HTTP-level tests of the emulated userpass auth method: user CRUD, validation, password and policy updates,
// and login (token shape, bcrypt hashes, bound CIDRs, what the issued token may do).
import bcrypt from 'bcryptjs';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from './http';

const ROOT = 'userpass-test-root';
let server: DevServer;

/** A call with the root token unless another is given; only status and body, so whole results compare. */
async function request(method: string, path: string, body?: unknown, token: string | null = ROOT) {
  const { status, body: responseBody } = await call(server, method, path, body, token);
  return { status, body: responseBody };
}

/** Login sends no token header at all. */
const login = (username: string, password: string) =>
  request('POST', `auth/userpass/login/${username}`, { password }, null);

async function createUser(name: string, fields: Record<string, unknown> = {}) {
  const written = await request('POST', `auth/userpass/users/${name}`, { password: `${name}-pw`, ...fields });
  expect(written).toEqual({ status: 204, body: undefined });
}

const DEFAULT_READ = {
  token_bound_cidrs: [],
  token_explicit_max_ttl: 0,
  token_max_ttl: 0,
  token_no_default_policy: false,
  token_num_uses: 0,
  token_period: 0,
  token_policies: [],
  token_ttl: 0,
  token_type: 'default',
};

beforeAll(async () => {
  server = await startDevServer({ port: 0, rootToken: ROOT });
  expect((await request('POST', 'sys/auth/userpass', { type: 'userpass' })).status).toBe(204);
  expect((await request('POST', 'sys/auth/empty-up', { type: 'userpass' })).status).toBe(204);
});

afterAll(async () => {
  await server.close();
});

describe('user write and read', () => {
  it('creates a user with 204 and reads back exactly the token fields with their defaults', async () => {
    await createUser('plain');
    const read = await request('GET', 'auth/userpass/users/plain');
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(DEFAULT_READ);
    expect(read.body).toMatchObject({ lease_id: '', renewable: false, lease_duration: 0, auth: null, wrap_info: null });
  });

  it('normalises durations to int seconds and lists to arrays', async () => {
    await createUser('tuned', {
      token_ttl: '1h',
      token_max_ttl: '2h',
      token_explicit_max_ttl: 10800,
      token_period: '90s',
      token_policies: 'Writer, reader ,reader',
      token_bound_cidrs: '10.0.0.0/8, 127.0.0.1',
      token_no_default_policy: 'true',
      token_num_uses: '3',
      token_type: 'service',
    });
    const read = await request('GET', 'auth/userpass/users/tuned');
    expect(read.body.data).toEqual({
      token_bound_cidrs: ['10.0.0.0/8', '127.0.0.1'],
      token_explicit_max_ttl: 10800,
      token_max_ttl: 7200,
      token_no_default_policy: true,
      token_num_uses: 3,
      token_period: 90,
      token_policies: ['reader', 'writer'],
      token_ttl: 3600,
      token_type: 'service',
    });
  });

  it('accepts token_policies and token_bound_cidrs as arrays', async () => {
    await createUser('arrays', { token_policies: ['a', 'b'], token_bound_cidrs: ['192.168.0.0/16'] });
    const read = await request('GET', 'auth/userpass/users/arrays');
    expect(read.body.data.token_policies).toEqual(['a', 'b']);
    expect(read.body.data.token_bound_cidrs).toEqual(['192.168.0.0/16']);
  });

  it('lower-cases usernames on write, read and list', async () => {
    await createUser('MixedCase');
    expect((await request('GET', 'auth/userpass/users/mixedcase')).status).toBe(200);
    expect((await request('GET', 'auth/userpass/users/MIXEDCASE')).status).toBe(200);
    const list = await request('LIST', 'auth/userpass/users');
    expect(list.status).toBe(200);
    expect(list.body.data.keys).toContain('mixedcase');
    expect(list.body.data.keys).not.toContain('MixedCase');
  });

  it.each(['-leading-dash', '.leading-dot', 'trailing-dot.', 'bad$char'])(
    'answers 404 unsupported path for the username %s',
    async (name) => {
      const written = await request('POST', `auth/userpass/users/${encodeURIComponent(name)}`, { password: 'x' });
      expect(written).toEqual({ status: 404, body: { errors: ['unsupported path'] } });
    },
  );

  it('accepts usernames with dots, dashes and underscores inside', async () => {
    await createUser('first.last-name_2');
    expect((await request('GET', 'auth/userpass/users/first.last-name_2')).status).toBe(200);
  });

  it('rejects a create without password or password_hash with 400 missing password', async () => {
    const written = await request('POST', 'auth/userpass/users/nopass', { token_ttl: 60 });
    expect(written).toEqual({ status: 400, body: { errors: ['missing password'] } });
    expect((await request('GET', 'auth/userpass/users/nopass')).status).toBe(404);
  });

  it('rejects a write with both password and password_hash with 400', async () => {
    const hash = bcrypt.hashSync('pw', 4);
    const written = await request('POST', 'auth/userpass/users/both', { password: 'pw', password_hash: hash });
    expect(written).toEqual({ status: 400, body: { errors: ['only one of "password" or "password_hash" can be provided'] } });
  });

  it('rejects a password_hash that is not in bcrypt format with 400', async () => {
    const written = await request('POST', 'auth/userpass/users/badhash', { password_hash: '$1$abc$notbcrypt' });
    expect(written.status).toBe(400);
    expect(written.body.errors[0]).toMatch(/invalid "password_hash"/);
  });

  it.each([
    [{ token_bound_cidrs: '10.0.0.0/33' }, /invalid CIDR or IP address in field "token_bound_cidrs": "10.0.0.0\/33"/],
    [{ token_bound_cidrs: ['not-an-ip'] }, /invalid CIDR or IP address in field "token_bound_cidrs"/],
    [{ token_type: 'weird' }, /invalid "token_type" value "weird"/],
    [{ token_num_uses: -1 }, /"token_num_uses" cannot be negative/],
    [{ token_num_uses: 'many' }, /field "token_num_uses" must be an integer/],
    [{ token_ttl: '2h', token_max_ttl: '1h' }, /"token_ttl" cannot be greater than "token_max_ttl"/],
    [{ token_ttl: 'soon' }, /invalid duration for field "token_ttl"/],
    [{ token_type: 'batch', token_period: 60 }, /cannot be "batch" when set to generate periodic tokens/],
  ])('rejects the invalid token settings %j with 400', async (fields, message) => {
    const written = await request('POST', 'auth/userpass/users/invalid', { password: 'pw', ...fields });
    expect(written.status).toBe(400);
    expect(written.body.errors).toHaveLength(1);
    expect(written.body.errors[0]).toMatch(message);
    expect((await request('GET', 'auth/userpass/users/invalid')).status).toBe(404);
  });

  it('updates partially: fields not sent keep their values, and the password is kept', async () => {
    await createUser('partial', { token_policies: 'ops', token_ttl: '10m' });
    const updated = await request('POST', 'auth/userpass/users/partial', { token_max_ttl: '1h' });
    expect(updated.status).toBe(204);
    const read = await request('GET', 'auth/userpass/users/partial');
    expect(read.body.data).toMatchObject({ token_policies: ['ops'], token_ttl: 600, token_max_ttl: 3600 });
    expect((await login('partial', 'partial-pw')).status).toBe(200);
  });

  it('shows legacy policies only while set: policies alone feeds token_policies, token_policies clears it', async () => {
    await createUser('legacy', { policies: 'old-a,old-b' });
    let read = await request('GET', 'auth/userpass/users/legacy');
    expect(read.body.data.policies).toEqual(['old-a', 'old-b']);
    expect(read.body.data.token_policies).toEqual(['old-a', 'old-b']);

    await request('POST', 'auth/userpass/users/legacy', { token_policies: 'new' });
    read = await request('GET', 'auth/userpass/users/legacy');
    expect(read.body.data.token_policies).toEqual(['new']);
    expect(read.body.data).not.toHaveProperty('policies');
  });

  it('stores passwords only as bcrypt hashes', async () => {
    await createUser('hashed');
    const state = server.inspectMount('auth/userpass') as { users: Record<string, { passwordHash: string }> };
    expect(state.users.hashed.passwordHash).toMatch(/^\$2[aby]\$\d{2}\$.{53}$/);
    expect(JSON.stringify(state)).not.toContain('hashed-pw');
  });

  it('answers 404 with no errors for a missing user', async () => {
    expect(await request('GET', 'auth/userpass/users/ghost')).toEqual({ status: 404, body: { errors: [] } });
  });

  it('deletes a user with 204, and answers 204 again when it is already gone', async () => {
    await createUser('doomed');
    expect(await request('DELETE', 'auth/userpass/users/doomed')).toEqual({ status: 204, body: undefined });
    expect((await request('GET', 'auth/userpass/users/doomed')).status).toBe(404);
    expect(await request('DELETE', 'auth/userpass/users/doomed')).toEqual({ status: 204, body: undefined });
  });

  it('lists users sorted in data.keys, and answers 404 for an empty list', async () => {
    const list = await request('LIST', 'auth/userpass/users');
    expect(list.status).toBe(200);
    expect(list.body.data.keys).toEqual([...list.body.data.keys].sort());
    expect(list.body.data.keys).toEqual(expect.arrayContaining(['plain', 'tuned']));
    expect(await request('LIST', 'auth/empty-up/users')).toEqual({ status: 404, body: { errors: [] } });
  });

  it('answers 405 for a wrong method and 404 for an unknown path', async () => {
    expect(await request('GET', 'auth/userpass/users')).toEqual({ status: 405, body: { errors: ['unsupported operation'] } });
    expect(await request('GET', 'auth/userpass/users/plain/password')).toEqual({
      status: 405,
      body: { errors: ['unsupported operation'] },
    });
    expect(await request('GET', 'auth/userpass/nothing-here')).toEqual({ status: 404, body: { errors: ['unsupported path'] } });
    expect(await request('POST', 'auth/userpass/users/plain/unknown', {})).toEqual({
      status: 404,
      body: { errors: ['unsupported path'] },
    });
  });
});

describe('password and policies updates', () => {
  it('changes the password: the old one stops working, the new one logs in', async () => {
    await createUser('changer');
    expect(await request('POST', 'auth/userpass/users/changer/password', { password: 'fresh' })).toEqual({
      status: 204,
      body: undefined,
    });
    expect((await login('changer', 'changer-pw')).status).toBe(400);
    expect((await login('changer', 'fresh')).status).toBe(200);
  });

  it('rejects a password update without password with 400', async () => {
    await createUser('nopw');
    expect(await request('POST', 'auth/userpass/users/nopw/password', {})).toEqual({
      status: 400,
      body: { errors: ['missing password'] },
    });
  });

  it('refuses a password that is not a string with 400 naming its type, never its value', async () => {
    await createUser('typed');
    const refused = { status: 400, body: { errors: ['field "password" must be a string, got a number'] } };
    expect(await request('POST', 'auth/userpass/users/numeric', { password: 98765432 })).toEqual(refused);
    expect(await request('POST', 'auth/userpass/users/typed/password', { password: 98765432 })).toEqual(refused);
    expect(await request('POST', 'auth/userpass/login/typed', { password: 98765432 }, null)).toEqual(refused);
    expect(await request('POST', 'auth/userpass/users/typed/password', { password: ['s3cr3t'] })).toEqual({
      status: 400,
      body: { errors: ['field "password" must be a string, got an array'] },
    });
  });

  it('answers 500 username does not exist for password and policies updates of an unknown user', async () => {
    for (const action of ['password', 'policies']) {
      const response = await request('POST', `auth/userpass/users/nobody/${action}`, { password: 'x', token_policies: 'a' });
      expect(response.status).toBe(500);
      expect(response.body.errors).toEqual(['1 error occurred:\n\t* username does not exist\n\n']);
    }
  });

  it('replaces token_policies through the policies endpoint', async () => {
    await createUser('pol', { token_policies: 'first' });
    expect(await request('POST', 'auth/userpass/users/pol/policies', { token_policies: ['second', 'third'] })).toEqual({
      status: 204,
      body: undefined,
    });
    const read = await request('GET', 'auth/userpass/users/pol');
    expect(read.body.data.token_policies).toEqual(['second', 'third']);
  });
});

describe('login', () => {
  it('returns data null, lease_duration 0 and the full auth object', async () => {
    await createUser('loginner', { token_policies: 'reader' });
    const response = await login('loginner', 'loginner-pw');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ data: null, lease_duration: 0, lease_id: '', renewable: false });
    expect(response.body.auth).toEqual({
      client_token: expect.any(String),
      accessor: expect.any(String),
      policies: ['default', 'reader'],
      token_policies: ['default', 'reader'],
      metadata: { username: 'loginner' },
      lease_duration: 2764800,
      renewable: true,
      entity_id: expect.any(String),
      token_type: 'service',
      orphan: true,
      mfa_requirement: null,
      num_uses: 0,
    });
    expect(response.body.auth.client_token).not.toBe(ROOT);
  });

  it('uses token_ttl as lease_duration, keeps the entity across logins, and honours token_no_default_policy', async () => {
    await createUser('settings', { token_ttl: '1h', token_policies: 'app', token_no_default_policy: true, token_num_uses: 5 });
    const first = await login('settings', 'settings-pw');
    const second = await login('settings', 'settings-pw');
    expect(first.body.auth).toMatchObject({ lease_duration: 3600, policies: ['app'], num_uses: 5 });
    expect(second.body.auth.entity_id).toBe(first.body.auth.entity_id);
    expect(second.body.auth.client_token).not.toBe(first.body.auth.client_token);
  });

  it('issues a batch token, not renewable, when token_type is batch', async () => {
    await createUser('batcher', { token_type: 'batch' });
    const response = await login('batcher', 'batcher-pw');
    expect(response.body.auth).toMatchObject({ token_type: 'batch', renewable: false });
  });

  it('lower-cases the username on login', async () => {
    await createUser('casey');
    const response = await login('CASEY', 'casey-pw');
    expect(response.status).toBe(200);
    expect(response.body.auth.metadata).toEqual({ username: 'casey' });
  });

  it('logs in with a user created from a bcrypt password_hash', async () => {
    const hash = await bcrypt.hash('from-hash', 6);
    expect((await request('POST', 'auth/userpass/users/hashuser', { password_hash: hash })).status).toBe(204);
    expect((await login('hashuser', 'from-hash')).status).toBe(200);
    expect(await login('hashuser', 'wrong')).toEqual({ status: 400, body: { errors: ['invalid username or password'] } });
  });

  it('answers 400 invalid username or password for a wrong password and for an unknown user', async () => {
    await createUser('guarded');
    expect(await login('guarded', 'nope')).toEqual({ status: 400, body: { errors: ['invalid username or password'] } });
    expect(await login('nobody-here', 'x')).toEqual({ status: 400, body: { errors: ['invalid username or password'] } });
  });

  it('refuses a login from outside token_bound_cidrs with 400 and accepts one from inside', async () => {
    await createUser('fenced', { token_bound_cidrs: '10.20.0.0/16' });
    expect(await login('fenced', 'fenced-pw')).toEqual({
      status: 400,
      body: { errors: ['login request originated from invalid CIDR'] },
    });
    await createUser('local', { token_bound_cidrs: ['127.0.0.0/8', '::1'] });
    expect((await login('local', 'local-pw')).status).toBe(200);
  });

  it('issues a token that can read but cannot change configuration', async () => {
    await createUser('limited', { token_policies: 'reader' });
    const token = (await login('limited', 'limited-pw')).body.auth.client_token as string;
    const read = await request('GET', 'auth/userpass/users/limited', undefined, token);
    expect(read.status).toBe(200);
    expect(read.body.data.token_policies).toEqual(['reader']);
    const write = await request('POST', 'auth/userpass/users/limited', { token_ttl: 1 }, token);
    expect(write.status).toBe(403);
    expect(write.body.errors).toContain('permission denied');
  });
});
