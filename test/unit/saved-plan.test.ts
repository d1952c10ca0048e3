import { chmodSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlanComputation } from '../../src/engine/plan/compute-plan';
import type { Plan } from '../../src/engine/plan/plan';
import type { ResourcePlan } from '../../src/engine/plan/resource-plan';
import { liveDigest } from '../../src/engine/saved-plan/live-digest';
import { readSavedPlan, SAVED_PLAN_FORMAT, SAVED_PLAN_VERSION, writeSavedPlan, type SavedPlan } from '../../src/engine/saved-plan/saved-plan';
import { readSavedPlanSet, SAVED_PLAN_SET_FORMAT } from '../../src/engine/saved-plan/saved-plan-set';
import { liveDigests, staleReasons } from '../../src/engine/saved-plan/staleness';
import type { StateFile } from '../../src/engine/state/state-file';
import { getResourceType } from '../../src/resources/registry';
import { change, emptyPlan } from './report-plan-fixture';
import { tempDir } from '../support/temp-dir';

const userpass = getResourceType('userpass_user');
const ALICE = { mount: 'userpass', username: 'alice', token_ttl: 3600, token_policies: ['default'] };

function computation(live: Record<string, Record<string, unknown> | null>, plan: Plan = planOf(Object.keys(live))): PlanComputation {
  const resources = new Map<string, ResourcePlan>();
  for (const [address, attributes] of Object.entries(live)) {
    resources.set(address, {
      address,
      resourceType: userpass,
      change: plan.changes.find((c) => c.address === address)!,
      live: { attributes, data: attributes },
      deleteIdentity: {},
      writeAttributes: {},
      clear: [],
      writeCall: false,
      writeSecrets: [],
      dependencies: [],
    });
  }
  return { plan, resources };
}

function planOf(addresses: string[], secretStatus: 'changed' | 'unverifiable' = 'unverifiable'): Plan {
  return emptyPlan({
    changes: addresses.map((address) => change({ address, action: 'update', type: 'userpass_user', secrets: [{ field: 'password', status: secretStatus }] })),
  });
}

function state(lineage: string, serial: number): StateFile {
  return { version: 1, lineage, serial, stack: 'prod', resources: {} };
}

function saved(from: PlanComputation, ref: { lineage: string; serial: number }): SavedPlan {
  return {
    format: SAVED_PLAN_FORMAT,
    format_version: 1,
    created_at: '2026-01-01T00:00:00.000Z',
    stack: 'prod',
    refresh_only: false,
    targets: [],
    state: { location: '/tmp/x.state.json', ...ref },
    desired: [],
    live_objects: liveDigests(from),
    // What apply reads back from the file: the plan after a JSON round trip.
    plan: JSON.parse(JSON.stringify(from.plan)),
  };
}

describe('liveDigest', () => {
  test('depends on the non-secret attributes, not on their key order', () => {
    const digest = liveDigest(userpass, ALICE);
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(liveDigest(userpass, { token_policies: ['default'], token_ttl: 3600, username: 'alice', mount: 'userpass' })).toBe(digest);
    expect(liveDigest(userpass, { ...ALICE, token_ttl: 7200 })).not.toBe(digest);
    expect(liveDigest(userpass, null)).toBeNull();
  });

  test('leaves secret fields out, so it is never a hash of a secret', () => {
    expect(liveDigest(userpass, { ...ALICE, password: 'one-value' })).toBe(liveDigest(userpass, ALICE));
    expect(liveDigest(userpass, { ...ALICE, password: 'another-value' })).toBe(liveDigest(userpass, ALICE));
  });
});

describe('staleReasons', () => {
  const made = computation({ 'prod/alice': ALICE, 'prod/bob': null });

  test('a plan whose state, live objects and recomputed plan are unchanged is not stale', () => {
    expect(staleReasons(saved(made, { lineage: 'L', serial: 4 }), state('L', 4), computation({ 'prod/alice': { ...ALICE }, 'prod/bob': null }))).toEqual([]);
  });

  test('a state never written holds while it is still unwritten, whatever lineage each read made up', () => {
    expect(staleReasons(saved(made, { lineage: 'first-read', serial: 0 }), state('second-read', 0), made)).toEqual([]);
    expect(staleReasons(saved(made, { lineage: 'first-read', serial: 0 }), state('L', 1), made)).toEqual([
      'the state changed since the plan was made (serial 0 then, 1 now)',
    ]);
  });

  test('another serial or another lineage makes the plan stale', () => {
    expect(staleReasons(saved(made, { lineage: 'L', serial: 4 }), state('L', 5), made)).toEqual(['the state changed since the plan was made (serial 4 then, 5 now)']);
    expect(staleReasons(saved(made, { lineage: 'L', serial: 4 }), state('M', 4), made)).toEqual(['the state is another one (lineage M, the plan was made from L)']);
  });

  test('a live object changed, deleted or created since makes the plan stale, naming it', () => {
    const now = computation({ 'prod/alice': { ...ALICE, token_ttl: 60 }, 'prod/bob': ALICE });
    expect(staleReasons(saved(made, { lineage: 'L', serial: 4 }), state('L', 4), now)).toEqual([
      'live objects changed on the service since the plan was made: prod/alice (changed), prod/bob (created)',
    ]);
    const gone = computation({ 'prod/alice': null, 'prod/bob': null });
    expect(staleReasons(saved(made, { lineage: 'L', serial: 4 }), state('L', 4), gone)[0]).toContain('prod/alice (deleted)');
  });

  test('a plan computed now that differs from the saved one (a secret value changed) is stale', () => {
    const now = computation({ 'prod/alice': ALICE, 'prod/bob': null }, planOf(['prod/alice', 'prod/bob'], 'changed'));
    expect(staleReasons(saved(made, { lineage: 'L', serial: 4 }), state('L', 4), now)).toEqual([
      'the plan computed now differs for prod/alice, prod/bob (a secret\'s value or SECRETFORM_STATE_KEY changed since the plan was made)',
    ]);
  });
});

