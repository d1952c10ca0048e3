/**
 * apply and destroy over several stacks: every stack planned under its lock, one report of every stack's plan
 * and one approval for the run, then each stack carried out in dependency order (reversed for destroy), and
 * its result reported under its name. Exit code 1 when any stack failed or was skipped, after the others
 * finished.
 */
import { applyStacks, destroyStacks, type StackPreview, type StacksChangeResult } from '../engine';
import type { EngineOptions } from '../engine/setup/engine-options';
import type { Result } from '../engine/errors';
import { hasActions } from '../engine/plan/plan';
import { renderStacksText, shouldUseColor } from '../report';
import { writeResult, writeTotalTime, type ChangeCommand, type WrittenResult } from './apply-report';
import { askApproval } from './approval';
import { withInterrupts, type ProcessHooks } from './change-run';
import { failWith, writeError, type CliIo } from './io';
import { createProgressReporter, type ProgressReporter } from './progress';
import { stacksChangeTotalLine } from './stacks-change-total';

export interface StacksChangeRequest {
  options: EngineOptions;
  outdir: string;
  stacks: string[];
  autoApprove: boolean;
  refreshOnly: boolean;
}

export async function runStacksChange(command: ChangeCommand, request: StacksChangeRequest, io: CliIo, hooks: ProcessHooks): Promise<number> {
  const progress = createProgressReporter(io, { showOperations: true, verb: command === 'apply' ? 'Applying' : 'Destroying' });
  let cancelled = false;
  const confirm = async (previews: StackPreview[]): Promise<boolean> => {
    progress.finish();
    io.stdout.write(renderStacksText(previews, { color: shouldUseColor(io.stdout, io.env) }));
    const planned = previews.flatMap((preview) => (preview.status === 'done' ? [preview.value] : []));
    const actionable = planned.some((plan) => (request.refreshOnly ? plan.drift.length > 0 : hasActions(plan)));
    if (!actionable) {
      // Nothing to change on the service: apply still records the refreshed state, which needs no approval.
      io.stdout.write(`\n${command === 'destroy' ? 'Nothing to destroy.' : request.refreshOnly ? 'Nothing to record.' : 'Nothing to apply.'}\n`);
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
  return writeStacksResult(command, result.value, io, progress);
}

/**
 * Each stack's result under its name, as a run of that stack alone reports it, then (once the run was approved)
 * the total over the stacks and, as after one stack's result, `Total time` when it is due (`writeTotalTime`).
 * Exit code 1 if any stack failed or was skipped.
 */
export function writeStacksResult(command: ChangeCommand, result: StacksChangeResult, io: CliIo, clock: Pick<ProgressReporter, 'totalLine'>): number {
  let exitCode = 0;
  const written: WrittenResult[] = [];
  for (const outcome of result.stacks) {
    if (outcome.status === 'failed') {
      writeError(io, `stack ${outcome.stack}: ${outcome.error.message}`);
      exitCode = 1;
    } else if (outcome.status === 'skipped') {
      writeError(io, `stack ${outcome.stack} was not ${command === 'apply' ? 'applied' : 'destroyed'}: stack ${outcome.dependency}, which it waits for, failed or was skipped`);
      exitCode = 1;
    } else if (result.confirmed) {
      io.stdout.write(`\n=== Stack ${outcome.stack} ===\n`);
      const stackResult = writeResult(command, outcome.value, io);
      if (stackResult.exitCode !== 0) exitCode = 1;
      written.push(stackResult);
    }
  }
  if (result.confirmed) io.stdout.write(`\n${stacksChangeTotalLine(command, result)}\n`);
  writeTotalTime(written, clock, io);
  return exitCode;
}
