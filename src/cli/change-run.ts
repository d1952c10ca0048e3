/**
 * The run apply and destroy share: check flags and environment, synthesize, show what will change, ask for
 * approval (or refuse on a non-interactive stdin without --auto-approve), run the engine with Ctrl-C wired to
 * its abort signal, and report the outcome.
 */
import { apply, destroy } from '../engine';
import type { ApplyOptions, ApplyResult } from '../engine/run/apply-options';
import type { Result } from '../engine/errors';
import type { Plan } from '../engine/plan/plan';
import { shouldUseColor, stackReport } from '../report';
import { writeRunResult, writeStateOnlyChanges, type ChangeCommand } from './apply-report';
import { approvalRefusal, askApproval, isInteractive } from './approval';
import { previewText, showsNothingToDestroy } from './change-preview';
import { parseEngineFlags, prepareServiceRun, type EngineFlags, type EngineSettings } from './engine-flags';
import { watchInterrupts, type SignalSource } from './interrupt';
import { failWith, writeError, type CliIo } from './io';
import { processOutputGuard, type OutputGuard } from './output-guard';
import { hasNothingToDo, nothingToDoLine } from './nothing-to-do';
import { loadRunPolicies, type PolicyFlags } from './policy-flags';
import { createProgressReporter, type ProgressReporter } from './progress';
import { chooseStacks } from './stack-choice';
import { runStacksChange } from './stacks-change-run';

export interface ChangeFlags extends EngineFlags, PolicyFlags {
  autoApprove?: boolean;
  /** apply only: record the live state of managed objects as applied (accept drift); change nothing on the service. */
  refreshOnly?: boolean;
}

/** How the run meets the process; tests replace both. */
export interface ProcessHooks {
  signals: SignalSource;
  exit: (code: number) => void;
  /** The output's state: once closed (EPIPE), the run stops as at a first interrupt. */
  output?: OutputGuard;
}

export const defaultProcessHooks = (): ProcessHooks => ({ signals: process, exit: (code) => process.exit(code), output: processOutputGuard() });

export async function runChangeCommand(command: ChangeCommand, flags: ChangeFlags, io: CliIo, hooks: ProcessHooks = defaultProcessHooks()): Promise<number> {
  let settings: EngineSettings;
  let policies;
  try {
    settings = parseEngineFlags(flags);
    // destroy takes no --policy: what it deletes is decided by the state, not by the code policies judge.
    policies = command === 'apply' ? await loadRunPolicies(flags, io) : undefined;
  } catch (error) {
    return failWith(io, error);
  }
  const autoApprove = flags.autoApprove === true;
  const refreshOnly = flags.refreshOnly === true;
  // Before synthesis, so the --stack values go back as given: which stacks they select is not known yet.
  if (!autoApprove && !isInteractive(io.stdin)) return failWith(io, approvalRefusal(command, { stacks: settings.stacks, targets: settings.targets }));
  const prepared = await prepareServiceRun(settings, io);
  if (!prepared.ok) return prepared.exitCode;
  // The packs go with the run's options, so a run over several stacks evaluates them in every stack too.
  const choice = chooseStacks({ ...prepared.options, policies }, settings, 'change', command, io);
  if (choice.kind === 'failed') return choice.exitCode;
  // What the advice of an error repeats, so that the command it gives covers this run's stacks and targets.
  const selection = { stacks: choice.chosenBy, targets: settings.targets };
  if (choice.kind === 'several') return runStacksChange(command, { ...choice, selection, autoApprove, refreshOnly }, io, hooks);
  const progress = createProgressReporter(io, { showOperations: true, verb: command === 'apply' ? 'Applying' : 'Destroying' });
  // The engine plans under the state lock and hands the plan to `confirm` before changing anything: shown and
  // approved here, so the plan carried out is the plan the user saw, refreshed once.
  let declined: 'nothing to do' | 'cancelled' | undefined;
  let nothingToApply = false;
  const confirm = async (preview: Plan): Promise<boolean> => {
    progress.finish();
    const shown = showPreview(command, preview, io, refreshOnly);
    if (shown === 'nothing to destroy' || shown === 'nothing to record') {
      declined = 'nothing to do';
      return false;
    }
    // Nothing to change on the service: the engine still records the refreshed state (drift the code now
    // matches), which needs no approval.
    if (shown === 'nothing to apply') {
      nothingToApply = true;
      return true;
    }
    progress.pause();
    const approved = autoApprove || (await askApproval(io));
    progress.resume();
    if (!approved) {
      declined = 'cancelled';
      return false;
    }
    io.stdout.write('\n');
    return true;
  };
  const runOptions: ApplyOptions = {
    ...choice.options,
    onProgress: progress.onProgress,
    refreshOnly,
    confirm,
  };

  const result = await runWithInterrupts(command, runOptions, io, hooks, progress);
  if (!result.ok) return failWith(io, result.error);
  if (!result.value.confirmed) {
    if (declined !== 'cancelled') return 0;
    writeError(io, `${command} cancelled: only 'yes' approves; nothing was changed`);
    return 1;
  }
  if (nothingToApply && result.value.succeeded) {
    writeStateOnlyChanges(result.value, io);
    return 0;
  }
  return writeRunResult(command, result.value, io, progress, selection);
}

/** Prints what the run will do, and whether there is anything to approve. */
function showPreview(
  command: ChangeCommand,
  preview: Plan,
  io: CliIo,
  refreshOnly: boolean,
): 'nothing to destroy' | 'nothing to record' | 'nothing to apply' | 'actions' {
  io.stdout.write(previewText(command, [stackReport(preview)], { color: shouldUseColor(io.stdout, io.env) }));
  if (showsNothingToDestroy(command, preview)) return 'nothing to destroy';
  if (!hasNothingToDo(preview)) return 'actions';
  io.stdout.write(`\n${nothingToDoLine(command, refreshOnly, { stack: preview.stack })}\n`);
  return refreshOnly ? 'nothing to record' : 'nothing to apply';
}

function runWithInterrupts(
  command: ChangeCommand,
  options: ApplyOptions,
  io: CliIo,
  hooks: ProcessHooks,
  progress: ProgressReporter,
): Promise<Result<ApplyResult>> {
  return withInterrupts(io, hooks, progress, (signal) => (command === 'apply' ? apply : destroy)({ ...options, signal }));
}

/** Runs `work` with Ctrl-C (and a closed output) wired to its abort signal; the progress line ends after it. */
export async function withInterrupts<T>(io: CliIo, hooks: ProcessHooks, progress: ProgressReporter, work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const watch = watchInterrupts(io, hooks.signals, hooks.exit, hooks.output);
  try {
    return await work(watch.signal);
  } finally {
    watch.dispose();
    progress.finish();
  }
}
