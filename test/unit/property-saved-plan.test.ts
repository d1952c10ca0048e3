/**
 * Every plan the engine can write is readable (fast-check, fixed seed): plans with every action, every reason
 * kind, every secret status (`managed_by_service` after `rotate-root` included), every drift kind, moved
 * addresses and dependencies go through `writeSavedPlan` -> `readSavedPlan` -> the three renderers `show` uses,
 * and come back equal to what was written. The lists the generators draw from are the engine's own, so a value
 * added to the engine is generated here without editing this test.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { renderReport } from '../../src/cli/views/plan-report';
import { stackReport } from '../../src/report';
import { DRIFT_KINDS, PLAN_ACTIONS, SECRET_STATUSES, type ActionReason, type DriftEntry, type Plan, type PlannedChange } from '../../src/engine/plan/plan';
import { ACTION_REASON_KINDS } from '../../src/engine/saved-plan/plan-schema';
import { readSavedPlan, SAVED_PLAN_FORMAT, SAVED_PLAN_VERSION, writeSavedPlan, type SavedPlan } from '../../src/engine/saved-plan/saved-plan';
import { RESOURCE_TYPES } from '../../src/resources/registry';
import type { Consequence } from '../../src/resources/types';
import { tempDir } from '../support/temp-dir';

const SEED = 20261125;
const RUNS = 150;

let dir: string;
beforeAll(() => {
  dir = tempDir('secretform-saved-plan-property-');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/);
const text = fc.string({ maxLength: 20 });
const names = fc.array(name, { maxLength: 3 });
const attributes = fc.dictionary(name, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
const address = fc.tuple(name, name).map(([stack, id]) => `${stack}/${id}`);
const typeName = fc.constantFrom(...RESOURCE_TYPES.map((resourceType) => resourceType.type));

/** One generator per reason kind; the test below checks that there is one for every kind the schema has. */
const REASONS: Record<ActionReason['kind'], fc.Arbitrary<ActionReason>> = {
  deleted_outside: fc.constant({ kind: 'deleted_outside' }),
  identity_changed: fc.record({ kind: fc.constant('identity_changed'), from: text, to: text }),
  immutable_fields: fc.record({ kind: fc.constant('immutable_fields'), fields: names }),
  container_replaced: fc.record({ kind: fc.constant('container_replaced'), replaced: fc.array(address, { maxLength: 3 }) }),
  changed_outside: fc.constant({ kind: 'changed_outside' }),
  secret_differs: fc.record({ kind: fc.constant('secret_differs'), fields: names }),
  unhealthy: fc.record({ kind: fc.constant('unhealthy'), label: text, status: text }),
  root_credential_changed: fc.record({ kind: fc.constant('root_credential_changed'), fields: names }),
  adopt: fc.constant({ kind: 'adopt' }),
  forget_deleted: fc.constant({ kind: 'forget_deleted' }),
};
const reason = fc.oneof(...Object.values(REASONS));

const secretStatus = fc.record(
  { field: name, status: fc.constantFrom(...SECRET_STATUSES), rotatedAt: fc.date({ noInvalidDate: true }).map((date) => date.toISOString()) },
  { requiredKeys: ['field', 'status'] },
);

/** What a delete takes with it: counted (exactly, or at least), or not countable (the reason instead of a count). */
const consequence: fc.Arbitrary<Consequence> = fc.oneof(
  fc.record({ what: name, count: fc.nat(), atLeast: fc.boolean(), detail: text }, { requiredKeys: ['what', 'count', 'detail'] }),
  fc.record({ what: name, uncounted: text, detail: text }),
);

