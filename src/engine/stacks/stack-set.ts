/**
 * The stacks a command runs over: the stack set every command of the engine takes. A run of one stack is a set
 * of one, run as it always was (no manifest read, its targets as given, its errors and progress unnamed: it is
 * the only stack); a set of several reads a synth output, gives each stack the targets in it, and orders the
 * stacks by the dependencies its manifest records.
 */
import type { EngineOptions } from '../setup/engine-options';
import { resolveStack } from '../setup/stack-name';
import { EngineError, fail, ok, type Result } from '../errors';
import { readStackDependencies, type StackDependencies } from './stack-order';
import { narrowToTargets } from './stack-selection';

/** What every command of the engine takes: a run's options and the stacks it covers. */
export interface StackSetOptions extends EngineOptions {
  /**
   * The stacks to run (chosen with `selectStacks`); absent: the one stack `stack` names, or the only stack of
   * `desired`. More than one needs a synth output (`desired.kind` `synth-output`).
   */
  stacks?: readonly string[];
}

/** The stacks of a run, with what each one gets. */
export interface StackSet {
  /** The stacks that run (a set of several narrowed to those that hold a --target). */
  stacks: string[];
  /** Whether the run covers several stacks: then errors and progress events name their stack. */
  several: boolean;
  /** By stack, the stacks of the set it depends on. */
  dependencies: StackDependencies;
  /** A stack's --target addresses (undefined: the whole stack). */
  targetsOf: (stack: string) => string[] | undefined;
}

/** The stack set `options` select; fails before any request on a bad selection or manifest. */
export function stackSetOf(options: StackSetOptions): Result<StackSet> {
  const selected = selectedStacks(options);
  if (!selected.ok) return selected;
  const stacks = selected.value;
  if (stacks.length === 1) {
    return ok({ stacks, several: false, dependencies: new Map([[stacks[0], []]]), targetsOf: () => options.targets });
  }
  if (options.desired.kind !== 'synth-output') {
    return fail(new EngineError('desired_invalid', `a run over several stacks (${stacks.join(', ')}) reads them from a synth output: give desired { kind: 'synth-output', outdir }`));
  }
  const narrowed = narrowToTargets(stacks, options.targets);
  if (!narrowed.ok) return narrowed;
  const dependencies = readStackDependencies(options.desired.outdir, narrowed.value.stacks);
  if (!dependencies.ok) return dependencies;
  return ok({ stacks: narrowed.value.stacks, several: true, dependencies: dependencies.value, targetsOf: narrowed.value.targetsOf });
}

/** The stacks given, else the one stack the options name. */
function selectedStacks(options: StackSetOptions): Result<string[]> {
  if (options.stacks === undefined) {
    const one = resolveStack(options);
    return one.ok ? ok([one.value]) : one;
  }
  if (options.stacks.length === 0) return fail(new EngineError('desired_invalid', 'the run covers no stack: give at least one in `stacks`'));
  return ok([...new Set(options.stacks)]);
}
