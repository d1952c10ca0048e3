/**
 * A refusal of a saved plan of several stacks names the refused stack in the error's subject, once
 * (describeEngineError writes it), never in its message: a message that named it too printed the stack twice.
 */
import { checkSavedPlanSetWithoutService } from '../../src/engine';
import { SAVED_PLAN_FORMAT, type SavedPlan } from '../../src/engine/saved-plan/saved-plan';
import { describeEngineError } from '../../src/report/engine-error';
import { emptyPlan } from './report-plan-fixture';

function unsigned(stack: string): SavedPlan {
  return {
    format: SAVED_PLAN_FORMAT,
    format_version: 2,
    created_at: '2026-11-25T00:00:00.000Z',
    stack,
    refresh_only: false,
    targets: [],
    state: { location: `/tmp/${stack}.json`, lineage: `l-${stack}`, serial: 2 },
    desired: [],
    live_objects: {},
    plan: emptyPlan(),
  };
}

const env = { SECRETFORM_STATE_KEY: 'unit-state-key' };

test('a stack of a set of two whose plan has no MAC: its stack is the subject, named once', () => {
  const set = { plans: [unsigned('blue'), unsigned('green')], dependencies: { blue: [], green: [] } };
  const checked = checkSavedPlanSetWithoutService(set, env, () => 'both.plan');
  expect(checked.ok).toBe(false);
  if (checked.ok) return;
  expect(checked.error.subject).toEqual({ stack: 'blue' });
  expect(checked.error.message).not.toMatch(/^stack /);
  expect(describeEngineError(checked.error)).toBe(`stack blue: ${checked.error.message}`);
});

test('a set of one: the error names no stack, as a run of one stack does', () => {
  const checked = checkSavedPlanSetWithoutService({ plans: [unsigned('blue')], dependencies: { blue: [] } }, env, () => 'blue.plan');
  expect(checked.ok).toBe(false);
  if (checked.ok) return;
  expect(checked.error.subject).toEqual({});
  expect(describeEngineError(checked.error)).toBe(checked.error.message);
});
