// HTTP-level tests of the emulated cloud credential engine: config (merge, validation), rotate-root against
// the emulated provider, roles (resolution of role definitions and groups, validation, partial update),
// creds leases, and what a login token may do.
import { ManualClock } from '../../src/devserver/clock';
import { roleDefinitionId, uuidFromName } from '../../src/devserver/cloud/provider';
import { startDevServer, type DevServer } from '../../src/devserver/server';
import { call } from './http';

const ROOT = 'cloud-test-root';
const SUBSCRIPTION = 'sub-1234';
const CLIENT_ID = 'root-app-client-id';
const ORIGINAL_SECRET = 'original-root-secret';
const EXISTING_APP_OBJECT_ID = '11111111-2222-4333-8444-555555555555';

let server: DevServer;
let clock: ManualClock;
let mountCounter = 0;

async function request(method: string, path: string, body?: unknown, token: string | null = ROOT) {
  const { status, body: responseBody } = await call(server, method, path, body, token);
  return { status, body: responseBody };
}

/** A fresh engine mount per test, so tests do not share config, roles or rotation state. */
async function freshMount(): Promise<string> {
  mountCounter += 1;
  const path = `cloud${mountCounter}`;
  expect((await request('POST', `sys/mounts/${path}`, { type: 'cloud' })).status).toBe(204);
  return path;
}

const BASE_CONFIG = {
  subscription_id: SUBSCRIPTION,
  tenant_id: 'tenant-1',
  client_id: CLIENT_ID,
  client_secret: ORIGINAL_SECRET,
};

async function configuredMount(extra: Record<string, unknown> = {}): Promise<string> {
  const path = await freshMount();
  expect(await request('POST', `${path}/config`, { ...BASE_CONFIG, ...extra })).toEqual({ status: 204, body: undefined });
  return path;
}

const readerRole = (scope = `/subscriptions/${SUBSCRIPTION}`) =>
  JSON.stringify([{ role_name: 'Reader', scope }]);

interface CloudInspect {
  config?: Record<string, unknown>;
  providerValidSecret?: string;
  providerApplications: string[];
  rotations: number;
  roles: Record<string, unknown>;
  leases: { lease_id: string; role: string; client_id: string; expires_at: number; application_exists: boolean }[];
}
const inspect = (path: string) => server.inspectMount(path) as CloudInspect;

beforeAll(async () => {
  clock = new ManualClock(Date.UTC(2025, 0, 1));
  server = await startDevServer({ port: 0, rootToken: ROOT, clock });
});

afterAll(async () => {
  await server.close();
});

