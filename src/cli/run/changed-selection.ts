/**
 * `--changed` on plan and apply: of the stacks the command chose (`--stack`, or every stack), those change
 * detection finds changed (engine/stacks/changed-stacks.ts: code, state, service or a dependency changed since
 * the last complete apply); the others are reported as unchanged and never read. Detection reads the synth output
 * and the state only: nothing is sent to any service, and only the changed stacks' connections are checked (a CI
 * job needs the tokens of the stacks it runs, not of every stack of the app).
 */
import { chooseSynthesizedStacks, detectChangedStacks } from '../../engine';
import type { EngineOptions } from '../../engine/setup/engine-options';
import type { EngineSettings } from './engine-flags';
import { commandFailure, CommandFailure } from './command-failure';
import type { CliIo } from './io';
import { chooseStacks, type StackChoice } from './stack-choice';

/**
 * `choice`: the changed stacks (undefined when none is); `unchanged`: the others chosen; `order`: every stack
 * chosen, in dependency order (the order of a report's sections).
 */
export interface ChangedChoice {
  choice: StackChoice | undefined;
  unchanged: string[];
  order: string[];
}

/**
 * The stacks `settings.stacks` select (every stack when none is given: `--changed` itself names which, so apply
 * needs no `--stack` with it), split into the changed ones, chosen and checked as `chooseStacks` does, and the
 * others; or why they cannot be chosen.
 */
export async function chooseChangedStacks(options: EngineOptions, settings: EngineSettings, command: string, io: CliIo): Promise<ChangedChoice | CommandFailure> {
  if (options.desired.kind !== 'synth-output') return new CommandFailure('failed', '--changed compares a synth output with the state, and this run has none');
  const outdir = options.desired.outdir;
  const selected = chooseSynthesizedStacks(outdir, settings.stacks, 'read', command);
  if (!selected.ok) return commandFailure(selected.error);
  const detected = await detectChangedStacks({ outdir, statePath: options.statePath, env: options.env, cwd: options.cwd });
  if (!detected.ok) return commandFailure(detected.error);
  const chosen = new Set(selected.value.stacks);
  // In dependency order, as `secretform stacks` lists them.
  const inOrder = detected.value.filter((stack) => chosen.has(stack.stack));
  const changed = inOrder.filter((stack) => stack.changed).map((stack) => stack.stack);
  const unchanged = inOrder.filter((stack) => !stack.changed).map((stack) => stack.stack);
  const order = inOrder.map((stack) => stack.stack);
  if (changed.length === 0) return { choice: undefined, unchanged, order };
  // The changed stacks by name: their connections are checked (and only theirs), as for any run over them.
  const choice = chooseStacks({ ...options, stack: changed.length === 1 ? changed[0] : undefined }, { ...settings, stacks: changed }, 'read', command, io);
  if (choice instanceof CommandFailure) return choice;
  return { choice, unchanged, order };
}
