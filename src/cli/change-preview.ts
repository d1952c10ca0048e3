/**
 * What apply and destroy show of a stack's plan before asking for approval: the plan as `plan` shows it, except
 * for destroy with nothing in state, which has no plan worth showing: the line that says why stands in its place
 * (`No resources in state for stack prod to destroy. Nothing to do.`). A run of one stack shows it alone, a run
 * over several under each stack's name, so that a stack says there what it says when it runs alone.
 */
import type { Plan } from '../engine/plan/plan';
import { renderText, type TextOptions } from '../report';
import type { ChangeCommand } from './apply-report';
import { hasNothingToDo, nothingToDoLine } from './nothing-to-do';

/** Whether the preview of `plan` is the line that says there is nothing to destroy, not the plan. */
export function showsNothingToDestroy(command: ChangeCommand, plan: Plan): boolean {
  return command === 'destroy' && hasNothingToDo(plan);
}

/** The preview of `plan`, ending with a newline. */
export function previewText(command: ChangeCommand, plan: Plan, options: TextOptions): string {
  if (showsNothingToDestroy(command, plan)) return `${nothingToDoLine(command, plan.refreshOnly, { stack: plan.stack })}\n`;
  return renderText(plan, options);
}
