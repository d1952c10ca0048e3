/**
 * The pure parts of the guardrails (docs/guardrails.md): the props at synth, the synthesized lifecycle, which
 * guardrails apply (code, else state), the diff with ignored fields and retained objects, the refusal of a plan
 * that removes a protected object, and the bounded counting of what a delete takes with it.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { App, TerraformStack } from 'cdktf';
import { AuthMount, LdapSecretBackend, SecretsMount, SecretValue, UserpassUser } from '../../src';
import { desiredFromStack } from '../../src/constructs/desired-from-stack';
import { guardrailsOf } from '../../src/engine/plan/lifecycle';
import { protectionViolation } from '../../src/engine/guardrails/protection';
import { withConsequences } from '../../src/engine/guardrails/consequences';
import { loadClientConfig, ServiceClient } from '../../src/client';
import { consequenceComments } from '../../src/report/consequences';
import { planComputation } from '../../src/engine/plan/compute-plan';
import { diffResource } from '../../src/engine/plan/resource-diff';
import { loadDesired } from '../../src/engine/setup/desired';
import { FingerprintKey } from '../../src/engine/state/fingerprint';
import { emptyState, type ResourceState } from '../../src/engine/state/state-file';
import { countListed, MAX_LIST_CALLS } from '../../src/resources/consequences';
import { getResourceType } from '../../src/resources/registry';
import type { ConsequenceRead } from '../../src/resources/types';
import { parseSynthesizedSpec } from '../../src/synthesized-spec';
import { tempDir } from '../support/temp-dir';

const KEY = FingerprintKey.keyed(Buffer.from('guardrails-test-key'), 'test');
const tempDirs: string[] = [];
afterAll(() => tempDirs.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })));

function synth(build: (stack: TerraformStack) => void): { outdir: string; error?: string } {
  const outdir = tempDir('secretform-guardrails-');
  tempDirs.push(outdir);
  const app = new App({ outdir });
  build(new TerraformStack(app, 'prod'));
  try {
    app.synth();
    return { outdir };
  } catch (error) {
    return { outdir, error: (error as Error).message };
  }
}

const alice = (stack: TerraformStack, props: Record<string, unknown>) =>
  new UserpassUser(stack, 'alice', { mount: 'userpass', username: 'alice', password: SecretValue.fromEnv('PW'), ...props });

describe('construct props', () => {
  test('protect, retainOnDelete and ignoreChanges are synthesized as the lifecycle, ignored props by service name', () => {
    const { outdir, error } = synth((stack) => {
      alice(stack, { tokenTtl: '1h', protect: true, retainOnDelete: true, ignoreChanges: ['tokenTtl', 'tokenPolicies'] });
      new SecretsMount(stack, 'kv', { path: 'kv', type: 'kv', ignoreChanges: ['*'] });
      new AuthMount(stack, 'plain', { path: 'userpass', type: 'userpass' });
    });
    expect(error).toBeUndefined();
    const byAddress = new Map(loadDesired(outdir, 'prod').resources.map((resource) => [resource.address, resource]));
    expect(byAddress.get('prod/alice')!.lifecycle).toEqual({ protect: true, retainOnDelete: true, ignoreChanges: ['token_ttl', 'token_policies'] });
    expect(byAddress.get('prod/kv')!.lifecycle).toEqual({ ignoreChanges: ['*'] });
    expect(byAddress.get('prod/plain')!.lifecycle).toBeUndefined();
    const json = fs.readFileSync(path.join(outdir, 'stacks', 'prod', 'cdk.tf.json'), 'utf8');
    expect(json).not.toContain('"lifecycle": {}');
  });

  test('an unknown ignoreChanges name fails synth naming the construct path, the value and the allowed names', () => {
    const { error } = synth((stack) => alice(stack, { ignoreChanges: ['tokenTTL'] }));
    expect(error).toContain('prod/alice: ignoreChanges[0]: received "tokenTTL"; "*" alone, or props of UserpassUser: ');
    expect(error).toContain('tokenTtl');
    // The identity is never ignorable: a change of it is another object.
    expect(error).not.toMatch(/props of UserpassUser: [^\n]*\busername\b/);
  });

  test('"*" stands alone, and the props have their types checked', () => {
    expect(synth((stack) => alice(stack, { ignoreChanges: ['*', 'tokenTtl'] })).error).toContain('prod/alice: ignoreChanges: received ["*","tokenTtl"]; "*" means every prop and stands alone');
    expect(synth((stack) => alice(stack, { protect: 'yes' })).error).toContain('prod/alice: protect: received "yes"');
  });

  test("an engine's protection and retention carry over to the mount it manages", () => {
    const app = new App();
    const stack = new TerraformStack(app, 'prod');
    new LdapSecretBackend(stack, 'ldap', { binddn: 'cn=admin', bindpass: SecretValue.unsafePlainText('x'), protect: true, retainOnDelete: true, ignoreChanges: ['binddn'] });
    const mount = desiredFromStack(stack).resources.find((resource) => resource.address === 'prod/ldap/mount')!;
    expect(mount.lifecycle).toEqual({ protect: true, retainOnDelete: true });
  });

  test('the engine refuses a spec whose ignoreChanges names no field of its type', () => {
    const spec = { version: 1, type: 'userpass_user', address: 'prod/a', id: 'auth/userpass/users/a', spec: { mount: 'userpass', username: 'a' }, secrets: {}, dependsOn: [], digest: '', lifecycle: { ignoreChanges: ['nope'] } };
    expect(parseSynthesizedSpec(spec, 'x').lifecycle).toEqual({ ignoreChanges: ['nope'] });
    const dir = tempDir('secretform-guardrails-');
    tempDirs.push(dir);
    fs.mkdirSync(path.join(dir, 'stacks', 'prod'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ stacks: { prod: {} } }));
    fs.writeFileSync(path.join(dir, 'stacks', 'prod', 'cdk.tf.json'), JSON.stringify({ resource: { terraform_data: { a: { '//': { secretform: spec } } } } }));
    expect(() => loadDesired(dir, 'prod')).toThrow('prod/a: lifecycle.ignoreChanges names "nope", not fields of userpass_user');
  });
});

const USER = getResourceType('userpass_user');
const userDesired = (spec: Record<string, unknown>, lifecycle?: object) => ({
  address: 'prod/alice', type: 'userpass_user', id: 'auth/userpass/users/alice', spec: { mount: 'userpass', username: 'alice', ...spec },
  secrets: {}, dependsOn: [], digest: 'd', ...(lifecycle ? { lifecycle } : {}),
});
const userState = (attributes: Record<string, unknown>, extra: Partial<ResourceState> = {}): ResourceState => ({
  type: 'userpass_user', id: 'auth/userpass/users/alice', attributes: { mount: 'userpass', username: 'alice', ...attributes }, secrets: {},
  dependencies: [], applied_at: '2026-01-01T00:00:00Z', ...extra,
});
const live = (attributes: Record<string, unknown>) => ({ attributes: { mount: 'userpass', username: 'alice', ...attributes }, data: {} });

describe('which guardrails apply', () => {
  test('the code decides while the construct is in it; state once it is gone; destroy honours either', () => {
    const recorded = userState({}, { protect: true, retain_on_delete: true });
    expect(guardrailsOf(userDesired({}), recorded, false)).toEqual({ protect: false, retainOnDelete: false });
    expect(guardrailsOf(undefined, recorded, false)).toEqual({ protect: true, retainOnDelete: true });
    expect(guardrailsOf(userDesired({}), recorded, true)).toEqual({ protect: true, retainOnDelete: true });
    expect(guardrailsOf(userDesired({}, { protect: true }), userState({}), true)).toEqual({ protect: true, retainOnDelete: false });
  });
});

describe('the diff', () => {
  const base = { address: 'prod/alice', resourceType: USER, secrets: {}, fingerprintKey: KEY, refreshOnly: false };

  test('ignored fields changed in code and on the service: no change, no drift', () => {
    const { plan } = diffResource({
      ...base,
      desired: userDesired({ token_ttl: '2h', token_max_ttl: '4h' }, { ignoreChanges: ['token_ttl'] }),
      stateEntry: userState({ token_ttl: 3600, token_max_ttl: 14400 }),
      live: live({ token_ttl: 60, token_max_ttl: 14400 }),
    });
    expect(plan.change.action).toBe('no-op');
    expect(plan.drift).toBeUndefined();
  });

  test('an update of another field writes the live value of an ignored one', () => {
    const { plan } = diffResource({
      ...base,
      desired: userDesired({ token_ttl: '2h', token_max_ttl: '8h' }, { ignoreChanges: ['token_ttl'] }),
      stateEntry: userState({ token_ttl: 3600, token_max_ttl: 14400 }),
      live: live({ token_ttl: 60, token_max_ttl: 14400 }),
    });
    expect(plan.change.action).toBe('update');
    expect(plan.change.fieldChanges.map((change) => change.field)).toEqual(['token_max_ttl']);
    expect(plan.writeAttributes).toMatchObject({ token_ttl: 60, token_max_ttl: 28800 });
  });

  test('"*" ignores every field once the object exists, but a create writes them all', () => {
    const lifecycle = { ignoreChanges: ['*'] };
    const existing = diffResource({ ...base, desired: userDesired({ token_ttl: '2h' }, lifecycle), stateEntry: userState({ token_ttl: 3600 }), live: live({ token_ttl: 5 }) });
    expect(existing.plan.change.action).toBe('no-op');
    expect(existing.plan.drift).toBeUndefined();
    const created = diffResource({ ...base, desired: userDesired({ token_ttl: '2h' }, lifecycle), live: { attributes: null, data: null } });
    expect(created.plan.change.action).toBe('create');
    expect(created.plan.writeAttributes).toMatchObject({ token_ttl: 7200 });
  });

  test('a retained object only in state is forgotten, a retained one already gone stays a no-op', () => {
    const retained = { protect: false, retainOnDelete: true };
    expect(diffResource({ ...base, stateEntry: userState({}), live: live({}), guardrails: retained }).plan.change.action).toBe('forget');
    expect(diffResource({ ...base, stateEntry: userState({}), live: { attributes: null, data: null }, guardrails: retained }).plan.change.action).toBe('no-op');
    expect(diffResource({ ...base, stateEntry: userState({}), live: live({}) }).plan.change.action).toBe('delete');
  });
});

describe('protection', () => {
  const base = { address: 'prod/alice', resourceType: USER, secrets: {}, fingerprintKey: KEY, refreshOnly: false };
  const computed = (guardrails: { protect: boolean; retainOnDelete: boolean }, desired?: ReturnType<typeof userDesired>) => {
    const { plan } = diffResource({ ...base, desired, stateEntry: userState({ mount: 'userpass' }), live: live({}), guardrails });
    return planComputation('prod', false, new Map([[plan.address, { ...plan, guardrails }]]), []);
  };
  const stack = { desired: { stack: 'prod', resources: [] }, state: emptyState('prod') };

  test('a delete of a protected object is refused naming it, why and how to let it go', () => {
    const error = protectionViolation(computed({ protect: true, retainOnDelete: false }), 'apply', stack);
    expect(error?.code).toBe('protected');
    expect(error?.message).toContain('prod/alice (auth/userpass/users/alice): its construct was removed from the code');
    expect(protectionViolation(computed({ protect: true, retainOnDelete: false }), 'destroy', stack)?.message).toContain('`secretform destroy` would delete it');
  });

  test('a protected object that is retained, or an unprotected delete, passes', () => {
    expect(protectionViolation(computed({ protect: true, retainOnDelete: true }), 'apply', stack)).toBeUndefined();
    expect(protectionViolation(computed({ protect: false, retainOnDelete: false }), 'apply', stack)).toBeUndefined();
  });

  describe('a protected object that lives in a container the plan deletes or replaces', () => {
    const MOUNT = getResourceType('auth_mount');
    /** The plan of the auth mount `userpass` (only in state: a delete), or of its replacement. */
    const mountPlan = (action: 'delete' | 'replace') => {
      const { plan } = diffResource({
        address: 'prod/userpass', resourceType: MOUNT, secrets: {}, fingerprintKey: KEY, refreshOnly: false,
        stateEntry: { type: 'auth_mount', id: 'sys/auth/userpass', attributes: { path: 'userpass', type: 'userpass' }, secrets: {}, dependencies: [], applied_at: '2026-01-01T00:00:00Z' },
        live: { attributes: { path: 'userpass', type: 'userpass' }, data: {} },
      });
      expect(plan.change.action).toBe('delete');
      return action === 'delete' ? plan : { ...plan, change: { ...plan.change, action: 'replace' as const } };
    };
    const protectedAlice = { desired: { stack: 'prod', resources: [] }, state: { ...emptyState('prod'), resources: { 'prod/alice': userState({}, { protect: true }) } } };

    test('outside the run (--target), only in state: the delete and the replace of its mount are refused, naming both', () => {
      for (const action of ['delete', 'replace'] as const) {
        const computation = planComputation('prod', false, new Map([['prod/userpass', mountPlan(action)]]), []);
        const error = protectionViolation(computation, 'apply', protectedAlice);
        expect(error?.code).toBe('protected');
        expect(error?.message).toContain(`prod/alice (auth/userpass/users/alice): lives in prod/userpass (sys/auth/userpass), which the plan would ${action}, taking it with it`);
        expect(error?.message).toContain('remove `protect` from prod/alice');
      }
    });

    test('in the run, unchanged and protected in code (its mount named by path): refused', () => {
      const { plan: alice } = diffResource({ ...base, desired: userDesired({}, { protect: true }), stateEntry: userState({}), live: live({}) });
      const resources = new Map([['prod/alice', { ...alice, guardrails: { protect: true, retainOnDelete: false } }], ['prod/userpass', mountPlan('delete')]]);
      const error = protectionViolation(planComputation('prod', false, resources, []), 'apply', { desired: { stack: 'prod', resources: [] }, state: emptyState('prod') });
      expect(error?.message).toContain('prod/alice (auth/userpass/users/alice): lives in prod/userpass');
    });

    test('unprotected, or already gone from the service, or only planned: the delete of the mount passes', () => {
      const computation = planComputation('prod', false, new Map([['prod/userpass', mountPlan('delete')]]), []);
      const unprotected = { ...protectedAlice, state: { ...emptyState('prod'), resources: { 'prod/alice': userState({}) } } };
      expect(protectionViolation(computation, 'apply', unprotected)).toBeUndefined();
      const { plan: gone } = diffResource({ ...base, desired: userDesired({}, { protect: true }), live: { attributes: null, data: null } });
      const withGone = new Map([['prod/alice', { ...gone, guardrails: { protect: true, retainOnDelete: false } }], ['prod/userpass', mountPlan('delete')]]);
      expect(protectionViolation(planComputation('prod', false, withGone, []), 'apply', stack)).toBeUndefined();
    });
  });
});

