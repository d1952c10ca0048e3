/**
 * `plan` over several stacks: each stack planned as a run of one stack would plan it, in dependency order,
 * independent stacks at the same time (each at --parallelism requests); a stack whose dependency failed is
 * skipped. With `--out`, one saved plan covers every stack.
 */
import { createSavedPlan, plan } from '../run/plan-run';
import type { Plan } from '../plan/plan';
import type { EngineOptions } from '../setup/engine-options';
import { ok, type Result } from '../errors';
import type { SavedPlan } from '../saved-plan/saved-plan';
import type { SavedPlanSet } from '../saved-plan/saved-plan-set';
import { readStackDependencies, type StackDependencies } from './stack-order';
import { prepareStacks, type StacksOptions } from './stack-preparation';
import { stackProgress } from './stack-progress';
import { narrowToTargets } from './stack-selection';
import { runStacksInOrder, type StackOutcome } from './stack-scheduler';

/** A run over the stacks `stacks` of the synth output `outdir`. */
export interface SynthesizedStacksOptions extends StacksOptions<EngineOptions> {
  outdir: string;
  /** The stacks to run (selected with `selectStacks`). */
  stacks: readonly string[];
}

/** Each stack's plan (or why it has none), in the order the stacks ran. Fails before any request on bad input. */
export async function planStacks(options: SynthesizedStacksOptions): Promise<Result<StackOutcome<Plan>[]>> {
  const planned = await planEachStack(options, (stackOptions) => plan(stackOptions));
  return planned.ok ? ok(planned.value.outcomes) : planned;
}

/**
 * `planStacks`, plus the saved plan of every stack in one set (undefined when a stack failed or was skipped:
 * a plan that covers only some of the stacks asked for is not saved).
 */
export async function createSavedPlanSet(options: SynthesizedStacksOptions): Promise<Result<{ outcomes: StackOutcome<Plan>[]; saved?: SavedPlanSet }>> {
  const savedByStack = new Map<string, SavedPlan>();
  const planned = await planEachStack(options, async (stackOptions) => {
    const made = await createSavedPlan(stackOptions);
    if (!made.ok) return made;
    savedByStack.set(made.value.saved.stack, made.value.saved);
    return ok(made.value.plan);
  });
  if (!planned.ok) return planned;
  const { outcomes, dependencies } = planned.value;
  if (outcomes.some((outcome) => outcome.status !== 'done')) return ok({ outcomes });
  const plans = outcomes.map((outcome) => savedByStack.get(outcome.stack)!);
  return ok({ outcomes, saved: { plans, dependencies: Object.fromEntries(dependencies) as Record<string, string[]> } });
}

async function planEachStack(
  options: SynthesizedStacksOptions,
  planOne: (options: EngineOptions) => Promise<Result<Plan>>,
): Promise<Result<{ outcomes: StackOutcome<Plan>[]; dependencies: StackDependencies }>> {
  const narrowed = narrowToTargets(options.stacks, options.targets);
  if (!narrowed.ok) return narrowed;
  const { stacks, targetsOf } = narrowed.value;
  const dependencies = readStackDependencies(options.outdir, stacks);
  if (!dependencies.ok) return dependencies;
  const desiredOf = () => ({ kind: 'synth-output', outdir: options.outdir }) as const;
  const order = prepareStacks(options, stacks, dependencies.value, desiredOf, false);
  if (!order.ok) return order;
  const { outdir: _outdir, stacks: _stacks, ...shared } = options;
  const outcomes = await runStacksInOrder(order.value.ordered, order.value.waitsFor, (stack) => planOne({ ...shared, stack, targets: targetsOf(stack), desired: desiredOf(), onProgress: stackProgress(shared.onProgress, stack) }));
  return ok({ outcomes, dependencies: dependencies.value });
}
