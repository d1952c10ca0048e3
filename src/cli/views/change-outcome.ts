/**
 * What apply, destroy and `apply PLANFILE` print about a run's outcome once it ended: a run of one stack its
 * result alone (or its failure), a run over several each stack's result under its name and the total over them.
 * Exit code 1 when any stack failed or was skipped, after the others finished.
 */
import type { StacksChangeResult } from '../../engine';
import type { ApplyResult } from '../../engine/run/apply-options';
import type { StackOutcome } from '../../engine/stacks/stack-scheduler';
import { whyUnfinished, writeResult, writeStateOnlyChanges, writeTotalTime, type ChangeCommand, type WrittenResult } from './apply-report';
import { inStack } from '../../engine/errors';
import { describeEngineError } from '../../report/engine-error';
import { commandFailure, CommandFailure, type CommandEnd } from '../run/command-failure';
import { writeError, type CliIo } from '../run/io';
import { hasNothingToDo, nothingToDoLine } from './nothing-to-do';
import type { ProgressReporter } from '../run/progress';
import { WHOLE_RUN, type RunSelection } from './rerun-command';
import { stacksChangeTotalLine } from './stacks-change-total';
import { stacksProblemsAboveLine } from './plan-report';

/** How the run went before its outcome: approval declined with anything but 'yes', or nothing to do. */
export interface ChangeRunEnd {
  cancelled: boolean;
  /** The preview said there was nothing to do (`Nothing to apply.`): that line is the run's result. */
  nothingToDo: boolean;
  /**
   * The stacks whose failure (or skip) the preview showed in their sections on the terminal stderr shares:
   * their errors are not said again, one line points at them (one message per failure on a terminal).
   */
  shownAbove?: readonly string[];
}

/**
 * The outcome of a change run: a run of one stack as it always reported (its failure as the command's error),
 * a run over several stack by stack (`writeStacksResult`). `writeStack` writes one stack's result.
 */
export function writeChangeOutcome(
  command: ChangeCommand,
  result: StacksChangeResult,
  end: ChangeRunEnd,
  several: boolean,
  io: CliIo,
  clock: Pick<ProgressReporter, 'totalLine'>,
  writeStack: StackResultWriter,
): CommandEnd {
  if (several) {
    if (end.cancelled) return new CommandFailure('cancelled', `${command} cancelled: only 'yes' approves; nothing was changed on any stack`);
    if (end.nothingToDo) return writeNothingToDoResult(command, result, io, end.shownAbove);
    return writeStacksResult(command, result, io, clock, writeStack, end.shownAbove);
  }
  // The only stack: its failure is the command's error, unprefixed (a set of one skips nothing).
  const [outcome] = result.stacks;
  if (outcome.status === 'failed') return commandFailure(outcome.error);
  if (outcome.status === 'skipped') {
    writeStackProblem(command, outcome, result, io);
    return 1;
  }
  if (!outcome.value.confirmed) {
    if (!end.cancelled) return 0;
    return new CommandFailure('cancelled', `${command} cancelled: only 'yes' approves; nothing was changed`);
  }
  if (end.nothingToDo && outcome.value.succeeded) {
    writeStateOnlyChanges(outcome.value, io);
    return 0;
  }
  const written = writeStack(command, outcome.value, io);
  writeTotalTime([written], clock, io);
  return written.exitCode;
}

/**
 * One stack's result as apply or destroy of that stack alone reports it: a stack that had nothing to do says
 * so (`Nothing to apply.`, then what it recorded, as one stack's run ends then: no `Total time`), any other
 * what `writeResult` says, its advice covering the run's `selection` (`rerunCommand`).
 */
export function writeChangeResult(command: ChangeCommand, result: ApplyResult, io: CliIo, selection: RunSelection = WHOLE_RUN): WrittenResult {
  if (!(hasNothingToDo(result.plan) && result.succeeded)) return writeResult(command, result, io, selection);
  io.stdout.write(`\n${nothingToDoLine(command, result.plan.refreshOnly, { stack: result.plan.stack })}\n`);
  writeStateOnlyChanges(result, io);
  return { exitCode: 0, timed: false };
}

/** How one stack's result is written under its name: `writeResult` (`apply PLANFILE`) or `writeChangeResult`. */
export type StackResultWriter = (command: ChangeCommand, result: ApplyResult, io: CliIo) => WrittenResult;