/**
 * The engine's read for the hooks, over canned bodies: a 2xx body of another shape than the call's tells nothing
 * (withConsequences phrases it with the endpoint), a missing path answers 404 (`body` undefined).
 */
function serving(bodies: Record<string, unknown>, calls: string[] = []): ConsequenceRead {
  return (call) => {
    calls.push(`${call.method} ${call.path}`);
    const key = `${call.method} ${call.path}`;
    if (!(key in bodies)) return Promise.resolve({ ok: true, body: undefined });
    const problem = call.answers.problem(bodies[key]);
    return Promise.resolve(problem === undefined ? { ok: true, body: bodies[key] } : { ok: false, why: `${key} answered HTTP 200 with ${problem}` });
  };
}

describe('countListed', () => {
  const tree: Record<string, unknown> = {
    'LIST kv/metadata': { data: { keys: ['a', 'team/', 'web'] } },
    'LIST kv/metadata/team': { data: { keys: ['db', 'deep/'] } },
    'LIST kv/metadata/team/deep': { data: { keys: ['x'] } },
  };

  test('counts the entries of every folder, LISTing each once', async () => {
    const calls: string[] = [];
    expect(await countListed(serving(tree, calls), 'kv/metadata')).toEqual({ count: 4, atLeast: false });
    expect(calls).toEqual(['LIST kv/metadata', 'LIST kv/metadata/team', 'LIST kv/metadata/team/deep']);
  });

  test('a missing path counts 0; a bare array answer, and an empty listing, are read too', async () => {
    expect(await countListed(serving({}), 'nothing')).toEqual({ count: 0, atLeast: false });
    expect(await countListed(serving({ 'LIST ldap/static-role': ['r1', 'r2'] }), 'ldap/static-role')).toEqual({ count: 2, atLeast: false });
    expect(await countListed(serving({ 'LIST kv': { data: { keys: [] } } }), 'kv')).toEqual({ count: 0, atLeast: false });
    expect(await countListed(serving({ 'LIST kv': [] }), 'kv')).toEqual({ count: 0, atLeast: false });
  });

  test('stops at the bound and says "at least"', async () => {
    let calls = 0;
    const endless: ConsequenceRead = () => Promise.resolve({ ok: true, body: { data: { keys: ['leaf', `f${(calls += 1)}/`] } } });
    expect(await countListed(endless, 'deep')).toEqual({ count: MAX_LIST_CALLS, atLeast: true });
    expect(calls).toBe(MAX_LIST_CALLS);
  });

  test.each<[string, unknown]>([
    ['{}', {}],
    ['an envelope without keys', { data: {} }],
    ['keys that are not an array', { data: { keys: 'a' } }],
    ['keys that are not all strings', { data: { keys: ['a', 7] } }],
    ['a JSON null', null],
    ['no body', undefined],
  ])('a listing answered 200 with %s is no count at all, never 0', async (_name, body) => {
    expect(await countListed(serving({ 'LIST kv/metadata': body }), 'kv/metadata')).toEqual({ uncounted: expect.stringContaining('LIST kv/metadata answered HTTP 200 with') });
  });

  test('one folder deep in the tree that answers no listing leaves the whole count unknown', async () => {
    const counted = await countListed(serving({ ...tree, 'LIST kv/metadata/team/deep': { data: {} } }), 'kv/metadata');
    expect(counted).toEqual({ uncounted: 'LIST kv/metadata/team/deep answered HTTP 200 with an object without "keys" where a list was expected' });
  });
});