describe('config', () => {
  it('reads 200 with empty strings and zeros when never configured', async () => {
    const path = await freshMount();
    const read = await request('GET', `${path}/config`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      subscription_id: '',
      tenant_id: '',
      client_id: '',
      environment: '',
      root_password_ttl: 0,
      identity_token_audience: '',
      identity_token_ttl: 0,
    });
  });

  it('writes with 204 and reads back the fields with defaults, never client_secret', async () => {
    const path = await configuredMount({ environment: 'PublicCloud' });
    const read = await request('GET', `${path}/config`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      subscription_id: SUBSCRIPTION,
      tenant_id: 'tenant-1',
      client_id: CLIENT_ID,
      environment: 'PublicCloud',
      root_password_ttl: 15768000,
      identity_token_audience: '',
      identity_token_ttl: 3600,
    });
    expect(JSON.stringify(read.body)).not.toContain(ORIGINAL_SECRET);
  });

  it('normalises durations to int seconds', async () => {
    const path = await freshMount();
    await request('POST', `${path}/config`, {
      subscription_id: SUBSCRIPTION,
      tenant_id: 't',
      identity_token_audience: 'api://aud',
      identity_token_ttl: '1h',
      root_password_ttl: '48d',
    });
    const read = await request('GET', `${path}/config`);
    expect(read.body.data).toMatchObject({ identity_token_ttl: 3600, root_password_ttl: 4147200, identity_token_audience: 'api://aud' });
  });

  it('sums fractional durations exactly in nanoseconds, as the service does (4.1m is 246 s, not 245)', async () => {
    const path = await freshMount();
    for (const [text, seconds] of [['4.1m', 246], ['4.35m', 261], ['2.05m', 123], ['1.1h', 3960], ['1h30m', 5400], ['1.9999999999s', 1]] as const) {
      const write = await request('POST', `${path}/config`, { ...BASE_CONFIG, root_password_ttl: text });
      expect(write.status).toBe(204);
      expect([text, (await request('GET', `${path}/config`)).body.data.root_password_ttl]).toEqual([text, seconds]);
    }
  });

  it('rejects a duration longer than the service holds (2^63 - 1 ns) with 400 naming the field', async () => {
    const path = await freshMount();
    for (const text of ['106752d', '9223372037s', '9223372037', '2562048h']) {
      expect(await request('POST', `${path}/config`, { ...BASE_CONFIG, root_password_ttl: text })).toEqual({
        status: 400,
        body: { errors: [`invalid duration for field "root_password_ttl": ${JSON.stringify(text)}`] },
      });
    }
    const longest = await request('POST', `${path}/config`, { ...BASE_CONFIG, root_password_ttl: '9223372036s' });
    expect(longest.status).toBe(204);
  });

  it('rejects a first write without subscription_id or tenant_id with 400', async () => {
    const path = await freshMount();
    expect(await request('POST', `${path}/config`, { tenant_id: 't' })).toEqual({
      status: 400,
      body: { errors: ['subscription_id is required'] },
    });
    expect(await request('POST', `${path}/config`, { subscription_id: 's' })).toEqual({
      status: 400,
      body: { errors: ['tenant_id is required'] },
    });
    expect((await request('GET', `${path}/config`)).body.data.subscription_id).toBe('');
  });

  it('rejects client_secret together with identity_token_audience with 400', async () => {
    const path = await freshMount();
    expect(await request('POST', `${path}/config`, { ...BASE_CONFIG, identity_token_audience: 'aud' })).toEqual({
      status: 400,
      body: { errors: ['only one of "client_secret" or "identity_token_audience" can be set'] },
    });
  });

  it('rejects a malformed duration with 400 naming the field', async () => {
    const path = await freshMount();
    expect(await request('POST', `${path}/config`, { ...BASE_CONFIG, root_password_ttl: 'forever' })).toEqual({
      status: 400,
      body: { errors: ['invalid duration for field "root_password_ttl": "forever"'] },
    });
  });

  it('merges writes with the stored config: fields not sent keep their values, client_secret included', async () => {
    const path = await configuredMount();
    expect((await request('POST', `${path}/config`, { environment: 'ChinaCloud' })).status).toBe(204);
    const read = await request('GET', `${path}/config`);
    expect(read.body.data).toMatchObject({ subscription_id: SUBSCRIPTION, tenant_id: 'tenant-1', client_id: CLIENT_ID, environment: 'ChinaCloud' });
    expect(inspect(path).config?.client_secret).toBe(ORIGINAL_SECRET);
  });

  it('deletes the config with 204; it then reads as never configured', async () => {
    const path = await configuredMount();
    expect(await request('DELETE', `${path}/config`)).toEqual({ status: 204, body: undefined });
    const read = await request('GET', `${path}/config`);
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ subscription_id: '', client_id: '', root_password_ttl: 0 });
    expect(inspect(path).config).toBeUndefined();
  });
});

