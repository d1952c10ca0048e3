/** The policy step of a run: evaluate the loaded packs over the plan, and refuse apply on a mandatory failure. */
import { evaluatePolicies } from '../../policy/evaluate';
import { mandatoryFailureLines } from '../../policy/evaluation';
import type { LoadedPolicies } from '../../policy/loaded-policies';
import type { PolicyDesiredInput } from './resource-view';
import { EngineError, fail, ok, type Result } from '../errors';
import type { Plan } from '../plan/plan';
import type { DesiredResource } from '../setup/desired';

/** The plan with its policy results (and waiver warnings); the plan unchanged when no pack was given. */
export async function planWithPolicies(plan: Plan, desired: readonly DesiredResource[], loaded: LoadedPolicies | undefined): Promise<Result<Plan>> {
  if (loaded === undefined || loaded.packs.length === 0) return ok(plan);
  const evaluated = await evaluatePolicies(plan, desired.map(policyInputOf), loaded);
  if (!evaluated.ok) return fail(new EngineError('policy_error', evaluated.error.message));
  // The plan is a value: the results make a new one.
  return ok(Object.freeze({ ...plan, policy: evaluated.evaluation, warnings: Object.freeze([...plan.warnings, ...evaluated.warnings]) }));
}

/** Why apply must not write anything: the failed mandatory policies, each named with its address; undefined when none. */
export function policyRefusal(plan: Plan): EngineError | undefined {
  const lines = mandatoryFailureLines(plan.policy);
  if (lines.length === 0) return undefined;
  return new EngineError(
    'policy_failed',
    `${lines.length} mandatory polic${lines.length === 1 ? 'y' : 'ies'} failed, so nothing was changed:\n  ${lines.join('\n  ')}\n` +
      'Fix the code, or waive the policy on the construct with a reason (`policyWaivers: { \'<policy id>\': \'<why>\' }`).',
  );
}

function policyInputOf(resource: DesiredResource): PolicyDesiredInput {
  return {
    address: resource.address,
    type: resource.type,
    spec: resource.spec,
    secretFields: Object.keys(resource.secrets),
    ...(resource.policyWaivers !== undefined ? { policyWaivers: resource.policyWaivers } : {}),
  };
}
