/**
 * What apply and destroy say, in place of an approval prompt, when a plan gives them nothing to do: `Nothing to
 * apply.` (apply still records the refreshed state, which needs no approval), `Nothing to record.`
 * (`--refresh-only` with no drift), `No resources in state for stack prod to destroy. Nothing to do.`. One
 * stack says it after its plan. A run over several stacks says it once, after the plans, when no stack has
 * anything to do (`Nothing to apply in 3 stacks.`), and otherwise under the name of each stack that has
 * nothing, so that every stack's section says what a run of that stack alone says.
 */
import { hasActions, type Plan } from '../../engine/plan/plan';
import { stackCount } from '../../report/stacks-view';
import type { ChangeCommand } from './apply-report';

/** Whether the plan gives apply or destroy nothing to do: no action (or move) to carry out, or no drift to record. */
export function hasNothingToDo(plan: Plan): boolean {
  return plan.refreshOnly ? plan.drift.length === 0 : !hasActions(plan);
}

/** Where there is nothing to do: one stack (a run of one stack, or one stack's section), or every planned stack of a run. */
export type NothingToDoScope = { stack: string } | { stacks: readonly string[] };

export function nothingToDoLine(command: ChangeCommand, refreshOnly: boolean, scope: NothingToDoScope): string {
  const nothingTo = `Nothing to ${refreshOnly ? 'record' : 'apply'}`;
  if ('stack' in scope) return command === 'destroy' ? nothingToDestroy(`stack ${scope.stack}`) : `${nothingTo}.`;
  const count = scope.stacks.length;
  if (command === 'destroy') return nothingToDestroy(count === 1 ? `stack ${scope.stacks[0]}` : `any of the ${count} stacks`);
  return `${nothingTo} in ${stackCount(count)}.`;
}

/** destroy names where it found nothing: it deletes what state records, so an empty state is the reason. */
function nothingToDestroy(where: string): string {
  return `No resources in state for ${where} to destroy. Nothing to do.`;
}
