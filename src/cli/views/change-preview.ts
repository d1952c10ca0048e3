/**
 * What apply and destroy show of a stack's plan before asking for approval: the plan as `plan` shows it, except
 * for destroy with nothing in state, which has no plan worth showing: the line that says why stands in its place
 * (`No resources in state for stack prod to destroy. Nothing to do.`). A run of one stack shows it alone, a run
 * over several under each stack's name, so that a stack says there what it says when it runs alone.
 */
import type { StackPreview } from '../../engine';
import type { Plan } from '../../engine/plan/plan';
import { renderText, shouldUseColor, type TextOptions } from '../../report';
import type { ChangeCommand } from './apply-report';
import type { CliIo } from '../run/io';
import { hasNothingToDo, nothingToDoLine } from './nothing-to-do';

/** Whether the preview of `plan` is the line that says there is nothing to destroy, not the plan. */
export function showsNothingToDestroy(command: ChangeCommand, plan: Plan): boolean {
  return command === 'destroy' && hasNothingToDo(plan);
}

/** The preview of the stacks' plans (a section per stack, as the engine hands them over), ending with a newline. */
export function previewText(command: ChangeCommand, previews: readonly StackPreview[], options: TextOptions): string {
  const standIn = (plan: Plan) => (showsNothingToDestroy(command, plan) ? nothingToDoLine(command, plan.refreshOnly, { stack: plan.stack }) : undefined);
  return renderText(previews, { ...options, standIn });
}

/** What the preview leaves to do: ask for approval, or nothing (then whether the run goes on without asking). */
export type PreviewDecision = { kind: 'ask' } | { kind: 'nothing to do'; proceed: boolean };

/**
 * Prints what the run will do and decides whether there is anything to approve: a run of one stack shows its
 * plan alone, a run over several each stack's plan under its name and the total. When nothing is to be done
 * nothing is asked: apply still records the refreshed state (drift the code now matches), which needs no
 * approval; destroy and `--refresh-only` stop there. When no stack can run at all (each failed, or waits for one
 * that did), no line says so: their errors say why.
 */
export function showChangePreview(command: ChangeCommand, previews: readonly StackPreview[], several: boolean, refreshOnly: boolean, io: CliIo): PreviewDecision {
  const textOptions = { color: shouldUseColor(io.stdout, io.env) };
  const planned = previews.flatMap((preview) => (preview.status === 'done' ? [preview.value] : []));
  io.stdout.write(previewText(command, previews, textOptions));
  if (!planned.every(hasNothingToDo)) return { kind: 'ask' };
  // One stack's `No resources in state for stack prod to destroy.` was its preview: said once.
  if (several ? planned.length > 0 : !showsNothingToDestroy(command, planned[0])) {
    io.stdout.write(`\n${nothingToDoLine(command, refreshOnly, several ? { stacks: planned.map((plan) => plan.stack) } : { stack: planned[0].stack })}\n`);
  }
  return { kind: 'nothing to do', proceed: command === 'apply' && !refreshOnly };
}
