/**
 * apply and destroy over several stacks: every stack planned under its lock, one report of every stack's plan
 * and one approval for the run, then each stack carried out in dependency order (reversed for destroy), and
 * its result reported under its name. Exit code 1 when any stack failed or was skipped, after the others
 * finished.
 */
import { applyStacks, destroyStacks, type StackPreview, type StacksChangeResult } from '../engine';
import type { ApplyResult } from '../engine/run/apply-options';
import type { EngineOptions } from '../engine/setup/engine-options';
import type { Result } from '../engine/errors';
import type { StackOutcome } from '../engine/stacks/stack-scheduler';
import { shouldUseColor } from '../report';
import { whyUnfinished, writeResult, writeStateOnlyChanges, writeTotalTime, type ChangeCommand, type WrittenResult } from './apply-report';
import { askApproval } from './approval';
import { previewText } from './change-preview';
import { withInterrupts, type ProcessHooks } from './change-run';
import { failWith, writeError, type CliIo } from './io';
import { hasNothingToDo, nothingToDoLine } from './nothing-to-do';
import { createProgressReporter, type ProgressReporter } from './progress';
import { WHOLE_RUN, type RunSelection } from './rerun-command';
import { stacksChangeTotalLine } from './stacks-change-total';

export interface StacksChangeRequest {
  options: EngineOptions;
  outdir: string;
  stacks: string[];
  /** The `--stack` and `--target` values the user gave, which the advice of an error repeats (`rerunCommand`). */
  selection: RunSelection;
  autoApprove: boolean;
  refreshOnly: boolean;
}

export async function runStacksChange(command: ChangeCommand, request: StacksChangeRequest, io: CliIo, hooks: ProcessHooks): Promise<number> {
  const progress = createProgressReporter(io, { showOperations: true, verb: command === 'apply' ? 'Applying' : 'Destroying' });
  let cancelled = false;
  let nothingToDo = false;
  const confirm = async (previews: StackPreview[]): Promise<boolean> => {
    progress.finish();
    io.stdout.write(previewText(command, previews, { color: shouldUseColor(io.stdout, io.env) }));
    const planned = previews.flatMap((preview) => (preview.status === 'done' ? [preview.value] : []));
    if (planned.every(hasNothingToDo)) {
      // As for one stack, no approval is asked: apply still records the refreshed state, which needs none. When
      // no stack can run at all (each failed, or waits for one that did), their errors say why instead.
      nothingToDo = true;
      if (planned.length > 0) io.stdout.write(`\n${nothingToDoLine(command, request.refreshOnly, { stacks: planned.map((plan) => plan.stack) })}\n`);
      return command === 'apply' && !request.refreshOnly;
    }
    progress.pause();
    const approved = request.autoApprove || (await askApproval(io));
    progress.resume();
    if (!approved) {
      cancelled = true;
      return false;
    }
    io.stdout.write('\n');
    return true;
  };
  const { options, outdir, stacks, refreshOnly } = request;
  const result = await withInterrupts(io, hooks, progress, (signal): Promise<Result<StacksChangeResult>> => {
    const runOptions = { ...options, outdir, stacks, refreshOnly, confirm, signal, onProgress: progress.onProgress };
    return command === 'apply' ? applyStacks(runOptions) : destroyStacks(runOptions);
  });
  if (!result.ok) return failWith(io, result.error);
  if (cancelled) {
    writeError(io, `${command} cancelled: only 'yes' approves; nothing was changed on any stack`);
    return 1;
  }
  if (nothingToDo) return writeNothingToDoResult(command, result.value, io);
  return writeStacksResult(command, result.value, io, progress, (stackCommand, stackResult, stackIo) => writeChangeResult(stackCommand, stackResult, stackIo, request.selection));
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
 * is due (`writeTotalTime`). Exit code 1 if any stack failed or was skipped.
 */
export function writeStacksResult(
  command: ChangeCommand,
  result: StacksChangeResult,
  io: CliIo,
  clock: Pick<ProgressReporter, 'totalLine'>,
  writeStack: StackResultWriter = writeResult,
): number {
  let exitCode = 0;
  const written: WrittenResult[] = [];
  for (const outcome of result.stacks) {
    if (outcome.status !== 'done') {
      writeStackProblem(command, outcome, result, io);
      exitCode = 1;
    } else if (result.confirmed) {
      io.stdout.write(`\n=== Stack ${outcome.stack} ===\n`);
      const stackResult = writeStack(command, outcome.value, io);
      if (stackResult.exitCode !== 0) exitCode = 1;
      written.push(stackResult);
    }
  }
  if (result.confirmed) io.stdout.write(`\n${stacksChangeTotalLine(command, result)}\n`);
  writeTotalTime(written, clock, io);
  return exitCode;
}

/**
 * The end of a run that said before it ran that no stack had anything to do (`Nothing to apply in 3 stacks.`):
 * that line is the run's result, so there is no section and no total (and no `Total time`: no operation ran).
 * What each stack recorded follows it, as it follows one stack's `Nothing to apply.`, and the stacks that failed
 * are reported. Exit code 1 if any stack failed or was skipped.
 */
export function writeNothingToDoResult(command: ChangeCommand, result: StacksChangeResult, io: CliIo): number {
  let exitCode = 0;
  for (const outcome of result.stacks) {
    if (outcome.status === 'done') {
      writeStateOnlyChanges(outcome.value, io);
    } else {
      writeStackProblem(command, outcome, result, io);
      exitCode = 1;
    }
  }
  return exitCode;
}

/** Why a stack has no result: its failure, or the stack it waited for. */
function writeStackProblem(command: ChangeCommand, outcome: Exclude<StackOutcome<ApplyResult>, { status: 'done' }>, result: StacksChangeResult, io: CliIo): void {
  if (outcome.status === 'failed') writeError(io, `stack ${outcome.stack}: ${outcome.error.message}`);
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