describe('rotate-root', () => {
  it('replaces the root secret with a new one that only the service knows', async () => {
    const path = await configuredMount();
    expect(inspect(path).providerValidSecret).toBe(ORIGINAL_SECRET);
    expect(await request('POST', `${path}/rotate-root`)).toEqual({ status: 204, body: undefined });
    const state = inspect(path);
    expect(state.rotations).toBe(1);
    expect(state.config?.client_secret).not.toBe(ORIGINAL_SECRET);
    expect(state.config?.client_secret).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(state.providerValidSecret).toBe(state.config?.client_secret);
    const read = await request('GET', `${path}/config`);
    expect(JSON.stringify(read.body)).not.toContain(String(state.config?.client_secret));
  });

  it('makes creds fail with 500 once the old secret is written back', async () => {
    const path = await configuredMount();
    await request('POST', `${path}/roles/app`, { cloud_roles: readerRole() });
    expect((await request('GET', `${path}/creds/app`)).status).toBe(200);
    expect((await request('POST', `${path}/rotate-root`)).status).toBe(204);
    expect((await request('GET', `${path}/creds/app`)).status).toBe(200);

    expect((await request('POST', `${path}/config`, { client_secret: ORIGINAL_SECRET })).status).toBe(204);
    const creds = await request('GET', `${path}/creds/app`);
    expect(creds).toEqual({
      status: 500,
      body: { errors: ['1 error occurred:\n\t* error authenticating to the cloud provider: invalid client secret provided\n\n'] },
    });
    expect(inspect(path).providerValidSecret).not.toBe(ORIGINAL_SECRET);
  });

  it('fails a second rotation inside the propagation window with 500 and allows it afterwards', async () => {
    const path = await configuredMount();
    expect((await request('POST', `${path}/rotate-root`)).status).toBe(204);
    clock.advance(2000);
    const second = await request('POST', `${path}/rotate-root`);
    expect(second.status).toBe(500);
    expect(second.body.errors[0]).toMatch(/rotated 2s ago is still propagating at the cloud provider; retry rotate-root/);
    expect(inspect(path).rotations).toBe(1);
    clock.advance(4000);
    expect((await request('POST', `${path}/rotate-root`)).status).toBe(204);
    expect(inspect(path).rotations).toBe(2);
  });

  it('answers 500 config is nil without a config and 400 without a client_secret', async () => {
    const bare = await freshMount();
    expect(await request('POST', `${bare}/rotate-root`)).toEqual({
      status: 500,
      body: { errors: ['1 error occurred:\n\t* config is nil\n\n'] },
    });
    const federated = await freshMount();
    await request('POST', `${federated}/config`, { subscription_id: 's', tenant_id: 't', client_id: 'c', identity_token_audience: 'aud' });
    expect(await request('POST', `${federated}/rotate-root`)).toEqual({
      status: 400,
      body: { errors: ['rotate-root needs client credentials: the configuration has no client_id and client_secret'] },
    });
  });

  it('lets the root secret expire after root_password_ttl', async () => {
    const path = await configuredMount({ root_password_ttl: '1h' });
    await request('POST', `${path}/roles/app`, { cloud_roles: readerRole() });
    expect((await request('POST', `${path}/rotate-root`)).status).toBe(204);
    clock.advance(3600 * 1000 + 1);
    const creds = await request('GET', `${path}/creds/app`);
    expect(creds.status).toBe(500);
    expect(creds.body.errors[0]).toContain('the client secret provided has expired');
  });
});

