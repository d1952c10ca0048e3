/**
 * What apply and destroy print after the run: skipped operations, failures, the terraform-style summary
 * (`Apply complete! Resources: 2 added, 1 changed, 0 destroyed.`) and when it is due `Total time`.
 */
import type { ApplyResult, OperationOutcome, StateOnlyChange } from '../../engine/run/apply-options';
import { writeError, writeWarning, type CliIo } from '../run/io';
import { operationLine, type ProgressReporter } from '../run/progress';
import { rerunCommand, WHOLE_RUN, type RunSelection } from './rerun-command';

export type ChangeCommand = 'apply' | 'destroy';

export interface ResourceCounts {
  added: number;
  changed: number;
  destroyed: number;
}

/**
 * Resources the succeeded operations added, changed and destroyed. A replacement runs as two operations
 * (`replace:delete`, then `replace:create`): each is counted when it succeeded, so a completed replacement both
 * adds and destroys.
 */
export function countResources(outcomes: OperationOutcome[]): ResourceCounts {
  const counts: ResourceCounts = { added: 0, changed: 0, destroyed: 0 };
  for (const outcome of outcomes) {
    if (outcome.status !== 'succeeded') continue;
    if (outcome.action === 'create' || outcome.action === 'replace:create') counts.added++;
    else if (outcome.action === 'update') counts.changed++;
    else if (outcome.action === 'delete' || outcome.action === 'replace:delete') counts.destroyed++;
  }
  return counts;
}

/**
 * A run's summary line in two parts: which run it was (`Apply`, `Destroy`, `Refresh-only apply`) and what it did
 * (`Resources: 2 added, 1 changed, 0 destroyed`), so that the total over several stacks says it in the same words.
 */
export interface RunSummary {
  run: string;
  did: string;
}

/** What apply or destroy did: the resources its succeeded operations added, changed and destroyed. */
export function changeSummary(command: ChangeCommand, counts: ResourceCounts): RunSummary {
  if (command === 'destroy') return { run: 'Destroy', did: `Resources: ${counts.destroyed} destroyed` };
  return { run: 'Apply', did: `Resources: ${counts.added} added, ${counts.changed} changed, ${counts.destroyed} destroyed` };
}

/** What `apply --refresh-only` did: what it recorded, and that the service was not touched. */
export function refreshOnlySummary(drifted: number): RunSummary {
  return {
    run: 'Refresh-only apply',
    did: `Recorded the live state of ${drifted} drifted resource${drifted === 1 ? '' : 's'} in state; nothing was changed on the service`,
  };
}

/** `Apply complete! Resources: 2 added, 1 changed, 0 destroyed.`: the line a run that succeeded ends with. */
export function completeLine(summary: RunSummary): string {
  return `${summary.run} complete! ${summary.did}.`;
}

export function summaryLine(command: ChangeCommand, counts: ResourceCounts): string {
  return completeLine(changeSummary(command, counts));
}

export function refreshOnlySummaryLine(drifted: number): string {
  return completeLine(refreshOnlySummary(drifted));
}

/** Whether `result` is a refresh-only apply that succeeded: it ends with what it recorded, not resource counts. */
export function recordedRefreshOnly(result: ApplyResult): boolean {
  return result.plan.refreshOnly && result.succeeded;
}

/** How a stack's result was reported: its exit code, and whether it was an apply or destroy result (`timed`). */
export interface WrittenResult {
  exitCode: number;
  /** Reported by `writeApplyResult` (succeeded or not): `Total time` follows it (see `writeTotalTime`). */
  timed: boolean;
}

/**
 * One stack's result, as a run of that stack alone reports it: a refresh-only apply that succeeded says what it
 * recorded (its summary line alone), any other run what `writeApplyResult` says (with `selection` in its advice).
 */
export function writeResult(command: ChangeCommand, result: ApplyResult, io: CliIo, selection: RunSelection = WHOLE_RUN): WrittenResult {
  if (recordedRefreshOnly(result)) {
    io.stdout.write(`\n${refreshOnlySummaryLine(result.plan.drift.length)}\n`);
    return { exitCode: 0, timed: false };
  }
  return { exitCode: writeApplyResult(command, result, io, selection), timed: true };
}

/**
 * `Total time: 4.2 s`, the last line of a run whose report holds an apply or destroy result (`Apply complete!`,
 * `Destroy complete!`, or why the run did not finish): once, after that result for one stack, after the total
 * line for several. A run with none (a refresh-only apply that recorded; a run of one stack with nothing to
 * apply; a cancelled run) ran no operation on the service, so it has no time to give.
 */
export function writeTotalTime(written: readonly WrittenResult[], clock: Pick<ProgressReporter, 'totalLine'>, io: CliIo): void {
  if (written.some((result) => result.timed)) io.stdout.write(`${clock.totalLine()}\n`);
}

/** A run of one stack: its result (`selection` in its advice), then `Total time` when it is due. Returns the exit code. */
export function writeRunResult(command: ChangeCommand, result: ApplyResult, io: CliIo, clock: Pick<ProgressReporter, 'totalLine'>, selection: RunSelection = WHOLE_RUN): number {
  const written = writeResult(command, result, io, selection);
  writeTotalTime([written], clock, io);
  return written.exitCode;
}

