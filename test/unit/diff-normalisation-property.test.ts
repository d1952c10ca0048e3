/**
 * Property-based tests of diff normalisation, on the cloud role (durations, a comma-string set, and a JSON list
 * of objects the server fills with equivalent keys): a desired value and the server's form of it never differ
 * (in plan or in destroy's drift check), and a real change on the server always shows.
 */
import fc from 'fast-check';
import { diffResource } from '../../src/engine/plan/resource-diff';
import { refreshRequestFor } from '../../src/engine/refresh/refresh-request';
import { getResourceType } from '../../src/resources/registry';
import type { DesiredResource } from '../../src/engine/setup/desired';
import { FingerprintKey } from '../../src/engine/state/fingerprint';

const RUNS = 200;
const SEED = 9_2026;
const role = getResourceType('cloud_secret_role');
const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/);

const input = fc.record({
  ttlSeconds: fc.integer({ min: 0, max: 10_000_000 }),
  ttlUnit: fc.constantFrom('s', 'm', 'h', 'number'),
  tags: fc.uniqueArray(word, { maxLength: 6 }),
  roles: fc.uniqueArray(fc.record({ scope: fc.constantFrom('/subscriptions/a', '/subscriptions/b'), role_name: word }), { maxLength: 5, selector: (r) => `${r.scope}|${r.role_name}` }),
  order: fc.integer({ min: 0, max: 1000 }),
});

type Input = typeof input extends fc.Arbitrary<infer T> ? T : never;

function desiredTtl({ ttlSeconds, ttlUnit }: Input): string | number {
  if (ttlUnit === 'h' && ttlSeconds % 3600 === 0) return `${ttlSeconds / 3600}h`;
  if (ttlUnit === 'm' && ttlSeconds % 60 === 0) return `${ttlSeconds / 60}m`;
  if (ttlUnit === 's') return `${ttlSeconds}s`;
  return ttlSeconds;
}

/** Rotates a list: the server keeps no order. */
function reorder<T>(list: T[], by: number): T[] {
  if (list.length === 0) return list;
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

function desiredOf(value: Input): DesiredResource {
  const spec = { mount: 'cloud', name: 'deployer', ttl: desiredTtl(value), tags: value.tags, cloud_roles: value.roles };
  return { address: 'p/role', type: role.type, id: role.id(role.normaliseDesired(spec)), spec, secrets: {}, dependsOn: [], digest: 'd' };
}

/** The server's answer: seconds, a comma string, a JSON string with role ids filled in, all in its own order. */
function serverAnswer(value: Input, ttl = value.ttlSeconds): unknown {
  const roles = reorder(value.roles, value.order).map((r) => ({ ...r, role_id: `/roles/${r.role_name}-id` }));
  return { data: { ttl, tags: reorder(value.tags, value.order + 1).join(','), cloud_roles: JSON.stringify(roles), max_ttl: 0, persist_app: false } };
}

function plan(value: Input, raw: unknown, mode: 'apply' | 'destroy') {
  const desired = desiredOf(value);
  const canonical = role.normaliseDesired(desired.spec);
  const recorded = { type: role.type, id: desired.id, attributes: canonical, secrets: {}, dependencies: [], applied_at: 'now' };
  const request = refreshRequestFor(desired.address, role, { desired: desired.spec, desiredId: desired.id, recorded, identity: mode === 'apply' ? 'desired' : 'recorded' });
  const live = role.normaliseRead(raw, request.identity, request.desired);
  return diffResource({
    address: desired.address,
    resourceType: role,
    desired: mode === 'apply' ? desired : undefined,
    stateEntry: recorded,
    live: { attributes: live, data: null },
    secrets: {},
    fingerprintKey: FingerprintKey.none('the property needs no secret'),
    refreshOnly: false,
  }).plan;
}

describe('diff normalisation (property-based, fast-check)', () => {
  test(`a value and its server-normalised form never differ, in plan or destroy (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(input, (value) => {
        const applied = plan(value, serverAnswer(value), 'apply');
        expect(applied.change.action).toBe('no-op');
        expect(applied.drift).toBeUndefined();
        const destroyed = plan(value, serverAnswer(value), 'destroy');
        expect(destroyed.change.action).toBe('delete');
        expect(destroyed.drift).toBeUndefined();
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  test(`a real change on the server always shows, as drift and as the change that puts it back (${RUNS} runs)`, () => {
    fc.assert(
      fc.property(input, fc.integer({ min: 1, max: 100_000 }), (value, delta) => {
        const changed = plan(value, serverAnswer(value, value.ttlSeconds + delta), 'apply');
        expect(changed.change.action).toBe('update');
        expect(changed.change.fieldChanges.map((c) => c.field)).toEqual(['ttl']);
        expect(changed.drift?.fields.map((f) => f.field)).toEqual(['ttl']);
        const destroyed = plan(value, serverAnswer(value, value.ttlSeconds + delta), 'destroy');
        expect(destroyed.drift?.fields.map((f) => f.field)).toEqual(['ttl']);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
