/** What `plan` says, after its reports, when a mandatory policy failed in any of its stacks (then it exits 1). */
import type { Plan } from '../../engine/plan/plan';
import { POLICY_FAILURE_ADVICE } from '../../engine/policy/policy-stage';
import { mandatoryFailureLines } from '../../policy/evaluation';

/** The error of a plan whose mandatory policies failed; undefined when none did. */
export function mandatoryPolicyFailure(plans: readonly Plan[]): string | undefined {
  const failures = plans.flatMap((plan) => mandatoryFailureLines(plan.policy));
  if (failures.length === 0) return undefined;
  return `${failures.length} mandatory polic${failures.length === 1 ? 'y' : 'ies'} failed; apply will refuse this plan:\n  ${failures.join('\n  ')}\n${POLICY_FAILURE_ADVICE}`;
}