describe('roles', () => {
  it('writes with 204 and reads back roles with the missing role_id or role_name filled in', async () => {
    const path = await configuredMount();
    const contributorId = roleDefinitionId(SUBSCRIPTION, 'Contributor');
    const written = await request('POST', `${path}/roles/Web-App`, {
      cloud_roles: JSON.stringify([
        { role_name: 'Reader', scope: '/subscriptions/sub-1234/resourceGroups/rg' },
        { role_id: contributorId, scope: '/subscriptions/sub-1234' },
      ]),
      cloud_groups: JSON.stringify([{ group_name: 'developers' }, { object_id: uuidFromName('group', 'operators') }]),
      ttl: '1h',
      max_ttl: '2h',
      explicit_max_ttl: 10800,
      tags: 'team:web, env:dev',
      sign_in_audience: 'CloudADMyOrg',
      persist_app: true,
    });
    expect(written).toEqual({ status: 204, body: undefined });
    const read = await request('GET', `${path}/roles/web-app`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual({
      ttl: 3600,
      max_ttl: 7200,
      explicit_max_ttl: 10800,
      cloud_roles: [
        {
          role_name: 'Reader',
          role_id: `/subscriptions/${SUBSCRIPTION}/providers/Microsoft.Authorization/roleDefinitions/${uuidFromName('role', 'Reader')}`,
          scope: '/subscriptions/sub-1234/resourceGroups/rg',
        },
        { role_name: 'Contributor', role_id: contributorId, scope: '/subscriptions/sub-1234' },
      ],
      cloud_groups: [
        { group_name: 'developers', object_id: uuidFromName('group', 'developers') },
        { group_name: 'operators', object_id: uuidFromName('group', 'operators') },
      ],
      application_object_id: '',
      permanently_delete: false,
      persist_app: true,
      sign_in_audience: 'CloudADMyOrg',
      tags: ['team:web', 'env:dev'],
    });
  });

  it('accepts cloud_roles, cloud_groups and tags as real arrays', async () => {
    const path = await configuredMount();
    const written = await request('POST', `${path}/roles/arrays`, {
      cloud_roles: [{ role_name: 'owner', scope: '/subscriptions/sub-1234' }],
      cloud_groups: [{ group_name: 'operators' }],
      tags: ['a', 'b'],
    });
    expect(written.status).toBe(204);
    const read = await request('GET', `${path}/roles/arrays`);
    expect(read.body.data.cloud_roles[0].role_name).toBe('Owner');
    expect(read.body.data.cloud_groups).toEqual([{ group_name: 'operators', object_id: uuidFromName('group', 'operators') }]);
    expect(read.body.data.tags).toEqual(['a', 'b']);
  });

  it('writes a role with only application_object_id', async () => {
    const path = await configuredMount();
    expect((await request('POST', `${path}/roles/existing`, { application_object_id: EXISTING_APP_OBJECT_ID })).status).toBe(204);
    const read = await request('GET', `${path}/roles/existing`);
    expect(read.body.data).toMatchObject({ application_object_id: EXISTING_APP_OBJECT_ID, cloud_roles: [], cloud_groups: [], tags: [] });
  });

  it.each([
    [{ ttl: 60 }, 'either cloud_roles, cloud_groups or application_object_id must be provided'],
    [{ cloud_roles: '' }, 'either cloud_roles, cloud_groups or application_object_id must be provided'],
    [
      { application_object_id: EXISTING_APP_OBJECT_ID, permanently_delete: true },
      'permanently_delete must be false if application_object_id is provided',
    ],
    [{ cloud_roles: readerRole(), ttl: '2h', max_ttl: '1h' }, 'ttl cannot be greater than max_ttl'],
    [
      { cloud_roles: readerRole(), sign_in_audience: 'Everyone' },
      'invalid sign_in_audience "Everyone": allowed are CloudADMyOrg, CloudADMultipleOrgs, CloudADandPersonalAccount, PersonalAccount',
    ],
    [{ cloud_roles: JSON.stringify([{ role_name: 'Nope', scope: '/s' }]) }, 'unable to find role "Nope"'],
    [
      { cloud_roles: JSON.stringify([{ role_id: '/providers/Microsoft.Authorization/roleDefinitions/00000000-0000-4000-a000-000000000000', scope: '/s' }]) },
      'unable to find role with id "/providers/Microsoft.Authorization/roleDefinitions/00000000-0000-4000-a000-000000000000"',
    ],
    [{ cloud_roles: JSON.stringify([{ role_name: 'Reader' }]) }, 'invalid cloud_roles[0]: "scope" is required'],
    [{ cloud_roles: JSON.stringify([{ scope: '/s' }]) }, 'invalid cloud_roles[0]: "role_name" or "role_id" is required'],
    [{ cloud_roles: '[{"role_name": ' }, expect.stringMatching(/^invalid cloud_roles: not a JSON array/)],
    [{ cloud_roles: '{"role_name":"Reader"}' }, 'invalid cloud_roles: expected a JSON array of objects'],
    [
      { cloud_roles: JSON.stringify([{ role_name: 'Reader', scope: '/s' }, { role_name: 'reader', scope: '/s' }]) },
      `duplicate role_id and scope: ${roleDefinitionId(SUBSCRIPTION, 'Reader')}, /s`,
    ],
    [{ cloud_groups: JSON.stringify([{ group_name: 'strangers' }]) }, 'unable to find group "strangers"'],
    [{ application_object_id: 'not-an-object-id' }, 'unable to find application with object id "not-an-object-id"'],
    [{ cloud_roles: readerRole(), ttl: 'later' }, 'invalid duration for field "ttl": "later"'],
  ])('rejects the role write %j with 400', async (body, message) => {
    const path = await configuredMount();
    const written = await request('POST', `${path}/roles/bad`, body);
    expect(written).toEqual({ status: 400, body: { errors: [message] } });
    expect((await request('GET', `${path}/roles/bad`)).status).toBe(404);
  });

  it('answers 500 config is nil for a role write without engine config', async () => {
    const path = await freshMount();
    expect(await request('POST', `${path}/roles/r`, { cloud_roles: readerRole() })).toEqual({
      status: 500,
      body: { errors: ['1 error occurred:\n\t* config is nil\n\n'] },
    });
  });

  it('updates partially: fields not sent keep their values', async () => {
    const path = await configuredMount();
    await request('POST', `${path}/roles/partial`, { cloud_roles: readerRole(), ttl: '10m', tags: 'x' });
    expect((await request('POST', `${path}/roles/partial`, { max_ttl: '1h' })).status).toBe(204);
    const read = await request('GET', `${path}/roles/partial`);
    expect(read.body.data).toMatchObject({ ttl: 600, max_ttl: 3600, tags: ['x'] });
    expect(read.body.data.cloud_roles).toHaveLength(1);
    // An update that breaks a rule against stored values is refused and changes nothing.
    expect(await request('POST', `${path}/roles/partial`, { ttl: '2h' })).toEqual({
      status: 400,
      body: { errors: ['ttl cannot be greater than max_ttl'] },
    });
    expect((await request('GET', `${path}/roles/partial`)).body.data.ttl).toBe(600);
  });

  it('answers 404 for a missing role, deletes with 204, and lists names (404 when none)', async () => {
    const path = await configuredMount();
    expect(await request('GET', `${path}/roles/absent`)).toEqual({ status: 404, body: { errors: [] } });
    expect(await request('LIST', `${path}/roles`)).toEqual({ status: 404, body: { errors: [] } });
    await request('POST', `${path}/roles/beta`, { cloud_roles: readerRole() });
    await request('POST', `${path}/roles/ALPHA`, { cloud_roles: readerRole() });
    const list = await request('LIST', `${path}/roles`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual({ keys: ['alpha', 'beta'] });
    expect((await request('GET', `${path}/roles?list=true`)).body.data.keys).toEqual(['alpha', 'beta']);
    expect(await request('DELETE', `${path}/roles/beta`)).toEqual({ status: 204, body: undefined });
    expect((await request('LIST', `${path}/roles`)).body.data.keys).toEqual(['alpha']);
  });
});

describe('creds', () => {
  it('issues a new principal per call with a lease and data of exactly client_id and client_secret', async () => {
    const path = await configuredMount();
    await request('POST', `${path}/roles/dyn`, { cloud_roles: readerRole(), ttl: '30m' });
    const first = await request('GET', `${path}/creds/dyn`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ renewable: true, lease_duration: 1800, auth: null, wrap_info: null });
    expect(first.body.lease_id).toMatch(new RegExp(`^${path}/creds/dyn/[A-Za-z0-9_-]+$`));
    expect(Object.keys(first.body.data).sort()).toEqual(['client_id', 'client_secret']);
    expect(first.body.data.client_secret).toEqual(expect.any(String));
    const second = await request('GET', `${path}/creds/dyn`);
    expect(second.body.data.client_id).not.toBe(first.body.data.client_id);
    expect(second.body.lease_id).not.toBe(first.body.lease_id);
    expect(inspect(path).leases.map((lease) => lease.lease_id)).toEqual([first.body.lease_id, second.body.lease_id]);
  });

  it('uses the default lease of 3600 s when the role sets no ttl, capped by max_ttl', async () => {
    const path = await configuredMount();
    await request('POST', `${path}/roles/plain`, { cloud_roles: readerRole() });
    expect((await request('GET', `${path}/creds/plain`)).body.lease_duration).toBe(3600);
    await request('POST', `${path}/roles/capped`, { cloud_roles: readerRole(), max_ttl: '10m' });
    expect((await request('GET', `${path}/creds/capped`)).body.lease_duration).toBe(600);
  });

  it("returns the existing application's client id on every call for application_object_id roles", async () => {
    const path = await configuredMount();
    await request('POST', `${path}/roles/fixed`, { application_object_id: EXISTING_APP_OBJECT_ID });
    const first = await request('GET', `${path}/creds/fixed`);
    const second = await request('GET', `${path}/creds/fixed`);
    expect(first.status).toBe(200);
    expect(second.body.data.client_id).toBe(first.body.data.client_id);
    expect(second.body.data.client_secret).not.toBe(first.body.data.client_secret);
  });

  it('answers 400 for an unknown role', async () => {
    const path = await configuredMount();
    expect(await request('GET', `${path}/creds/Missing`)).toEqual({
      status: 400,
      body: { errors: ['role "missing" does not exist'] },
    });
  });

  it('revokes credentials when the lease expires: the generated application is deleted', async () => {
    const path = await configuredMount();
    await request('POST', `${path}/roles/short`, { cloud_roles: readerRole(), ttl: 60 });
    const creds = await request('GET', `${path}/creds/short`);
    expect(inspect(path).leases).toEqual([
      expect.objectContaining({ lease_id: creds.body.lease_id, client_id: creds.body.data.client_id, application_exists: true }),
    ]);
    expect(inspect(path).providerApplications).toContain(creds.body.data.client_id);
    clock.advance(61_000);
    await request('GET', `${path}/config`); // any request applies the transitions
    expect(inspect(path).leases).toEqual([]);
    expect(inspect(path).providerApplications).not.toContain(creds.body.data.client_id);
  });

  it('keeps one application per persist_app role across calls and deletes it with the role', async () => {
    const path = await configuredMount();
    await request('POST', `${path}/roles/kept`, { cloud_roles: readerRole(), persist_app: true, ttl: 60 });
    const first = await request('GET', `${path}/creds/kept`);
    const second = await request('GET', `${path}/creds/kept`);
    expect(second.body.data.client_id).toBe(first.body.data.client_id);
    expect(second.body.data.client_secret).not.toBe(first.body.data.client_secret);
    clock.advance(61_000);
    await request('GET', `${path}/config`);
    expect(inspect(path).leases).toEqual([]);
    expect(inspect(path).providerApplications).toContain(first.body.data.client_id);
    expect((await request('DELETE', `${path}/roles/kept`)).status).toBe(204);
    expect(inspect(path).providerApplications).not.toContain(first.body.data.client_id);
  });
});

describe('access and routing', () => {
  async function loginToken(): Promise<string> {
    const enabled = await request('POST', 'sys/auth/cloud-login', { type: 'userpass' });
    expect([204, 400]).toContain(enabled.status); // 400 when an earlier test already enabled it
    await request('POST', 'auth/cloud-login/users/reader', { password: 'pw' });
    const login = await request('POST', 'auth/cloud-login/login/reader', { password: 'pw' }, null);
    expect(login.status).toBe(200);
    return login.body.auth.client_token as string;
  }

  it('lets a login token read config and get creds, but not write config (403)', async () => {
    const path = await configuredMount();
    await request('POST', `${path}/roles/app`, { cloud_roles: readerRole() });
    const token = await loginToken();
    expect((await request('GET', `${path}/config`, undefined, token)).status).toBe(200);
    const creds = await request('GET', `${path}/creds/app`, undefined, token);
    expect(creds.status).toBe(200);
    expect(Object.keys(creds.body.data).sort()).toEqual(['client_id', 'client_secret']);
    const write = await request('POST', `${path}/config`, { environment: 'x' }, token);
    expect(write.status).toBe(403);
    expect(write.body.errors).toContain('permission denied');
    expect((await request('POST', `${path}/rotate-root`, undefined, token)).status).toBe(403);
    expect(inspect(path).rotations).toBe(0);
  });

  it('answers 404 unsupported path for unknown subpaths and 405 for wrong methods', async () => {
    const path = await configuredMount();
    const unsupportedPath = { status: 404, body: { errors: ['unsupported path'] } };
    const unsupportedOperation = { status: 405, body: { errors: ['unsupported operation'] } };
    expect(await request('GET', `${path}/nothing`)).toEqual(unsupportedPath);
    expect(await request('GET', `${path}/roles/a/b`)).toEqual(unsupportedPath);
    expect(await request('GET', `${path}/creds`)).toEqual(unsupportedPath);
    expect(await request('GET', `${path}/rotate-root`)).toEqual(unsupportedOperation);
    expect(await request('GET', `${path}/roles`)).toEqual(unsupportedOperation);
    expect(await request('DELETE', `${path}/creds/app`)).toEqual(unsupportedOperation);
    expect(await request('LIST', `${path}/config`)).toEqual(unsupportedOperation);
  });
});
