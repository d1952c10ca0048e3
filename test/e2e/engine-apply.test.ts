/**
 * apply and destroy against the dev server: ordering (destroy order, purge), retries under a 503/429 storm,
 * failures and interruption (state holds exactly what succeeded), targets, the bridge's digest guard, sync
 * drift, the state commands, and invalid input that never reaches the server.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import type { TerraformStack as Stack } from 'cdktf';
import {
  AuthMount, LdapSecretBackend, LdapStaticRole, SecretValue, SyncAssociation, SyncCloud1SmDestination, SyncConfig, SyncGithubApp,
  SyncRepohostDestination, UserpassUser,
} from '../../src';
import { apply, destroy, plan, stateList, stateRm, stateShow, type ProgressEvent } from '../../src';
import { startServiceProxy } from '../support/service-proxy';
import { envelopeOf } from './client-raw-server';
import { actions, ADMIN_DN, ADMIN_PASSWORD, newStack, startHarness, unwrap, USERS_DN, type Harness } from './engine-harness';
import { tempDir } from '../support/temp-dir';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

const APP_KEY = '-----BEGIN RSA PRIVATE KEY-----\napp-key-for-apply-tests\n-----END RSA PRIVATE KEY-----';
const logPath = (entry: { path: string }) => entry.path.replace(/^\/+/, '');

async function writeKvSecret(name: string): Promise<void> {
  const written = await h.call('POST', `secret/data/${name}`, { data: { value: 'kv' } });
  expect(written.status).toBeLessThan(300);
}

function syncStack(): Stack {
  const stack = newStack();
  const app = new SyncGithubApp(stack, 'app', { name: 'ci', appId: '7', privateKey: SecretValue.unsafePlainText(APP_KEY) });
  new SyncRepohostDestination(stack, 'gh', { name: 'gh', app, installationId: '42', repositoryOwner: 'acme', repositoryName: 'web' });
  const cloud1 = new SyncCloud1SmDestination(stack, 'c1', { name: 'c1', region: 'eu-west-1' });
  new SyncAssociation(stack, 'assoc', { destination: cloud1, mount: 'secret', secretName: 'app/db' });
  return stack;
}

function ldapAndUserStack(staticUser = 'svc-a'): Stack {
  const stack = newStack();
  const backend = new LdapSecretBackend(stack, 'ldap', { binddn: ADMIN_DN, bindpass: SecretValue.unsafePlainText(ADMIN_PASSWORD), userdn: USERS_DN });
  new LdapStaticRole(stack, 'static', { backend, name: 'svc', username: staticUser, rotationPeriod: '1h' });
  const mount = new AuthMount(stack, 'userpass', { path: 'userpass', type: 'userpass' });
  new UserpassUser(stack, 'alice', { mount, username: 'alice', password: SecretValue.unsafePlainText('alice-password') });
  new UserpassUser(stack, 'bob', { mount, username: 'bob', password: SecretValue.unsafePlainText('bob-password') });
  return stack;
}

describe('destroy', () => {
  test('removes associations before their destination (purging one that still has others), and destinations before their app', async () => {
    await writeKvSecret('app/db');
    await writeKvSecret('app/other');
    expect(unwrap(await apply(h.options(syncStack()))).succeeded).toBe(true);
    // An association that is not ours keeps the destination busy: only a purge deletes it.
    expect((await h.call('POST', 'sys/sync/destinations/cloud1-sm/c1/associations/set', { mount: 'secret', secret_name: 'app/other' })).status).toBe(200);

    h.markLog();
    const result = unwrap(await destroy(h.options(syncStack())));
    expect(result.outcomes.filter((o) => o.status !== 'succeeded')).toEqual([]);
    const log = h.logSince().map((entry) => ({ method: entry.method, path: logPath(entry), query: entry.query, status: entry.status }));
    const index = (predicate: (e: (typeof log)[number]) => boolean) => log.findIndex(predicate);
    const removeAssociation = index((e) => e.path === 'sys/sync/destinations/cloud1-sm/c1/associations/remove');
    const purgeDestination = index((e) => e.method === 'DELETE' && e.path === 'sys/sync/destinations/cloud1-sm/c1');
    const destinationGone = index((e) => e.method === 'GET' && e.path === 'sys/sync/destinations/cloud1-sm/c1' && e.status === 404);
    const deleteRepohost = index((e) => e.method === 'DELETE' && e.path === 'sys/sync/destinations/repohost/gh');
    const deleteApp = index((e) => e.method === 'DELETE' && e.path === 'sys/sync/github-apps/ci');
    expect(removeAssociation).toBeGreaterThanOrEqual(0);
    expect(purgeDestination).toBeGreaterThan(removeAssociation);
    expect(log[purgeDestination].query).toBe('purge=true');
    expect(destinationGone).toBeGreaterThan(purgeDestination);
    expect(deleteApp).toBeGreaterThan(deleteRepohost);
    expect(log[deleteApp].status).toBe(204);
    expect((await h.state()).resources).toEqual({});
    expect((await h.call('GET', 'sys/sync/destinations/cloud1-sm/c1')).status).toBe(404);
  });

  test('a destination without foreign associations is deleted without purge', async () => {
    await writeKvSecret('app/db');
    unwrap(await apply(h.options(syncStack())));
    h.markLog();
    unwrap(await destroy(h.options(syncStack())));
    const deletes = h.logSince().filter((e) => e.method === 'DELETE' && logPath(e) === 'sys/sync/destinations/cloud1-sm/c1');
    expect(deletes.map((e) => e.query)).toEqual(['']);
  });

  test('an associations answer that is not the listing fails the destination delete: nothing deleted, no purge guessed, state keeps it', async () => {
    await writeKvSecret('app/db');
    await writeKvSecret('app/other');
    unwrap(await apply(h.options(syncStack())));
    // An association that is not ours: a plain delete is refused, only a purge deletes the destination.
    expect((await h.call('POST', 'sys/sync/destinations/cloud1-sm/c1/associations/set', { mount: 'secret', secret_name: 'app/other' })).status).toBe(200);
    const associations = '/v1/sys/sync/destinations/cloud1-sm/c1/associations';
    const proxy = await startServiceProxy(h.server.url, (request) => (`${request.method} ${request.path}` === `GET ${associations}` ? { status: 200, body: envelopeOf({}) } : undefined));
    try {
      h.markLog();
      // The proxy is the same service at another address: migrateState lets the run use it.
      const result = unwrap(await destroy(h.options(syncStack(), { targets: ['test/c1'], migrateState: true, env: { ...h.env, SERVICE_ADDR: proxy.url } })));
      expect(result.succeeded).toBe(false);
      const byAddress = Object.fromEntries(result.outcomes.map((o) => [o.address, o]));
      expect(byAddress['test/assoc'].status).toBe('succeeded');
      expect(byAddress['test/c1']).toMatchObject({ action: 'delete', status: 'failed' });
      expect(byAddress['test/c1'].message).toContain(`GET ${associations} answered HTTP 200 with an object without "associated_secrets"`);
      expect(byAddress['test/c1'].message).toContain('so no delete was sent: nothing was deleted, and state still records the object');
      expect(h.logSince().filter((e) => e.method === 'DELETE' && logPath(e) === 'sys/sync/destinations/cloud1-sm/c1')).toEqual([]);
    } finally {
      await proxy.close();
    }
    expect((await h.call('GET', 'sys/sync/destinations/cloud1-sm/c1')).status).toBe(200);
    expect(Object.keys((await h.call('GET', 'sys/sync/destinations/cloud1-sm/c1/associations')).body.data.associated_secrets)).toEqual([expect.stringMatching(/\/app\/other$/)]);
    expect(Object.keys((await h.state()).resources).sort()).toEqual(['test/app', 'test/c1', 'test/gh']);

    // Against the service itself (its own address again: migrateState), the next destroy reads the associations and purges.
    h.markLog();
    expect(unwrap(await destroy(h.options(syncStack(), { targets: ['test/c1'], migrateState: true }))).succeeded).toBe(true);
    expect(h.logSince().filter((e) => e.method === 'DELETE' && logPath(e) === 'sys/sync/destinations/cloud1-sm/c1').map((e) => e.query)).toEqual(['purge=true']);
    expect(Object.keys((await h.state()).resources).sort()).toEqual(['test/app', 'test/gh']);
  });

  test('--target destroys the target and what depends on it, nothing else', async () => {
    await writeKvSecret('app/db');
    unwrap(await apply(h.options(syncStack())));
    const result = unwrap(await destroy(h.options(syncStack(), { targets: ['test/c1'] })));
    expect(result.outcomes.map((o) => o.address).sort()).toEqual(['test/assoc', 'test/c1']);
    expect(Object.keys((await h.state()).resources).sort()).toEqual(['test/app', 'test/gh']);
  });
});

test('a 503 and 429 storm is retried and the apply converges', async () => {
  h.server.faults.failNext(4, 503, 0);
  const first = unwrap(await apply(h.options(ldapAndUserStack(), { parallelism: 2 })));
  expect(first.succeeded).toBe(true);
  h.server.faults.failNext(3, 429, 0);
  const planned = unwrap(await plan(h.options(ldapAndUserStack())));
  expect(actions(planned)).toEqual({});
  expect(h.server.requestLog.filter((e) => e.status === 503)).toHaveLength(4);
  expect(h.server.requestLog.filter((e) => e.status === 429)).toHaveLength(3);
});

test('a failing resource: the others are applied, state holds exactly what succeeded, and a re-plan shows the rest', async () => {
  const result = unwrap(await apply(h.options(ldapAndUserStack('no-such-account'))));
  expect(result.succeeded).toBe(false);
  expect(result.outcomes.find((o) => o.address === 'test/static')).toMatchObject({ status: 'failed', message: expect.stringContaining('ldap/static-role/svc') });
  expect(Object.keys((await h.state()).resources).sort()).toEqual(['test/alice', 'test/bob', 'test/ldap', 'test/ldap/mount', 'test/userpass']);
  expect(actions(unwrap(await plan(h.options(ldapAndUserStack('no-such-account')))))).toEqual({ 'test/static': 'create' });
  expect(unwrap(await apply(h.options(ldapAndUserStack()))).succeeded).toBe(true);
  expect(actions(unwrap(await plan(h.options(ldapAndUserStack()))))).toEqual({});
});

test('an aborted apply starts nothing new, saves what finished and says it was interrupted', async () => {
  const controller = new AbortController();
  const events: ProgressEvent[] = [];
  const startedBeforeAbort: string[] = [];
  const onProgress = (event: ProgressEvent) => {
    events.push(event);
    if (event.kind === 'operation-start' && !controller.signal.aborted) startedBeforeAbort.push(event.address);
    if (event.kind === 'operation-done' && event.status === 'succeeded') controller.abort();
  };
  const result = unwrap(await apply(h.options(ldapAndUserStack(), { parallelism: 1, signal: controller.signal, onProgress })));
  expect(result.interrupted).toBe(true);
  expect(result.succeeded).toBe(false);
  // What had started finishes (with parallelism 1, the next request may start while the first is recorded);
  // nothing starts after the abort.
  const succeeded = result.outcomes.filter((o) => o.status === 'succeeded').map((o) => o.address);
  expect(succeeded.sort()).toEqual([...startedBeforeAbort].sort());
  expect(succeeded.length).toBeLessThanOrEqual(2);
  expect(result.outcomes.filter((o) => o.status === 'skipped')).toHaveLength(6 - succeeded.length);
  expect(Object.keys((await h.state()).resources).sort()).toEqual(succeeded);
  const rest = actions(unwrap(await plan(h.options(ldapAndUserStack()))));
  expect(Object.keys(rest).sort()).toEqual(result.outcomes.filter((o) => o.status === 'skipped').map((o) => o.address).sort());
  expect(Object.values(rest).every((action) => action === 'create')).toBe(true);
  expect(events.filter((e) => e.kind === 'refresh').at(-1)).toEqual({ kind: 'refresh', done: 6, total: 6 });
});

test('rotate-root after creation is sent as soon as a slot frees, before the writes still waiting to start', async () => {
  // Each request takes 25 ms on this server: longer than recording the config in state (an fsync), however
  // loaded the machine, so the writes that can take the slot meanwhile are one or two, not all twelve.
  const h = await startHarness({}, { latencyMs: 25 });
  try {
    await rotateRootBeforeQueuedWrites(h);
  } finally {
    await h.close();
  }
});

async function rotateRootBeforeQueuedWrites(h: Harness): Promise<void> {
  expect((await h.call('POST', 'sys/mounts/ldap', { type: 'ldap' })).status).toBeLessThan(300);
  const stack = newStack();
  new LdapSecretBackend(stack, 'ldap', {
    manageMount: false, binddn: ADMIN_DN, bindpass: SecretValue.unsafePlainText(ADMIN_PASSWORD), userdn: USERS_DN, rotateRootAfterCreate: true,
  });
  const mounts = Array.from({ length: 12 }, (_, i) => `m${i + 1}`);
  for (const name of mounts) new AuthMount(stack, name, { path: name, type: 'userpass' });
  h.markLog();
  expect(unwrap(await apply(h.options(stack, { parallelism: 1 }))).succeeded).toBe(true);
  const writes = h.logSince().filter((entry) => entry.method === 'POST').map(logPath);
  const mountWrites = writes.flatMap((path, index) => (/^sys\/auth\/m\d+$/.test(path) ? [index] : []));
  expect(mountWrites).toHaveLength(mounts.length);
  expect(writes.indexOf('ldap/config')).toBe(0);
  // Until the rotation the value in code still works (and a crash would leave it so, with no plan showing it).
  // Only the writes that took the slot while the config was being recorded go before it, not every write queued.
  expect(writes.indexOf('ldap/rotate-root')).toBeLessThan(mountWrites[mountWrites.length - 1]);
}

test('a run failure before a rotate-root after creation: the created object says rotate-root is left, the run failure keeps its own report', async () => {
  // The engine's mount exists: the ldap config is the first write, and the mounts are queued behind it.
  expect((await h.call('POST', 'sys/mounts/ldap', { type: 'ldap' })).status).toBeLessThan(300);
  const stack = newStack();
  new LdapSecretBackend(stack, 'ldap', {
    manageMount: false, binddn: ADMIN_DN, bindpass: SecretValue.unsafePlainText(ADMIN_PASSWORD), userdn: USERS_DN, rotateRootAfterCreate: true,
  });
  for (const name of ['m1', 'm2', 'm3']) new AuthMount(stack, name, { path: name, type: 'userpass' });
  let ldapStarted = false;
  let tokenRefused = false;
  const onProgress = (event: ProgressEvent) => {
    if (event.kind !== 'operation-start') return;
    if (event.address === 'test/ldap') ldapStarted = true;
    // The ldap config is written; the next request (sent before its rotate-root) finds the token refused.
    else if (ldapStarted && !tokenRefused) {
      tokenRefused = true;
      h.server.faults.failNext(1, 401);
    }
  };
  const result = unwrap(await apply(h.options(stack, { parallelism: 1, onProgress })));
  expect(tokenRefused).toBe(true);
  expect(result.succeeded).toBe(false);
  // The run's failure is reported as the request that showed it, not as this resource's rotate-root.
  expect(result.runFailure).toMatch(/^stopped: the service refused the token/);
  expect(result.runFailure).not.toContain('rotate-root');
  // The config was created and recorded; what is left is the rotation, which no later plan would show.
  expect((await h.state()).resources['test/ldap']).toBeDefined();
  const ldap = result.outcomes.find((o) => o.address === 'test/ldap')!;
  expect(ldap.status).toBe('failed');
  expect(ldap.stoppedByRunFailure).toBeUndefined();
  expect(ldap.message).toContain('created, but rotate-root right after creation failed, so the value in code still works');
  expect(ldap.message).toContain('secretform action rotate-root test/ldap');
});

describe('confirm', () => {
  test('a declined plan changes nothing: no write reaches the server and no state is written', async () => {
    const shown: string[] = [];
    const requestsBefore = h.server.requestCount;
    const result = unwrap(await apply(h.options(ldapAndUserStack(), {
      confirm: (planned) => {
        shown.push(...planned.changes.filter((c) => c.action !== 'no-op').map((c) => c.address));
        return false;
      },
    })));
    expect(result).toMatchObject({ confirmed: false, outcomes: [], succeeded: true, interrupted: false });
    expect(shown.sort()).toEqual(['test/alice', 'test/bob', 'test/ldap', 'test/ldap/mount', 'test/static', 'test/userpass']);
    const writes = h.server.requestLog.slice(-(h.server.requestCount - requestsBefore)).filter((e) => e.method !== 'GET' && e.method !== 'LIST');
    expect(writes).toEqual([]);
    await expect(h.state()).rejects.toThrow(/ENOENT/); // not even an empty state file was written
  });

  test('an accepted plan is the one carried out, after a single refresh', async () => {
    let confirmed: unknown;
    const refreshes: number[] = [];
    const result = unwrap(await apply(h.options(ldapAndUserStack(), {
      confirm: (planned) => {
        confirmed = planned;
        return Promise.resolve(true);
      },
      onProgress: (event) => {
        if (event.kind === 'refresh' && event.done === 0) refreshes.push(event.total);
      },
    })));
    expect(result.confirmed).toBe(true);
    expect(result.plan).toBe(confirmed);
    expect(result.succeeded).toBe(true);
    expect(refreshes).toHaveLength(1);
  });
});

test('--target applies the target and what it depends on', async () => {
  const result = unwrap(await apply(h.options(ldapAndUserStack(), { targets: ['test/alice'] })));
  expect(result.outcomes.map((o) => o.address).sort()).toEqual(['test/alice', 'test/userpass']);
  expect(result.plan.changes.map((c) => c.address).sort()).toEqual(['test/alice', 'test/userpass']);
  const unknown = await plan(h.options(ldapAndUserStack(), { targets: ['test/nope'] }));
  expect(unknown).toMatchObject({ ok: false, error: { code: 'address_unknown' } });
});

test('an association whose sync failed is drift out_of_sync, and apply sets it again', async () => {
  await writeKvSecret('app/db');
  unwrap(await apply(h.options(syncStack())));
  const sync = h.server.inspectSync() as { setRemoteFailure(type: string, name: string, cause: string | null): void };
  sync.setRemoteFailure('cloud1-sm', 'c1', 'access denied by the remote store');
  await h.call('POST', 'sys/sync/destinations/cloud1-sm/c1/associations/set', { mount: 'secret', secret_name: 'app/db' });
  const planned = unwrap(await plan(h.options(syncStack())));
  expect(planned.drift).toEqual([expect.objectContaining({ address: 'test/assoc', kind: 'out_of_sync', detail: expect.stringContaining('access denied') })]);
  expect(planned.changes.find((c) => c.address === 'test/assoc')).toMatchObject({ action: 'update' });

  sync.setRemoteFailure('cloud1-sm', 'c1', null);
  unwrap(await apply(h.options(syncStack())));
  const after = unwrap(await plan(h.options(syncStack())));
  expect(after.drift).toEqual([]);
  expect(actions(after)).toEqual({});
});

test('sync disabled: a new association stays PENDING and is reported out of sync', async () => {
  await writeKvSecret('app/db');
  const stack = () => {
    const s = syncStack();
    new SyncConfig(s, 'sync-config', { disabled: true });
    return s;
  };
  unwrap(await apply(h.options(stack())));
  const planned = unwrap(await plan(h.options(stack())));
  expect(planned.drift).toEqual([expect.objectContaining({ address: 'test/assoc', kind: 'out_of_sync', detail: 'PENDING' })]);
});

test('refresh reads each object once and shares identical reads', async () => {
  unwrap(await apply(h.options(ldapAndUserStack())));
  h.markLog();
  unwrap(await plan(h.options(ldapAndUserStack())));
  const reads = h.logSince().map((e) => `${e.method} ${logPath(e)}`).sort();
  // Six resources; the two mounts of different kinds are read through their listings.
  expect(reads).toEqual([
    'GET auth/userpass/users/alice', 'GET auth/userpass/users/bob', 'GET ldap/config', 'GET ldap/static-role/svc', 'GET sys/auth', 'GET sys/mounts',
  ]);
});

describe('invalid input never reaches the server', () => {
  test('an unset secret variable is named with its address and field, before any request', async () => {
    const stack = newStack();
    new LdapSecretBackend(stack, 'ldap', { binddn: ADMIN_DN, bindpass: SecretValue.fromEnv('SF_TEST_UNSET_BINDPASS'), userdn: USERS_DN });
    const planned = await plan(h.options(stack));
    expect(planned.ok).toBe(false);
    if (!planned.ok) {
      expect(planned.error.code).toBe('secret_unresolved');
      expect(planned.error.message).toContain('test/ldap: secret "bindpass"');
      expect(planned.error.message).toContain('SF_TEST_UNSET_BINDPASS');
    }
    const applied = await apply(h.options(stack));
    expect(applied).toMatchObject({ ok: false, error: { code: 'secret_unresolved' } });
    expect(h.server.requestLog).toEqual([]);
  });

  test('an unreadable secret file is named with its path', async () => {
    const stack = newStack();
    new LdapSecretBackend(stack, 'ldap', { binddn: ADMIN_DN, bindpass: SecretValue.fromFile('missing/bindpass.txt'), userdn: USERS_DN });
    const planned = await plan(h.options(stack));
    expect(planned).toMatchObject({ ok: false, error: { code: 'secret_unresolved', message: expect.stringContaining(path.join(h.dir, 'missing/bindpass.txt')) } });
    expect(h.server.requestLog).toEqual([]);
  });

  test('invalid props and an unknown resource type in a synth output are errors before any request', async () => {
    const stack = newStack();
    new LdapStaticRole(stack, 'static', { backend: 'ldap', name: 'svc', username: 'svc-a', rotationPeriod: '1s' });
    expect(await plan(h.options(stack))).toMatchObject({ ok: false, error: { code: 'desired_invalid', message: expect.stringContaining('test/static') } });

    const outdir = tempDir('secretform-engine-out-');
    const app = new App({ outdir });
    const synthStack = new TerraformStack(app, 'test');
    new AuthMount(synthStack, 'userpass', { path: 'userpass', type: 'userpass' });
    app.synth();
    const file = path.join(outdir, 'stacks', 'test', 'cdk.tf.json');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"auth_mount"', '"no_such_type"'));
    const fromOutput = await plan({ desired: { kind: 'synth-output', outdir }, cwd: h.dir, env: h.env });
    expect(fromOutput).toMatchObject({ ok: false, error: { code: 'desired_invalid', message: expect.stringContaining('no_such_type') } });
    expect(h.server.requestLog).toEqual([]);
    fs.rmSync(outdir, { recursive: true, force: true });
  });
});

describe('state commands', () => {
  test('list, show and rm work on the state file alone', async () => {
    unwrap(await apply(h.options(ldapAndUserStack())));
    h.markLog();
    const listed = unwrap(await stateList(h.options(ldapAndUserStack())));
    expect(listed.map((e) => e.address)).toEqual(['test/alice', 'test/bob', 'test/ldap', 'test/ldap/mount', 'test/static', 'test/userpass']);
    expect(listed[0]).toEqual({ address: 'test/alice', type: 'userpass_user', id: 'auth/userpass/users/alice' });
    const shown = unwrap(await stateShow(h.options(ldapAndUserStack()), 'test/alice'));
    expect(shown).toMatchObject({ type: 'userpass_user', attributes: { username: 'alice' }, secrets: { password: expect.stringMatching(/^hmac-sha256:/) } });
    expect(await stateShow(h.options(ldapAndUserStack()), 'test/nope')).toMatchObject({ ok: false, error: { code: 'address_unknown' } });
    unwrap(await stateRm(h.options(ldapAndUserStack()), 'test/alice'));
    expect(unwrap(await stateList(h.options(ldapAndUserStack()))).map((e) => e.address)).not.toContain('test/alice');
    expect(h.logSince()).toEqual([]);
    // Forgotten, the user is adopted again by the next plan.
    expect(actions(unwrap(await plan(h.options(ldapAndUserStack()))))).toEqual({ 'test/alice': 'update' });
  });
});
