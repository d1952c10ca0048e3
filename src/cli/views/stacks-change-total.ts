/**
 * The line apply and destroy over several stacks end with, after each stack's result: what a run of one stack
 * ends with, summed over the stacks, so that a CI log says in one line what the whole run did, as plan's total
 * does for a plan. `Total over 3 stacks: Apply complete! Resources: 3 added, 1 changed, 0 destroyed.`
 *
 * When a stack failed (its run stopped with an error, or an operation of it failed), was interrupted (Ctrl-C)
 * or was skipped, the run did not complete: the line says so instead of "complete!", counting those stacks in
 * plan's total's words (a stack is interrupted or failed by what its own report says, `whyUnfinished`), then
 * what the stacks that ran did (what state records): `Total over 3 stacks: Apply did not complete (1 stack
 * failed, 1 interrupted, 1 skipped). Resources: 2 added, 0 changed, 0 destroyed.`
 */
import type { StacksChangeResult } from '../../engine';
import { problemsWords, stackCount, type StackProblems } from '../../report/stacks-view';
import { changeSummary, completeLine, countResources, recordedRefreshOnly, refreshOnlySummary, whyUnfinished, type ChangeCommand, type RunSummary } from './apply-report';

export function stacksChangeTotalLine(command: ChangeCommand, result: StacksChangeResult): string {
  const ran = result.stacks.flatMap((outcome) => (outcome.status === 'done' ? [outcome.value] : []));
  const unfinished = ran.filter((stack) => !stack.succeeded).map(whyUnfinished);
  const problems: StackProblems = {
    failed: result.stacks.filter((outcome) => outcome.status === 'failed').length + unfinished.filter((why) => why !== 'interrupted').length,
    interrupted: unfinished.filter((why) => why === 'interrupted').length,
    skipped: result.stacks.filter((outcome) => outcome.status === 'skipped').length,
  };
  // A run carries out every stack's plan in one mode (refresh-only or not): any stack that ran tells which.
  const summary: RunSummary = ran.some((stack) => stack.plan.refreshOnly)
    ? refreshOnlySummary(ran.filter(recordedRefreshOnly).reduce((sum, stack) => sum + stack.plan.drift.length, 0))
    : changeSummary(command, countResources(ran.flatMap((stack) => stack.outcomes)));
  const problemWords = problemsWords(problems);
  const line = problemWords === '' ? completeLine(summary) : `${summary.run} did not complete (${problemWords}). ${summary.did}.`;
  return `Total over ${stackCount(result.stacks.length)}: ${line}`;
}