/**
 * Each stack's result under its name, as the same command of that stack alone reports it (`writeStack`), then
 * (once the run was approved) the total over the stacks and, as after one stack's result, `Total time` when it
 * is due (`writeTotalTime`). Exit code 1 if any stack failed or was skipped. A stack in `shownAbove` had its
 * error shown by the preview: one line says where it is (`writeStackProblems`).
 */
export function writeStacksResult(
  command: ChangeCommand,
  result: StacksChangeResult,
  io: CliIo,
  clock: Pick<ProgressReporter, 'totalLine'>,
  writeStack: StackResultWriter = writeResult,
  shownAbove: readonly string[] = [],
): number {
  const problems = stackProblems(command, result, io, shownAbove);
  const written: WrittenResult[] = [];
  for (const outcome of result.stacks) {
    if (outcome.status !== 'done') {
      problems.write(outcome);
    } else if (result.confirmed) {
      io.stdout.write(`\n=== Stack ${outcome.stack} ===\n`);
      written.push(writeStack(command, outcome.value, io));
    }
  }
  const failed = problems.end();
  if (result.confirmed) io.stdout.write(`\n${stacksChangeTotalLine(command, result)}\n`);
  writeTotalTime(written, clock, io);
  return failed || written.some((stackResult) => stackResult.exitCode !== 0) ? 1 : 0;
}

/**
 * The end of a run that said before it ran that no stack had anything to do (`Nothing to apply in 3 stacks.`):
 * that line is the run's result, so there is no section and no total (and no `Total time`: no operation ran).
 * What each stack recorded follows it, as it follows one stack's `Nothing to apply.`, and the stacks that failed
 * are reported (as `writeStacksResult` does). Exit code 1 if any stack failed or was skipped.
 */
export function writeNothingToDoResult(command: ChangeCommand, result: StacksChangeResult, io: CliIo, shownAbove: readonly string[] = []): number {
  const problems = stackProblems(command, result, io, shownAbove);
  for (const outcome of result.stacks) {
    if (outcome.status === 'done') writeStateOnlyChanges(outcome.value, io);
    else problems.write(outcome);
  }
  return problems.end() ? 1 : 0;
}

type StackProblem = Exclude<StackOutcome<ApplyResult>, { status: 'done' }>;

/**
 * The errors of the stacks that failed or were skipped, on stderr, in the order of the stacks' results: each in
 * full (`write`), but for those the preview showed in their sections on this terminal (`shownAbove`), which one
 * line points at once the results are out (`end`, which says whether any stack failed or was skipped).
 */
function stackProblems(command: ChangeCommand, result: StacksChangeResult, io: CliIo, shownAbove: readonly string[]): { write: (outcome: StackProblem) => void; end: () => boolean } {
  const above: string[] = [];
  let any = false;
  return {
    write: (outcome) => {
      any = true;
      if (shownAbove.includes(outcome.stack)) above.push(outcome.stack);
      else writeStackProblem(command, outcome, result, io);
    },
    end: () => {
      if (above.length > 0) writeError(io, stacksProblemsAboveLine(above));
      return any;
    },
  };
}

/** Why a stack has no result: its failure, or the stack it waited for. */
function writeStackProblem(command: ChangeCommand, outcome: StackProblem, result: StacksChangeResult, io: CliIo): void {
  // Said among the other stacks' results: the failure names its stack.
  if (outcome.status === 'failed') writeError(io, describeEngineError(inStack(outcome.error, outcome.stack)));
  else writeError(io, `stack ${outcome.stack} was not ${command === 'apply' ? 'applied' : 'destroyed'}: stack ${outcome.dependency}, which it waits for, ${dependencyProblem(result, outcome.dependency)}`);
}

/**
 * What became of the stack `dependency`: `was interrupted` when its own report says so (`whyUnfinished`), else
 * `failed or was skipped`.
 */
function dependencyProblem(result: StacksChangeResult, dependency: string): string {
  const waited = result.stacks.find((outcome) => outcome.stack === dependency);
  const interrupted = waited?.status === 'done' && !waited.value.succeeded && whyUnfinished(waited.value) === 'interrupted';
  return interrupted ? 'was interrupted' : 'failed or was skipped';
}