describe('the types\' consequences hooks', () => {
  const answering = (answers: Record<string, unknown>, calls: string[] = []) => serving(answers, calls);

  test('a directory engine mount counts its static roles, dynamic roles and library sets (hierarchies included)', async () => {
    const read = answering({
      'LIST team/ldap/static-role': ['a', 'apps/'],
      'LIST team/ldap/static-role/apps': ['b'],
      'LIST team/ldap/library': ['pool'],
    });
    const consequences = await getResourceType('secrets_mount').consequences({ path: 'team/ldap' }, { path: 'team/ldap', type: 'ldap' }, read);
    expect(consequences).toEqual([expect.objectContaining({ what: 'static roles', count: 2 }), expect.objectContaining({ what: 'library sets', count: 1 })]);
  });

  test('a KV version 1 mount is listed at its root, version 2 under metadata/', async () => {
    const calls: string[] = [];
    const mount = getResourceType('secrets_mount');
    await mount.consequences({ path: 'old' }, { path: 'old', type: 'kv' }, answering({}, calls));
    await mount.consequences({ path: 'new' }, { path: 'new', type: 'kv', options: { version: '2' } }, answering({}, calls));
    expect(calls).toEqual(['LIST old', 'LIST new/metadata']);
  });

  test('an auth mount counts its users; a destination the secrets its associations synced; an association its copy', async () => {
    const users = await getResourceType('auth_mount').consequences({ path: 'userpass' }, { path: 'userpass', type: 'userpass' }, answering({ 'LIST auth/userpass/users': { data: { keys: ['a', 'b', 'c'] } } }));
    expect(users).toEqual([expect.objectContaining({ what: 'users', count: 3 })]);
    const destination = getResourceType('sync_destination_repohost');
    const synced = await destination.consequences({ name: 'ci' }, { name: 'ci' }, answering({
      'GET sys/sync/destinations/repohost/ci/associations': { data: { associated_secrets: { 'kv_1/app/db': {}, 'kv_1/app/api': {} } } },
    }));
    expect(synced).toEqual([expect.objectContaining({ what: 'synced secrets', count: 2 })]);
    const calls: string[] = [];
    const association = await getResourceType('sync_association').consequences(
      { destination_type: 'repohost', destination_name: 'ci', mount: 'secret', secret_name: 'app/db' }, {}, answering({}, calls));
    expect(association).toEqual([expect.objectContaining({ what: 'external secrets', count: 1 })]);
    expect(calls).toEqual([]);
  });

  test('a type without the hook has no consequences and reads nothing', async () => {
    const calls: string[] = [];
    expect(await USER.consequences({ mount: 'userpass', username: 'a' }, {}, answering({}, calls))).toEqual([]);
    expect(calls).toEqual([]);
  });

  test('a listing that is not one makes a consequence that could not be counted, beside the kinds that could', async () => {
    const consequences = await getResourceType('secrets_mount').consequences({ path: 'team/ldap' }, { path: 'team/ldap', type: 'ldap' }, answering({
      'LIST team/ldap/static-role': { data: {} },
      'LIST team/ldap/library': ['pool'],
    }));
    expect(consequences).toEqual([
      {
        what: 'static roles',
        uncounted: 'LIST team/ldap/static-role answered HTTP 200 with an object without "keys" where a list was expected',
        detail: 'the static roles stored in ldap mount "team/ldap" are deleted with it (and its leases revoked)',
      },
      expect.objectContaining({ what: 'library sets', count: 1 }),
    ]);
    const users = await getResourceType('auth_mount').consequences({ path: 'userpass' }, { path: 'userpass', type: 'userpass' }, answering({ 'LIST auth/userpass/users': {} }));
    expect(users).toEqual([expect.objectContaining({ what: 'users', uncounted: expect.stringContaining('LIST auth/userpass/users answered HTTP 200') })]);
  });

  test.each<[string, unknown]>([
    ['{}', {}],
    ['an envelope without associated_secrets', { data: { store_name: 'ci' } }],
    ['an envelope whose data is null', { data: null }],
  ])('a destination whose associations answer 200 with %s: its synced secrets could not be counted', async (_name, body) => {
    const synced = await getResourceType('sync_destination_repohost').consequences({ name: 'ci' }, { name: 'ci' }, answering({ 'GET sys/sync/destinations/repohost/ci/associations': body }));
    expect(synced).toEqual([expect.objectContaining({ what: 'synced secrets', uncounted: expect.stringContaining('GET sys/sync/destinations/repohost/ci/associations answered HTTP 200 with') })]);
  });

  test('a read that tells nothing (a denial) is the same unknown; a destination with no association and a 404 count nothing', async () => {
    const denied: ConsequenceRead = (call) => Promise.resolve({ ok: false, why: `${call.method} /v1/${call.path} failed with HTTP 403: permission denied.` });
    expect(await getResourceType('secrets_mount').consequences({ path: 'apps' }, { path: 'apps', type: 'kv', options: { version: '2' } }, denied)).toEqual([
      expect.objectContaining({ what: 'secrets', uncounted: 'LIST /v1/apps/metadata failed with HTTP 403: permission denied.' }),
    ]);
    const destination = getResourceType('sync_destination_repohost');
    expect(await destination.consequences({ name: 'ci' }, { name: 'ci' }, answering({ 'GET sys/sync/destinations/repohost/ci/associations': { data: { associated_secrets: {} } } }))).toEqual([]);
    expect(await destination.consequences({ name: 'ci' }, { name: 'ci' }, answering({}))).toEqual([]);
  });
});

