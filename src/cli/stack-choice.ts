/**
 * Which stacks of the synth output a command runs on (`--stack`, repeatable, glob patterns: the stack set the
 * engine's commands take, src/engine/stacks); and the one
 * stack of a command that works on exactly one (`--stack` once, by name): import, action, exec, and the state
 * commands with force-unlock.
 */
import { isStackPattern, resolveStack, selectSynthesizedStacks, stackOfAddress, type SelectionUse } from '../engine';
import type { EngineOptions } from '../engine/setup/engine-options';
import { connectionProblem, prepareServiceRun, type EngineSettings, type PreparedServiceRun } from './engine-flags';
import { failWith, type CliIo } from './io';
import { UsageError } from './usage-error';

/**
 * `chosenBy`: the `--stack` values that choose the same stacks again, for a command an error's advice gives
 * (`rerunCommand`): the ones the user gave, or none when the synth output holds no other stack, so that a run of
 * the only stack keeps its advice as it always was.
 */
export type StackChoice =
  | { kind: 'chosen'; options: EngineOptions; stacks: string[]; chosenBy: readonly string[] }
  | { kind: 'failed'; exitCode: number };

/** The stacks `settings.stacks` select in the run's synth output; a failure is reported on stderr. */
export function chooseStacks(options: EngineOptions, settings: EngineSettings, use: SelectionUse, command: string, io: CliIo): StackChoice {
  if (options.desired.kind !== 'synth-output') {
    const one = resolveStack(options);
    return one.ok ? { kind: 'chosen', options, stacks: [one.value], chosenBy: [] } : { kind: 'failed', exitCode: failWith(io, one.error) };
  }
  const { outdir } = options.desired;
  const selected = selectSynthesizedStacks(outdir, settings.stacks, use, command);
  if (!selected.ok) return { kind: 'failed', exitCode: failWith(io, selected.error) };
  // prepareServiceRun checked the connection of the stack the options name, if they name one: the others now.
  const checked = resolveStack(options);
  for (const stack of selected.value.filter((name) => !(checked.ok && checked.value === name))) {
    const problem = connectionProblem({ ...options, stack }, io);
    if (problem !== undefined) return { kind: 'failed', exitCode: failWith(io, selected.value.length > 1 && !problem.startsWith(`stack ${stack}:`) ? `stack ${stack}: ${problem}` : problem) };
  }
  if (selected.value.length > 1) return { kind: 'chosen', options, stacks: selected.value, chosenBy: settings.stacks };
  // One stack of several: without its --stack, apply and destroy refuse to guess, and plan covers them all.
  const others = settings.stacks.length > 0 && holdsOtherStacks(outdir, selected.value[0], command);
  return { kind: 'chosen', options: { ...options, stack: selected.value[0] }, stacks: selected.value, chosenBy: others ? settings.stacks : [] };
}

/** Whether the synth output `outdir`, just read, holds a stack besides `stack`. */
function holdsOtherStacks(outdir: string, stack: string, command: string): boolean {
  const every = selectSynthesizedStacks(outdir, [], 'read', command);
  return every.ok && every.value.some((name) => name !== stack);
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
 * Why `stack`, given as `--stack` to a command of one stack, names no stack of the synth output `outdir`, or
 * undefined when it names one. Such a command takes a stack's name, not a pattern: a pattern that matches one
 * stack today may match two tomorrow, and then "the first" or "the last" would be a guess. A pattern is refused
 * with the stacks it matches, and a name of no stack with the stacks there are, as plan and apply report them.
 */
export function oneStackNameProblem(outdir: string, stack: string, command: string): string | undefined {
  const selected = selectSynthesizedStacks(outdir, [stack], 'read', command);
  if (!selected.ok) return selected.error.message;
  if (selected.value.length === 1 && selected.value[0] === stack) return undefined;
  return patternRefusal(stack, selected.value, command);
}

/**
 * Why `stack`, given as `--stack` to a state command or force-unlock, is not a stack's name, or undefined. These
 * take a pattern no more than the other commands of one stack do (refused as `oneStackNameProblem` refuses it),
 * but they do take a name the synth output lacks, or with no synth output at all: a stack's state outlives its
 * code (`state pull`, `state rm` after the stack left the app) and is moved between machines without it.
 */
export function stateStackNameProblem(outdir: string, stack: string, command: string): string | undefined {
  if (!isStackPattern(stack)) return undefined;
  const selected = selectSynthesizedStacks(outdir, [stack], 'read', command);
  if (selected.ok && selected.value.length === 1 && selected.value[0] === stack) return undefined;
  return patternRefusal(stack, selected.ok ? selected.value : [], command);
}

/** The refusal of a pattern given to a command of one stack, with the stacks it matches (none when unknown). */
function patternRefusal(stack: string, matching: readonly string[], command: string): string {
  const matches = matching.length > 0 ? `, matching ${matching.join(', ')}` : '';
  const names = matching.length > 0 ? `: ${matching.map((name) => `--stack ${name}`).join(' or ')}` : '';
  return `--stack '${stack}' is a pattern${matches}; ${command} works on one stack and takes its name${names} (patterns are for plan, apply, destroy, show and graph)`;
}

/**
 * prepareServiceRun for a command of one stack (settings holding `oneStackOf`'s choice), and a `--stack` that
 * names a stack of the synth output, known only once synthesized: such a command reads or writes one stack's
 * state, so a pattern is refused rather than read as the name of no stack (`oneStackNameProblem`).
 */
export async function prepareOneStackRun(settings: EngineSettings, command: string, io: CliIo): Promise<PreparedServiceRun> {
  const prepared = await prepareServiceRun(settings, io);
  if (!prepared.ok || settings.stacks.length === 0 || prepared.options.desired.kind !== 'synth-output') return prepared;
  const problem = oneStackNameProblem(prepared.options.desired.outdir, settings.stacks[0], command);
  return problem === undefined ? prepared : { ok: false, exitCode: failWith(io, problem) };
}
