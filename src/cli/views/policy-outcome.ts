/** What `plan` says, after its reports, when a mandatory policy failed in any of its stacks (then it exits 1). */
import type { Plan } from '../../engine/plan/plan';
import { CommandFailure } from '../run/command-failure';
import { POLICY_FAILURE_ADVICE } from '../../engine/policy/policy-stage';
import { mandatoryFailureLines } from '../../policy/evaluation';

/** The failure of a plan whose mandatory policies failed; undefined when none did. */
export function mandatoryPolicyFailure(plans: readonly Plan[]): CommandFailure | undefined {
  const failures = plans.flatMap((plan) => mandatoryFailureLines(plan.policy));
  if (failures.length === 0) return undefined;
  return new CommandFailure('policy_failed', `${failures.length} mandatory polic${failures.length === 1 ? 'y' : 'ies'} failed; apply will refuse this plan:\n  ${failures.join('\n  ')}\n${POLICY_FAILURE_ADVICE}`);
}