describe('saved plan files', () => {
  const dir = tempDir('secretform-saved-plan-unit-');

  test('are written readable by the owner only, also over a wider existing file, and read back as written', async () => {
    const file = join(dir, 'plan.json');
    writeFileSync(file, 'old');
    chmodSync(file, 0o644);
    const plan = saved(made(), { lineage: 'L', serial: 2 });
    expect((await writeSavedPlan(file, plan)).ok).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const read = await readSavedPlan(file);
    expect(read).toEqual({ ok: true, value: plan });
  });

  test('that are not saved plans, or of another format version, are refused saying how to get a good one', async () => {
    const other = join(dir, 'other.json');
    writeFileSync(other, JSON.stringify({ format_version: '1.0', resource_changes: [] }));
    const notPlan = await readSavedPlan(other);
    expect(!notPlan.ok && notPlan.error.message).toMatch(/is not a secretform saved plan \(at format: .*\); make one with `secretform plan --out /);
    writeFileSync(other, JSON.stringify({ format: SAVED_PLAN_FORMAT, format_version: 9 }));
    const newer = await readSavedPlan(other);
    expect(!newer.ok && newer.error.message).toContain('was made by a newer version of secretform (saved plan format version 9; this secretform reads versions 1 and 2)');
    writeFileSync(other, '{not json');
    const broken = await readSavedPlan(other);
    expect(!broken.ok && broken.error.code).toBe('plan_file');
  });

  test('of format version 1 (made before version 2) are still read; a newer set is refused as made by a newer version', async () => {
    const file = join(dir, 'version-1.json');
    const plan = { ...saved(made(), { lineage: 'L', serial: 2 }), format_version: 1 as const };
    writeFileSync(file, JSON.stringify(plan));
    expect(await readSavedPlanSet(file)).toEqual({ ok: true, value: { plans: [plan], dependencies: { [plan.stack]: [] } } });
    const set = join(dir, 'set-version-1.json');
    writeFileSync(set, JSON.stringify({ format: SAVED_PLAN_SET_FORMAT, format_version: 1, created_at: 'now', dependencies: { prod: [] }, stacks: [plan] }));
    expect((await readSavedPlanSet(set)).ok).toBe(true);
    writeFileSync(set, JSON.stringify({ format: SAVED_PLAN_SET_FORMAT, format_version: 2, created_at: 'now', dependencies: { prod: [] }, stacks: [plan] }));
    const newer = await readSavedPlanSet(set);
    expect(!newer.ok && newer.error.message).toContain('was made by a newer version of secretform (saved plan format version 2; this secretform reads version 1)');
    // What this version writes is version 2.
    expect(SAVED_PLAN_VERSION).toBe(2);
  });

  test('keep a consequence that could not be counted as such: apply PLANFILE shows it unknown, not 0', async () => {
    const file = join(dir, 'uncounted.json');
    const deleted = change({
      address: 'prod/apps', action: 'delete', type: 'secrets_mount', id: 'sys/mounts/apps', before: { path: 'apps', type: 'kv' },
      consequences: [
        { what: 'secrets', uncounted: 'LIST /v1/apps/metadata answered HTTP 200 with an object without "keys" where a list was expected', detail: 'the secrets stored in kv mount "apps" are deleted with it' },
        { what: 'roles', count: 3, detail: 'the roles are deleted with it' },
      ],
    });
    const plan = { ...saved(made(), { lineage: 'L', serial: 2 }), plan: JSON.parse(JSON.stringify(emptyPlan({ changes: [deleted] }))) };
    expect((await writeSavedPlan(file, plan)).ok).toBe(true);
    expect(await readSavedPlan(file)).toEqual({ ok: true, value: plan });
  });

  function made(): PlanComputation {
    return computation({ 'prod/alice': ALICE });
  }
});