const change: fc.Arbitrary<PlannedChange> = fc.record(
  {
    address,
    type: typeName,
    id: text,
    action: fc.constantFrom(...PLAN_ACTIONS),
    previousAddress: address,
    reasons: fc.array(reason, { maxLength: 3 }),
    before: fc.option(attributes, { nil: null }),
    after: fc.option(attributes, { nil: null }),
    sensitive: names,
    replacePaths: fc.array(names, { maxLength: 2 }),
    fieldChanges: fc.array(fc.record({ field: name, from: fc.jsonValue({ maxDepth: 1 }), to: fc.jsonValue({ maxDepth: 1 }), forcesReplacement: fc.boolean() }), { maxLength: 3 }),
    secrets: fc.array(secretStatus, { maxLength: 3 }),
    dependsOn: fc.array(address, { maxLength: 2 }),
    consequences: fc.array(consequence, { maxLength: 2 }),
    // Where the construct is declared (synth's creation site), which SARIF and the markdown policy section read.
    source: fc.record({ file: fc.string({ minLength: 1 }), line: fc.integer({ min: 1, max: 100_000 }), column: fc.integer({ min: 1, max: 500 }) }),
  },
  { requiredKeys: ['address', 'type', 'id', 'action', 'reasons', 'before', 'after', 'sensitive', 'replacePaths', 'fieldChanges', 'secrets'] },
);

const drift: fc.Arbitrary<DriftEntry> = fc.record(
  {
    address,
    type: typeName,
    id: text,
    kind: fc.constantFrom(...DRIFT_KINDS),
    before: fc.option(attributes, { nil: null }),
    after: fc.option(attributes, { nil: null }),
    fields: fc.array(fc.record({ field: name, applied: fc.jsonValue({ maxDepth: 1 }), live: fc.jsonValue({ maxDepth: 1 }) }), { maxLength: 3 }),
    detail: text,
    health: fc.record({ headline: text, label: text }),
  },
  { requiredKeys: ['address', 'type', 'id', 'kind', 'before', 'after', 'fields'] },
);

const plan: fc.Arbitrary<Plan> = fc.record({
  stack: name,
  refreshOnly: fc.boolean(),
  changes: fc.uniqueArray(change, { maxLength: 6, selector: (entry) => entry.address }),
  drift: fc.array(drift, { maxLength: 4 }),
  warnings: fc.array(text, { maxLength: 2 }),
});

function savedPlanOf(value: Plan): SavedPlan {
  return {
    format: SAVED_PLAN_FORMAT,
    format_version: SAVED_PLAN_VERSION,
    created_at: '2026-11-25T00:00:00.000Z',
    stack: value.stack,
    refresh_only: value.refreshOnly,
    targets: [],
    state: { location: '/tmp/state.json', lineage: 'lineage-1', serial: 3 },
    desired: [],
    live_objects: {},
    plan: value,
  };
}

let files = 0;
async function roundTrip(value: Plan): Promise<Plan> {
  const file = join(dir, `plan-${(files += 1)}.json`);
  const written = await writeSavedPlan(file, savedPlanOf(value));
  if (!written.ok) throw written.error;
  const read = await readSavedPlan(file);
  if (!read.ok) throw new Error(`a plan the engine can write was not readable: ${read.error.message}`);
  return read.value.plan;
}

