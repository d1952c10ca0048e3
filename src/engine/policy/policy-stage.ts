/**
 * The policy step of a run: evaluate the loaded packs over the plan, refuse apply on a mandatory failure, and
 * refuse a saved plan that recorded one.
 */
import { mandatoryFailureLines } from '../../policy/evaluation';
import type { LoadedPolicies } from '../../policy/loaded-policies';
import { EngineError, fail, ok, type Result } from '../errors';
import type { Plan } from '../plan/plan';
import type { DesiredResource } from '../setup/desired';
import { evaluatePolicies, type PolicyRunSettings } from './plan-evaluation';
import type { PolicyDesiredInput } from './resource-view';

/** The plan with its policy results (and waiver warnings); the plan unchanged when no pack was given. */
export async function planWithPolicies(plan: Plan, desired: readonly DesiredResource[], loaded: LoadedPolicies | undefined, settings: PolicyRunSettings = {}): Promise<Result<Plan>> {
  if (loaded === undefined || loaded.packs.length === 0) return ok(plan);
  const evaluated = await evaluatePolicies(plan, desired.map(policyInputOf), loaded, settings);
  if (!evaluated.ok) return fail(new EngineError(evaluated.error.interrupted ? 'interrupted' : 'policy_error', evaluated.error.message));
  // The plan is a value: the results make a new one.
  return ok(Object.freeze({ ...plan, policy: evaluated.evaluation, warnings: Object.freeze([...plan.warnings, ...evaluated.warnings]) }));
}

/** How to get past a failed mandatory policy, in plan's error and apply's refusal alike. */
export const POLICY_FAILURE_ADVICE = 'Fix the code, or waive the policy on the construct with a reason (`policyWaivers: { \'<policy id>\': \'<why>\' }`).';

/** Why apply must not write anything: the failed mandatory policies, each named with its address; undefined when none. */
export function policyRefusal(plan: Plan): EngineError | undefined {
  const lines = mandatoryFailureLines(plan.policy);
  if (lines.length === 0) return undefined;
  return new EngineError(
    'policy_failed',
    `${lines.length} mandatory polic${lines.length === 1 ? 'y' : 'ies'} failed, so nothing was changed:\n  ${lines.join('\n  ')}\n${POLICY_FAILURE_ADVICE}`,
  );
}

/**
 * A saved plan that recorded a failed mandatory policy is never applied, whatever the packs say now: the plan
 * that was reviewed is the one that failed (a pack changed since cannot make it pass).
 */
export function savedPlanPolicyRefusal(recorded: Plan, planFile: string): EngineError | undefined {
  const lines = mandatoryFailureLines(recorded.policy);
  if (lines.length === 0) return undefined;
  return new EngineError(
    'policy_failed',
    `${lines.length} mandatory polic${lines.length === 1 ? 'y' : 'ies'} failed, so nothing was changed:\n  ${lines.join('\n  ')}\n` +
      `The saved plan ${planFile} recorded ${lines.length === 1 ? 'this failure' : 'these failures'} when it was made, so it is never applied, even if the packs pass now. ` +
      'Fix the code, or waive the policy on the construct with a reason (`policyWaivers: { \'<policy id>\': \'<why>\' }`); ' +
      'then make a new plan, review it, and apply that one (`secretform plan --out PLANFILE`).',
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
