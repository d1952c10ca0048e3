/**
 * computePlan over a real dev server: refresh and diff of every selected resource into one frozen plan, what
 * lives in a replaced object replaced with it, and a moved address renamed rather than deleted.
 */
import { ServiceClient } from '../../src/client';
import type { DesiredResource, DesiredStack } from '../../src/engine/setup/desired';
import { computePlan, type ComputePlanInput } from '../../src/engine/plan/compute-plan';
import { FingerprintKey } from '../../src/engine/state/fingerprint';
import { emptyState, type ResourceState, type StateFile } from '../../src/engine/state/state-file';
import { getResourceType } from '../../src/resources/registry';
import { startHarness, unwrap, type Harness } from './engine-harness';

let h: Harness;
let client: ServiceClient;
beforeAll(async () => {
  h = await startHarness();
  const created = ServiceClient.fromEnv(h.env);
  if (!created.ok) throw new Error(created.error.message);
  client = created.client;
});
afterAll(async () => {
  await client.close();
  await h.close();
});

function resource(address: string, type: string, spec: Record<string, unknown>, dependsOn: string[] = []): DesiredResource {
  const resourceType = getResourceType(type);
  return { address, type, id: resourceType.id(resourceType.normaliseDesired(spec)), spec, secrets: {}, dependsOn, digest: `sha256:${address}` };
}

function recorded(entry: DesiredResource, dependencies: string[] = entry.dependsOn.slice()): ResourceState {
  const resourceType = getResourceType(entry.type);
  return { type: entry.type, id: entry.id, attributes: resourceType.normaliseDesired(entry.spec), secrets: {}, dependencies, applied_at: '2026-01-01T00:00:00Z' };
}

function input(desired: DesiredStack, state: StateFile, overrides: Partial<ComputePlanInput> = {}): ComputePlanInput {
  const addresses = new Set([...desired.resources.map((r) => r.address), ...Object.keys(state.resources)]);
  return {
    client, stack: 'test', desired, state, selected: addresses, secrets: new Map(), fingerprintKey: FingerprintKey.none('test'), mode: 'apply',
    refreshOnly: false, parallelism: 4, warnings: [], ...overrides,
  };
}

test('every resource of code and state gets one change, in address order, and the plan is frozen', async () => {
  expect((await h.call('POST', 'sys/auth/people', { type: 'userpass' })).status).toBeLessThan(300);
  expect((await h.call('POST', 'auth/people/users/bob', { password: 'x', token_ttl: 60 })).status).toBeLessThan(300);
  expect((await h.call('POST', 'auth/people/users/carol', { password: 'x' })).status).toBeLessThan(300);
  const mount = resource('test/people', 'auth_mount', { path: 'people', type: 'userpass' });
  const alice = resource('test/alice', 'userpass_user', { mount: 'people', username: 'alice' }, ['test/people']);
  const bob = resource('test/bob', 'userpass_user', { mount: 'people', username: 'bob', token_ttl: '2m' }, ['test/people']);
  const carol = resource('test/carol', 'userpass_user', { mount: 'people', username: 'carol' }, ['test/people']);
  const state = { ...emptyState('test'), resources: { 'test/people': recorded(mount), 'test/bob': recorded(bob), 'test/carol': recorded(carol) } };
  const { plan, resources } = unwrap(await computePlan(input({ stack: 'test', resources: [mount, alice, bob] }, state)));

  expect(plan.changes.map((c) => [c.address, c.action])).toEqual([
    ['test/alice', 'create'], ['test/bob', 'update'], ['test/carol', 'delete'], ['test/people', 'no-op'],
  ]);
  expect(plan.changes[1].fieldChanges).toEqual([{ field: 'token_ttl', from: 60, to: 120, forcesReplacement: false }]);
  expect(plan.drift).toEqual([expect.objectContaining({ address: 'test/bob', kind: 'changed' })]);
  expect([...resources.keys()]).toEqual(plan.changes.map((c) => c.address));
  expect(Object.isFrozen(plan) && Object.isFrozen(plan.changes) && Object.isFrozen(plan.changes[0].fieldChanges)).toBe(true);
  expect(() => (plan.changes as unknown as unknown[]).push({})).toThrow();
});

test('what lives in a replaced object is replaced with it, even outside the selection', async () => {
  expect((await h.call('POST', 'sys/sync/destinations/cloud1-sm/dest', { region: 'eu-west-1' })).status).toBeLessThan(300);
  expect((await h.call('POST', 'secret/data/db', { data: { password: 'p' } })).status).toBeLessThan(300);
  expect((await h.call('POST', 'sys/sync/destinations/cloud1-sm/dest/associations/set', { mount: 'secret', secret_name: 'db' })).status).toBeLessThan(300);
  const destination = resource('test/dest', 'sync_destination_cloud1_sm', { name: 'dest', region: 'us-east-1' });
  const association = resource('test/assoc', 'sync_association', {
    destination_type: 'cloud1-sm', destination_name: 'dest', mount: 'secret', secret_name: 'db',
  }, ['test/dest']);
  const state = {
    ...emptyState('test'),
    resources: { 'test/dest': { ...recorded(destination), attributes: { name: 'dest', region: 'eu-west-1' } }, 'test/assoc': recorded(association) },
  };
  const desired = { stack: 'test', resources: [destination, association] };
  const { plan } = unwrap(await computePlan(input(desired, state, { selected: new Set(['test/dest']) })));
  expect(plan.changes.map((c) => [c.address, c.action, c.reasons])).toEqual([
    ['test/assoc', 'replace', [{ kind: 'container_replaced', replaced: ['test/dest'] }]],
    ['test/dest', 'replace', [{ kind: 'immutable_fields', fields: ['region'] }]],
  ]);
});

test('an address renamed in code (same type and id) is a move: planned at the new address, from the old one', async () => {
  const mount = resource('test/people', 'auth_mount', { path: 'people', type: 'userpass' });
  const renamed = resource('test/users/bob', 'userpass_user', { mount: 'people', username: 'bob', token_ttl: 60 }, ['test/people']);
  const state = { ...emptyState('test'), resources: { 'test/people': recorded(mount), 'test/bob': recorded({ ...renamed, address: 'test/bob' }) } };
  const { plan, resources } = unwrap(await computePlan(input({ stack: 'test', resources: [mount, renamed] }, state)));
  expect(plan.changes.find((c) => c.address === 'test/bob')).toBeUndefined();
  expect(plan.changes.find((c) => c.address === 'test/users/bob')).toMatchObject({ action: 'no-op', previousAddress: 'test/bob' });
  expect(resources.get('test/users/bob')?.movedFrom).toBe('test/bob');
});
