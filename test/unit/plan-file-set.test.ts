/**
 * Saved plans of several files joined into one set (`show`/`apply PLANFILE...`), the pure parts: a stack in two
 * files refused naming both, the dependencies across files from each stack's `depends_on` (those on stacks no
 * file holds left out), the order a plan over the same stacks takes; and the origin checks before any request:
 * a stack the app's synth output does not hold, a plan made against another state.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { joinPlanFiles, type PlanFile } from '../../src/engine/saved-plan/plan-file-set';
import { checkPlanFilesOrigin } from '../../src/engine/saved-plan/plan-file-origin';
import type { SavedPlan } from '../../src/engine/saved-plan/saved-plan';
import type { SavedPlanSet } from '../../src/engine/saved-plan/saved-plan-set';
import { orderSavedPlanSet } from '../../src/engine/stacks/stack-order';
import { tempDir } from '../support/temp-dir';

/** A stack's saved plan: only what joining reads (its name, dependencies and state) is meaningful here. */
function saved(stack: string, dependsOn?: string[], location = `/state/${stack}.json`): SavedPlan {
  return {
    format: 'secretform-saved-plan', format_version: 1, created_at: '2026-01-01T00:00:00.000Z', stack, refresh_only: false, targets: [],
    state: { location, lineage: `lineage-${stack}`, serial: 1 }, desired: [], live_objects: {},
    ...(dependsOn ? { depends_on: dependsOn } : {}),
    plan: { changes: [], drift: [] } as unknown as SavedPlan['plan'],
  };
}

const file = (name: string, plans: SavedPlan[], dependencies: Record<string, string[]> = {}): PlanFile =>
  ({ file: name, set: { plans, dependencies: { ...Object.fromEntries(plans.map((plan) => [plan.stack, []])), ...dependencies } } });

const stacksOf = (set: SavedPlanSet) => set.plans.map((plan) => plan.stack);

describe('joinPlanFiles', () => {
  test('files of one stack each become one set, ordered as a plan over those stacks: dependencies first, then by name', () => {
    const joined = joinPlanFiles([file('api.plan', [saved('api', ['platform', 'network'])]), file('web.plan', [saved('web', [])]), file('platform.plan', [saved('platform', [])])]);
    if (!joined.ok) throw joined.error;
    // `network` is in no file: it was (or will be) applied by another run, and orders nothing here.
    expect(joined.value.dependencies).toEqual({ api: ['platform'], platform: [], web: [] });
    const ordered = orderSavedPlanSet(joined.value);
    if (!ordered.ok) throw ordered.error;
    expect(stacksOf(ordered.value)).toEqual(['platform', 'api', 'web']);
  });

  test('a file of several stacks keeps the dependencies it records between them', () => {
    const joined = joinPlanFiles([file('both.plan', [saved('b'), saved('a')], { a: ['b'] }), file('c.plan', [saved('c', ['a'])])]);
    if (!joined.ok) throw joined.error;
    expect(joined.value.dependencies).toEqual({ a: ['b'], b: [], c: ['a'] });
    const ordered = orderSavedPlanSet(joined.value);
    expect(ordered.ok && stacksOf(ordered.value)).toEqual(['b', 'a', 'c']);
  });

  test('a stack in two files is refused, naming the stack and both files', () => {
    const joined = joinPlanFiles([file('one.plan', [saved('api')]), file('two.plan', [saved('web'), saved('api')])]);
    expect(joined.ok).toBe(false);
    if (!joined.ok) {
      expect(joined.error.code).toBe('plan_file');
      expect(joined.error.message).toMatch(/^stack api is in one\.plan and in two\.plan, so nothing was read or changed: .*`secretform plan --stack api --out PLANFILE`/);
    }
    const twice = joinPlanFiles([file('same.plan', [saved('api')]), file('same.plan', [saved('api')])]);
    expect(!twice.ok && twice.error.message).toMatch(/^stack api is twice in same\.plan/);
  });

  test('dependencies in a cycle across files are an error naming it', () => {
    const joined = joinPlanFiles([file('a.plan', [saved('a', ['b'])]), file('b.plan', [saved('b', ['a'])])]);
    if (!joined.ok) throw joined.error;
    const ordered = orderSavedPlanSet(joined.value);
    expect(!ordered.ok && ordered.error.message).toMatch(/cycle: a -> b -> a/);
  });
});

describe('checkPlanFilesOrigin', () => {
  const outdir = tempDir('secretform-plan-origin-');
  writeFileSync(join(outdir, 'manifest.json'), JSON.stringify({ version: '0.21.0', stacks: { api: {}, platform: {} } }));
  mkdirSync(join(outdir, 'stacks'), { recursive: true });
  const cwd = '/project';
  const env = {};
  const setOf = (...plans: SavedPlan[]): SavedPlanSet => ({ plans, dependencies: {} });
  const fileOf = (stack: string) => `${stack}.plan`;

  test('stacks of this app planned against this run\'s state pass', () => {
    const local = (stack: string) => saved(stack, [], `/project/.secretform/${stack}.state.json`);
    expect(checkPlanFilesOrigin(setOf(local('api'), local('platform')), fileOf, { outdir, env, cwd }).ok).toBe(true);
    const url = 'postgres://reader:***@db.internal:5432/fleet?schema=team';
    const pg = (stack: string) => saved(stack, [], url);
    // The role may differ (a plan job reading with a read-only role); the database and schema may not.
    expect(checkPlanFilesOrigin(setOf(pg('api')), fileOf, { outdir, env, cwd, statePath: 'postgres://writer:pw@db.internal/fleet?schema=team' }).ok).toBe(true);
    const other = checkPlanFilesOrigin(setOf(pg('api')), fileOf, { outdir, env, cwd, statePath: 'postgres://writer:pw@db.internal/fleet?schema=other' });
    expect(!other.ok && other.error.message).toBe(
      `api.plan was planned against the state ${url} for stack api, but this run's state for it is postgres://writer:***@db.internal/fleet?schema=other, so nothing was read or changed: apply with the state the plans were made with (--state or SECRETFORM_STATE), or plan again against this one`);
  });

  test('a stack the app\'s synth output does not hold is another app\'s', () => {
    const refused = checkPlanFilesOrigin(setOf(saved('billing', [], '/project/.secretform/billing.state.json')), fileOf, { outdir, env, cwd });
    expect(!refused.ok && refused.error.message).toBe(`billing.plan holds stack billing, which is not a stack of this app (${outdir} holds api, platform): it was made from another app, so nothing was read or changed: apply each app's plans from that app's directory`);
  });

  test('without a synth output, the files cannot be told to be this app\'s: synth first', () => {
    const refused = checkPlanFilesOrigin(setOf(saved('api')), fileOf, { outdir: join(outdir, 'missing'), env, cwd });
    expect(!refused.ok && refused.error.message).toMatch(/its synth output cannot be read \(.*manifest\.json: does not exist \(run `secretform synth` first\)\), so nothing was read or changed: run `secretform synth` of the checkout first, or name the output with --output$/);
  });
});
