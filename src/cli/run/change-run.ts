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
import { writeChangeOutcome, writeChangeResult, type ChangeRunEnd, type StackResultWriter } from '../views/change-outcome';
import { showChangePreview } from '../views/change-preview';
import { reportShowsErrorsOnScreen } from '../views/plan-report';
import { parseEngineFlags, prepareServiceRun, type EngineFlags, type EngineSettings } from './engine-flags';
import { watchInterrupts, type SignalSource } from './interrupt';
import { commandFailure, CommandFailure, usageFailure, type CommandEnd } from './command-failure';
import type { CliIo } from './io';
import { processOutputGuard, type OutputGuard } from './output-guard';
import { loadRunPolicies, type PolicyFlags } from './policy-flags';
import { createProgressReporter, plannedOperations, type ProgressReporter } from './progress';
import { chooseStacks, type StackChoice } from './stack-choice';
import { chooseChangedStacks } from './changed-selection';
import type { EngineOptions } from '../../engine/setup/engine-options';

export interface ChangeFlags extends EngineFlags, PolicyFlags {
  autoApprove?: boolean;
  /** apply only: record the live state of managed objects as applied (accept drift); change nothing on the service. */
  refreshOnly?: boolean;
  /** apply PLANFILE only: apply stacks the file cannot prove it is the one `plan --out` wrote (no MAC). */
  allowUnverifiedPlan?: boolean;
  /** apply only: `--changed`, only the stacks changed since their last apply. */
  changed?: boolean;
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
  const choice = flags.changed === true && command === 'apply'
    ? await chooseChangedForApply({ ...prepared, policies }, settings, io)
    : chooseStacks({ ...prepared, policies }, settings, 'change', command, io);
  // A failure, or (nothing changed) the exit code of a run that said so.
  if (typeof choice === 'number' || choice instanceof CommandFailure) return choice;
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

/**
 * `apply --changed`: the changed stacks among those `--stack` chooses (every stack without it: `--changed` names
 * which), the others listed on stdout as unchanged and not read. None changed: said, and exit code 0 without a
 * request.
 */
async function chooseChangedForApply(options: EngineOptions, settings: EngineSettings, io: CliIo): Promise<StackChoice | CommandEnd> {
  const split = await chooseChangedStacks(options, settings, 'apply', io);
  if (split instanceof CommandFailure) return split;
  if (split.unchanged.length > 0) io.stdout.write(`Unchanged since their last apply, not read (--changed): ${split.unchanged.join(', ')}\n\n`);
  if (split.choice === undefined) {
    io.stdout.write('No changes. No stack changed since its last apply: nothing to apply.\n');
    return 0;
  }
  return split.choice;
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
  /** The operations of a run without approval (a saved plan's), known before it starts: the N of `[n/N]`. */
  operations?: number;
}

/**
 * Runs `run`: the engine plans every stack under its lock and hands the plans to `confirm` before changing
 * anything: shown and approved here, so the plans carried out are the plans the user saw, refreshed once.
 */
export async function runChange(run: ChangeRun, io: CliIo, hooks: ProcessHooks): Promise<CommandEnd> {
  const { command, several, approval } = run;
  const progress = createProgressReporter(io, { showOperations: true, verb: command === 'apply' ? 'Applying' : 'Destroying' });
  const end: ChangeRunEnd = { cancelled: false, nothingToDo: false };
  if (run.operations !== undefined) progress.expectOperations(run.operations);
  const confirm: StacksChangeOptions['confirm'] = approval && (async (previews) => {
    progress.finish();
    const decision = showChangePreview(command, previews, several, approval.refreshOnly, io);
    // The preview showed each stack that could not plan in its section: on the terminal stderr shares, that once.
    if (several && reportShowsErrorsOnScreen(io, 'text', undefined)) end.shownAbove = previews.filter((preview) => preview.status !== 'done').map((preview) => preview.stack);
    progress.expectOperations(plannedOperations(previews.flatMap((preview) => (preview.status === 'done' ? [preview.value] : []))));
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
