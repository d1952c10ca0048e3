/**
 * The one run of apply, destroy and `apply PLANFILE`, over one stack or several: check flags and environment,
 * synthesize, show what will change, ask for approval (or refuse on a non-interactive stdin without
 * --auto-approve; a saved plan is its own approval), run the engine with Ctrl-C (and a closed output) wired to
 * its abort signal, and report the outcome.
 */
import { apply, destroy, type StacksChangeOptions, type StacksChangeResult } from '../../engine';
import type { Result } from '../../engine/errors';
import type { ChangeCommand } from '../views/apply-report';
import { approvalRefusal, askApproval, isInteractive } from './approval';
import { writeChangeOutcome, writeChangeResult, type StackResultWriter } from '../views/change-outcome';
import { showChangePreview } from '../views/change-preview';
import { parseEngineFlags, prepareServiceRun, type EngineFlags, type EngineSettings } from './engine-flags';
import { watchInterrupts, type SignalSource } from './interrupt';
import { commandFailure, CommandFailure, usageFailure, type CommandEnd } from './command-failure';
import type { CliIo } from './io';
import { processOutputGuard, type OutputGuard } from './output-guard';
import { loadRunPolicies, type PolicyFlags } from './policy-flags';
import { createProgressReporter, type ProgressReporter } from './progress';
import { chooseStacks } from './stack-choice';

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

export async function runChangeCommand(command: ChangeCommand, flags: ChangeFlags, io: CliIo, hooks: ProcessHooks = defaultProcessHooks()): Promise<CommandEnd> {
  let settings: EngineSettings;
  let policies;
  try {
    settings = parseEngineFlags(flags);
    // destroy takes no --policy: what it deletes is decided by the state, not by the code policies judge.
    policies = command === 'apply' ? await loadRunPolicies(flags, io) : undefined;
  } catch (error) {
    return commandFailure(error);
  }
  const autoApprove = flags.autoApprove === true;
  const refreshOnly = flags.refreshOnly === true;
  // Before synthesis, so the --stack values go back as given: which stacks they select is not known yet.
  if (!autoApprove && !isInteractive(io.stdin)) return usageFailure(approvalRefusal(command, { stacks: settings.stacks, targets: settings.targets }));
  const prepared = await prepareServiceRun(settings, io);
  if (prepared instanceof CommandFailure) return prepared;
  // The packs go with the run's options, so a run over several stacks evaluates them in every stack too.
  const choice = chooseStacks({ ...prepared, policies }, settings, 'change', command, io);
  if (choice instanceof CommandFailure) return choice;
  // What the advice of an error repeats, so that the command it gives covers this run's stacks and targets.
  const selection = { stacks: choice.chosenBy, targets: settings.targets };
  const options: StacksChangeOptions = { ...choice.options, stacks: choice.stacks, refreshOnly };
  return runChange({
    command,
    several: choice.stacks.length > 1,
    approval: { autoApprove, refreshOnly },
    start: (run) => (command === 'apply' ? apply : destroy)({ ...options, ...run }),
    writeStack: (stackCommand, result, stackIo) => writeChangeResult(stackCommand, result, stackIo, selection),
  }, io, hooks);
}

/** A change run over a stack set: what it runs, and how it asks and reports. */
export interface ChangeRun {
  command: ChangeCommand;
  /** Whether the run covers several stacks (each reported under its name) or one (reported alone). */
  several: boolean;
  /** Asked before any change (apply, destroy); absent for a saved plan, which was reviewed when it was made. */
  approval?: { autoApprove: boolean; refreshOnly: boolean };
  /** The engine's run, given the approval, the abort signal and the progress callback. */
  start: (run: Pick<StacksChangeOptions, 'confirm' | 'signal' | 'onProgress'>) => Promise<Result<StacksChangeResult>>;
  /** How one stack's result is written (its advice repeating the run's selection). */
  writeStack: StackResultWriter;
}

/**
 * Runs `run`: the engine plans every stack under its lock and hands the plans to `confirm` before changing
 * anything: shown and approved here, so the plans carried out are the plans the user saw, refreshed once.
 */
export async function runChange(run: ChangeRun, io: CliIo, hooks: ProcessHooks): Promise<CommandEnd> {
  const { command, several, approval } = run;
  const progress = createProgressReporter(io, { showOperations: true, verb: command === 'apply' ? 'Applying' : 'Destroying' });
  const end = { cancelled: false, nothingToDo: false };
  const confirm: StacksChangeOptions['confirm'] = approval && (async (previews) => {
    progress.finish();
    const decision = showChangePreview(command, previews, several, approval.refreshOnly, io);
    if (decision.kind === 'nothing to do') {
      end.nothingToDo = true;
      return decision.proceed;
    }
    progress.pause();
    const approved = approval.autoApprove || (await askApproval(io));
    progress.resume();
    if (!approved) {
      end.cancelled = true;
      return false;
    }
    io.stdout.write('\n');
    return true;
  });
  const result = await withInterrupts(io, hooks, progress, (signal) => run.start({ confirm, signal, onProgress: progress.onProgress }));
  if (!result.ok) return commandFailure(result.error);
  return writeChangeOutcome(command, result.value, end, several, io, progress, run.writeStack);
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
