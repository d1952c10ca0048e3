/**
 * The CLI's side of choosing stacks (the rules are the engine's: engine/stacks/stack-selection.ts): the stack set
 * of plan, apply and destroy from `--stack` (repeatable, glob patterns), each stack's connection checked before
 * any request; and the one stack of a command that works on exactly one (`--stack` once, by name): import,
 * action, exec, and the state commands with force-unlock.
 */
import { chooseSynthesizedStacks, oneStackNameProblem, resolveStack, stackOfAddress, type SelectionUse } from '../../engine';
import { inStack } from '../../engine/errors';
import type { EngineOptions } from '../../engine/setup/engine-options';
import { commandFailure, CommandFailure } from './command-failure';
import { connectionProblem, prepareServiceRun, type EngineSettings } from './engine-flags';
import type { CliIo } from './io';
import { UsageError } from './usage-error';

/**
 * `chosenBy`: the `--stack` values that choose the same stacks again, for a command an error's advice gives
 * (`rerunCommand`): the ones the user gave, or none when the synth output holds no other stack, so that a run of
 * the only stack keeps its advice as it always was.
 */
export interface StackChoice {
  options: EngineOptions;
  stacks: string[];
  chosenBy: readonly string[];
}

/** The stacks `settings.stacks` select in the run's synth output, or why they cannot be chosen. */
export function chooseStacks(options: EngineOptions, settings: EngineSettings, use: SelectionUse, command: string, io: CliIo): StackChoice | CommandFailure {
  if (options.desired.kind !== 'synth-output') {
    const one = resolveStack(options);
    return one.ok ? { options, stacks: [one.value], chosenBy: [] } : commandFailure(one.error);
  }
  const chosen = chooseSynthesizedStacks(options.desired.outdir, settings.stacks, use, command);
  if (!chosen.ok) return commandFailure(chosen.error);
  const { stacks, chosenBy } = chosen.value;
  // prepareServiceRun checked the connection of the stack the options name, if they name one: the others now.
  const checked = resolveStack(options);
  for (const stack of stacks.filter((name) => !(checked.ok && checked.value === name))) {
    const problem = connectionProblem({ ...options, stack }, io);
    // In a run of several stacks the failure names its stack (once: a ServiceConnection's names it already).
    if (problem !== undefined) return commandFailure(stacks.length > 1 ? inStack(problem, stack) : problem);
  }
  return { options: stacks.length > 1 ? options : { ...options, stack: stacks[0] }, stacks, chosenBy };
}

/**
 * The stack of a command of one stack (import, action, exec, state, force-unlock), from its flags alone: the one
 * `--stack`, else the stack ADDRESS starts with. Several `--stack` (commander refuses a second one, but the
 * settings type holds a list) and a `--stack` other than ADDRESS's own stack are refused with a UsageError:
 * taking either one silently would read or write another stack's state than the user meant.
 */
export function oneStackOf(settings: Pick<EngineSettings, 'stack' | 'stacks'>, command: string, address?: string): string | undefined {
  if (settings.stacks.length > 1) {
    const given = settings.stacks.map((stack) => `"${stack}"`).join(', ');
    throw new UsageError(`--stack was given ${settings.stacks.length} times (${given}); ${command} works on one stack: give --stack once, with that stack's name`);
  }
  const own = address === undefined ? undefined : stackOfAddress(address);
  if (settings.stack !== undefined && own !== undefined && settings.stack !== own) {
    throw new UsageError(
      `--stack ${settings.stack} does not hold ${address}: an address starts with its stack's name, so it is in stack ${own}. ` +
        `Drop --stack (the address names its stack), or give --stack ${own}`,
    );
  }
  return settings.stack ?? own;
}

/**
 * prepareServiceRun for a command of one stack (settings holding `oneStackOf`'s choice), and a `--stack` that
 * names a stack of the synth output, known only once synthesized: such a command reads or writes one stack's
 * state, so a pattern is refused rather than read as the name of no stack (`oneStackNameProblem`).
 */
export async function prepareOneStackRun(settings: EngineSettings, command: string, io: CliIo): Promise<EngineOptions | CommandFailure> {
  const prepared = await prepareServiceRun(settings, io);
  if (prepared instanceof CommandFailure || settings.stacks.length === 0 || prepared.desired.kind !== 'synth-output') return prepared;
  const problem = oneStackNameProblem(prepared.desired.outdir, settings.stacks[0], command);
  return problem === undefined ? prepared : commandFailure(problem);
}
