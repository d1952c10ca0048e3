import type { EngineOptions } from './engine-options';
import { ok, type Result } from './errors';
import type { Plan } from './plan/plan';
import { planRun, prepareRun, readRunState } from './run-context';

/**
 * Refreshes every resource of the desired state and of the state file (or the targets and what they need) and
 * diffs them into a plan. Reads only: nothing is written, on the service or in state.
 */
export async function plan(options: EngineOptions): Promise<Result<Plan>> {
  const context = prepareRun(options);
  if (!context.ok) return context;
  const state = await readRunState(context.value);
  if (!state.ok) return state;
  const planned = await planRun(context.value, state.value, 'apply');
  if (!planned.ok) return planned;
  await planned.value.client.close();
  return ok(planned.value.computation.plan);
}