describe('saved plans: every plan the engine can write is readable', () => {
  test('the generators cover every action, reason kind, secret status and drift kind the engine has', () => {
    expect(Object.keys(REASONS).sort()).toEqual([...ACTION_REASON_KINDS].sort());
    // The lists are the engine's: `managed_by_service` (a rotated root) is one of them.
    expect(SECRET_STATUSES).toContain('managed_by_service');
    expect(PLAN_ACTIONS.length).toBeGreaterThan(0);
    expect(DRIFT_KINDS).toEqual(expect.arrayContaining(['changed', 'deleted', 'out_of_sync']));
  });

  test('one plan with every action, reason kind, secret status and drift kind reads back equal and renders in every format', async () => {
    const every: Plan = {
      stack: 'prod',
      refreshOnly: false,
      changes: PLAN_ACTIONS.flatMap((action, index) =>
        ACTION_REASON_KINDS.map((kind, reasonIndex) => ({
          address: `prod/${action}-${kind}`,
          type: RESOURCE_TYPES[(index + reasonIndex) % RESOURCE_TYPES.length].type,
          id: `mount/${action}/${kind}`,
          action,
          previousAddress: reasonIndex === 0 ? `prod/old-${action}` : undefined,
          reasons: [fc.sample(REASONS[kind], { numRuns: 1, seed: SEED })[0]],
          before: action === 'create' ? null : { name: kind },
          after: action === 'delete' ? null : { name: kind },
          sensitive: ['password'],
          replacePaths: action === 'replace' ? [['name']] : [],
          fieldChanges: action === 'update' ? [{ field: 'name', from: 'a', to: 'b', forcesReplacement: false }] : [],
          secrets: SECRET_STATUSES.map((status) => ({ field: `secret_${status}`, status, rotatedAt: status === 'managed_by_service' ? '2026-11-25T10:00:00Z' : undefined })),
          dependsOn: ['prod/base'],
          ...(action === 'delete' || action === 'replace'
            ? { consequences: [
              { what: 'secrets', count: 3, atLeast: true, detail: 'the secrets stored in it are deleted with it' },
              { what: 'users', uncounted: 'LIST /v1/auth/x/users answered HTTP 200 with an object without "keys"', detail: 'its users are deleted with it' },
            ] }
            : {}),
        })),
      ),
      drift: DRIFT_KINDS.map((kind) => ({
        address: `prod/drift-${kind}`,
        type: 'sync_association',
        id: `sys/sync/${kind}`,
        kind,
        before: { name: 'a' },
        after: kind === 'deleted' ? null : { name: 'b' },
        fields: kind === 'changed' ? [{ field: 'name', applied: 'a', live: 'b' }] : [],
        ...(kind === 'changed' || kind === 'deleted' ? {} : { detail: 'PENDING', health: { headline: 'is out of sync on the service', label: 'sync status' } }),
      })),
      warnings: ['a warning'],
    };
    const read = await roundTrip(every);
    expect(read).toEqual(JSON.parse(JSON.stringify(every)));
    for (const format of ['text', 'markdown', 'json'] as const) expect(renderReport([stackReport(read)], format, false).join('').length).toBeGreaterThan(0);
    expect(renderReport([stackReport(read)], 'text', false).join('')).toContain('rotated by the service at 2026-11-25T10:00:00Z');
    // A count that could not be made reads back unknown in every format, never as 0.
    expect(renderReport([stackReport(read)], 'text', false).join('')).toContain('an unknown number of users go with it');
    const json = JSON.parse(renderReport([stackReport(read)], 'json', false).join('')) as { resource_changes: Array<{ consequences?: unknown[] }> };
    expect(json.resource_changes.flatMap((entry) => entry.consequences ?? [])).toContainEqual(expect.objectContaining({ what: 'users', count: null }));
  });

  test('any generated plan goes through write -> read -> show unchanged', async () => {
    await fc.assert(
      fc.asyncProperty(plan, async (value) => {
        const read = await roundTrip(value);
        expect(read).toEqual(JSON.parse(JSON.stringify(value)));
        for (const format of ['text', 'markdown', 'json'] as const) renderReport([stackReport(read)], format, false);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
  // The envelope's fields this format version added: the stacks a plan depends on (for files of separate runs)
  // and why a plan carries no MAC. Both must survive the file as written.
  test('a saved plan with depends_on and unverified reads back with both', async () => {
    await fc.assert(
      fc.asyncProperty(plan, fc.option(names, { nil: undefined }), fc.option(text.filter((value) => value.length > 0), { nil: undefined }), async (value, dependsOn, unverified) => {
        const file = join(dir, `envelope-${(files += 1)}.json`);
        const saved: SavedPlan = { ...savedPlanOf(value), ...(dependsOn === undefined ? {} : { depends_on: dependsOn }), ...(unverified === undefined ? {} : { unverified }) };
        const written = await writeSavedPlan(file, saved);
        if (!written.ok) throw written.error;
        const read = await readSavedPlan(file);
        if (!read.ok) throw new Error(`a plan the engine can write was not readable: ${read.error.message}`);
        expect(read.value.depends_on).toEqual(dependsOn);
        expect(read.value.unverified).toEqual(unverified);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