/**
 * Why a run that did not succeed stopped, as its report says it: a failure of the whole run (its message says
 * it, even when Ctrl-C came too), an interrupt (even when an operation had failed before it), or failed
 * operations. The total over several stacks counts its stacks by the same reason.
 */
export function whyUnfinished(result: ApplyResult): 'run failure' | 'interrupted' | 'failed' {
  if (result.runFailure !== undefined) return 'run failure';
  return result.interrupted ? 'interrupted' : 'failed';
}

/**
 * Reports a run's result; exit code 0 when it succeeded. Each command the advice of an error gives covers the run's
 * `selection` (`rerunCommand`), so that pasted it plans or applies what the run did, not everything.
 */
export function writeApplyResult(command: ChangeCommand, result: ApplyResult, io: CliIo, selection: RunSelection = WHOLE_RUN): number {
  const counts = countResources(result.outcomes);
  const failed = result.outcomes.filter((o) => o.status === 'failed');
  const skipped = result.outcomes.filter((o) => o.status === 'skipped');

  for (const warning of result.warnings ?? []) writeWarning(io, warning);
  // After an interrupt, or a failure that stopped the run, every operation not started is skipped for the same
  // reason: a count says it all. Operations that failed with the run's failure are reported once, below.
  const stopped = result.interrupted || result.runFailure !== undefined;
  if (!stopped) {
    for (const outcome of skipped) io.stdout.write(`${operationLine(outcome.address, outcome.action, 'skipped', outcome.message)}\n`);
  }
  for (const outcome of failed) {
    if (!outcome.stoppedByRunFailure) writeError(io, operationLine(outcome.address, outcome.action, 'failed', outcome.message));
  }

  writeStateOnlyChanges(result, io);
  if (result.succeeded) {
    io.stdout.write(`\n${summaryLine(command, counts)}\n`);
    return 0;
  }
  const done = `${counts.added} added, ${counts.changed} changed, ${counts.destroyed} destroyed`;
  const again = `\`${rerunCommand(command, selection)}\` again`;
  const stop = whyUnfinished(result);
  if (stop === 'run failure') {
    const hit = failed.filter((o) => o.stoppedByRunFailure).length;
    writeError(
      io,
      `${command} ${result.runFailure}\n${command} did not finish (${done}; ${hit} ${hit === 1 ? 'operation' : 'operations'} failed with this error, ` +
        `${skipped.length} not started); state records exactly what succeeded. Fix the cause and run ${again}.`,
    );
  } else if (stop === 'interrupted') {
    const notStarted = skipped.length === 1 ? '1 operation was not started' : `${skipped.length} operations were not started`;
    writeError(
      io,
      `${command} was interrupted before it finished (${done}; ${notStarted}); state records exactly what was done. ` +
        `Run \`${rerunCommand('plan', selection)}\` to see what is left, then ${again}.`,
    );
  } else {
    const noun = failed.length === 1 ? 'operation' : 'operations';
    writeError(
      io,
      `${command} failed: ${failed.length} ${noun} failed (${done}); state records what succeeded. ` +
        `Fix the errors above and run ${again}.`,
    );
  }
  return 1;
}

/** One line per state entry the run changed without a request (a move, a forgotten object, refreshed state). */
export function writeStateOnlyChanges(result: ApplyResult, io: CliIo): void {
  for (const change of result.stateOnly) io.stdout.write(`${stateOnlyLine(change)}\n`);
}

export function stateOnlyLine(change: StateOnlyChange): string {
  switch (change.change) {
    case 'moved':
      return `${change.from}: moved to ${change.address} in state`;
    case 'forgotten':
      return `${change.address}: removed from state (deleted outside secretform)`;
    case 'retained':
      return `${change.address}: forgotten: removed from state, left on the service (retainOnDelete)`;
    case 'refreshed':
      return change.guardrails === undefined ? `${change.address}: refreshed state recorded` : `${change.address}: ${guardrailsRecorded(change.guardrails)}`;
  }
}

/**
 * What a state-only change of `protect` or `retainOnDelete` recorded, and what it means from now on:
 * `protect recorded in state: a plan that deletes or replaces it fails; nothing changed on the service`.
 */
function guardrailsRecorded(guardrails: NonNullable<StateOnlyChange['guardrails']>): string {
  const recorded = [
    guardrails.protect === undefined ? undefined : guardrails.protect ? 'protect recorded in state: a plan that deletes or replaces it fails' : 'protect removed from state: it can be deleted or replaced again',
    guardrails.retainOnDelete === undefined ? undefined : guardrails.retainOnDelete
      ? 'retainOnDelete recorded in state: removing it from the code leaves it on the service'
      : 'retainOnDelete removed from state: removing it from the code deletes it',
  ].filter((part) => part !== undefined);
  return `${recorded.join('; ')}; nothing changed on the service`;
}
