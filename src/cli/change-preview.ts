/**
 * What apply and destroy show of the stacks' plans before asking for approval: the plans as `plan` shows them,
 * except for destroy with nothing in state, which has no plan worth showing: the line that says why stands in its
 * place (`No resources in state for stack prod to destroy. Nothing to do.`). A run of one stack shows it alone, a
 * run over several under each stack's name, so that a stack says there what it says when it runs alone.
 */
import type { Plan } from '../engine/plan/plan';
import { renderText, type StackReport, type TextOptions } from '../report';
import type { ChangeCommand } from './apply-report';
import { hasNothingToDo, nothingToDoLine } from './nothing-to-do';

/** Whether the preview of `plan` is the line that says there is nothing to destroy, not the plan. */
export function showsNothingToDestroy(command: ChangeCommand, plan: Plan): boolean {
  return command === 'destroy' && hasNothingToDo(plan);
}

/** The preview of the stacks' plans (a section per stack, as the engine hands them over), ending with a newline. */
export function previewText(command: ChangeCommand, previews: readonly StackReport[], options: TextOptions): string {
  const standIn = (plan: Plan) => (showsNothingToDestroy(command, plan) ? nothingToDoLine(command, plan.refreshOnly, { stack: plan.stack }) : undefined);
  return renderText(previews, { ...options, standIn });
}