describe('ignored secrets', () => {
  const key = FingerprintKey.keyed(Buffer.from('k'), 'test');
  test('a write that replaces the whole object still carries an ignored secret, so the service does not clear it', () => {
    const resourceType = getResourceType('sync_destination_repohost');
    const spec = { name: 'ci', repository_owner: 'org', repository_name: 'repo' };
    const desired = {
      address: 'prod/ci', type: resourceType.type, id: 'sys/sync/destinations/repohost/ci', spec: { ...spec, installation_id: '42' },
      secrets: { access_token: SecretValue.fromEnv('TOKEN') }, dependsOn: [], digest: 'd', lifecycle: { ignoreChanges: ['access_token'] },
    };
    const stateEntry: ResourceState = { type: resourceType.type, id: desired.id, attributes: spec, secrets: {}, dependencies: [], applied_at: 'x' };
    const { plan } = diffResource({
      address: 'prod/ci', resourceType, desired, stateEntry, live: { attributes: { ...spec }, data: {} }, secrets: { access_token: 't' },
      fingerprintKey: key, refreshOnly: false,
    });
    expect(plan.change.action).toBe('update');
    expect(plan.writeSecrets).toEqual(['access_token']);
  });
});

describe('a consequences hook that throws', () => {
  test('fails closed: an uncounted consequence ("could not be counted") and its warning, never nothing', async () => {
    const mountType = getResourceType('auth_mount');
    // A hook with a bug: it throws instead of answering (the real hooks turn every answer into a count or a reason).
    const throwing = { ...mountType, consequences: () => Promise.reject(new Error('the listing parser broke')) };
    const stateEntry: ResourceState = { type: mountType.type, id: 'sys/auth/people', attributes: { path: 'people', type: 'userpass' }, secrets: {}, dependencies: [], applied_at: 'x' };
    const { plan } = diffResource({
      address: 'prod/people', resourceType: throwing, stateEntry, live: { attributes: { path: 'people', type: 'userpass' }, data: {} }, secrets: {}, fingerprintKey: KEY, refreshOnly: false,
    });
    expect(plan.change.action).toBe('delete');
    const config = loadClientConfig({ SERVICE_ADDR: 'http://127.0.0.1:1', SERVICE_TOKEN: 'unused' });
    if (!config.ok) throw new Error(config.error.message);
    const client = new ServiceClient(config.config);
    const counted = await withConsequences(planComputation('prod', false, new Map([[plan.address, plan]]), []), client, 1);
    await client.close();
    const [change] = counted.plan.changes;
    expect(change.consequences).toEqual([{
      what: 'objects',
      uncounted: 'counting what auth_mount sys/auth/people holds failed: the listing parser broke',
      detail: 'whatever sys/auth/people holds on the service goes with it',
    }]);
    expect(counted.plan.warnings).toEqual(['prod/people: could not count the objects its delete takes with it on the service (counting what auth_mount sys/auth/people holds failed: the listing parser broke); review them by hand']);
    // The reports say it could not be counted, as for a read that could not be counted.
    expect(consequenceComments(change)).toEqual([
      '  # ! an unknown number of objects go with it: whatever sys/auth/people holds on the service goes with it',
      '  #   could not be counted: counting what auth_mount sys/auth/people holds failed: the listing parser broke',
    ]);
  });
});
