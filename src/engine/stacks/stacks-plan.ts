/**
 * `plan` over a stack set: each stack planned by its own run (plan/plan-run.ts), in dependency order,
 * independent stacks at the same time (sharing --parallelism requests per server); a stack whose dependency failed is
 * skipped. `createSavedPlan` also saves the plan of every stack in one set. A run of one stack is a set of one.
 */
import { createStackSavedPlan, planStack } from '../run/plan-run';
import type { Plan } from '../plan/plan';
import type { EngineOptions } from '../setup/engine-options';
import { ok, type Result } from '../errors';
import type { SavedPlan } from '../saved-plan/saved-plan';
import type { SavedPlanSet } from '../saved-plan/saved-plan-set';
import { signSavedPlanSet } from '../saved-plan/sign-saved-plan-set';
import type { FingerprintKey } from '../state/fingerprint';
import { readAppDependencies, type StackDependencies } from './stack-order';
import { prepareStacks } from './stack-preparation';
import { releaseDesiredSource } from '../setup/desired-source';
import { DEFAULT_PARALLELISM, withRunLimits } from '../setup/run-limits';
import { OBJECTS_PER_SLOT, ServerShares } from './server-shares';
import { stackProgress } from './stack-progress';
import { stackSetOf, type StackSet, type StackSetOptions } from './stack-set';
import { runStacksInOrder, type StackOutcome } from './stack-scheduler';

/**
 * Each stack's plan (or why it has none), one outcome per stack in the order the stacks ran. Fails before any
 * request on a bad selection. Reads only: nothing is written, on the service or in state.
 */
export async function plan(options: StackSetOptions): Promise<Result<StackOutcome<Plan>[]>> {
  const planned = await planEachStack(options, (stackOptions) => planStack(stackOptions));
  return planned.ok ? ok(planned.value.outcomes) : planned;
}

/**
 * `plan`, plus the saved plan of every stack in one set (`secretform plan --out`; undefined when a stack failed
 * or was skipped: a plan that covers only some of the stacks asked for is not saved).
 */
export async function createSavedPlan(options: StackSetOptions): Promise<Result<{ outcomes: StackOutcome<Plan>[]; saved?: SavedPlanSet }>> {
  const inApp = appDependencies(options);
  if (!inApp.ok) return inApp;
  const savedByStack = new Map<string, SavedPlan>();
  const keys = new Map<string, FingerprintKey>();
  const planned = await planEachStack(options, async (stackOptions) => {
    const made = await createStackSavedPlan(stackOptions, inApp.value?.get(stackOptions.stack!));
    if (!made.ok) return made;
    savedByStack.set(made.value.saved.stack, made.value.saved);
    keys.set(made.value.saved.stack, made.value.key);
    return ok(made.value.plan);
  });
  if (!planned.ok) return planned;
  const { outcomes, set } = planned.value;
  if (outcomes.some((outcome) => outcome.status !== 'done')) return ok({ outcomes });
  const plans = outcomes.map((outcome) => savedByStack.get(outcome.stack)!);
  // Signed once the set is known: each stack's MAC covers the set too (its stacks, order and dependencies).
  return ok({ outcomes, saved: signSavedPlanSet(plans, Object.fromEntries(set.dependencies) as Record<string, string[]>, keys) });
}

/**
 * By stack, the stacks of the app it depends on, selected or not, when the run reads a synth output: each stack's
 * saved plan records them, so that files of separate runs (one CI job per stack) are applied in order together.
 */
function appDependencies(options: StackSetOptions): Result<StackDependencies | undefined> {
  if (options.desired.kind !== 'synth-output') return ok(undefined);
  const set = stackSetOf(options);
  if (!set.ok) return set;
  return readAppDependencies(options.desired.outdir, set.value.stacks);
}

async function planEachStack(
  options: StackSetOptions,
  planOne: (options: EngineOptions) => Promise<Result<Plan>>,
): Promise<Result<{ outcomes: StackOutcome<Plan>[]; set: StackSet }>> {
  const set = stackSetOf(options);
  if (!set.ok) return set;
  // One request budget per server and one deadline for every stack of the run (setup/run-limits.ts).
  const { stacks: _stacks, ...shared } = withRunLimits(options);
  const desiredOf = () => options.desired;
  // Each stack loaded when its turn comes where its digest record vouches for its file (stack-preparation.ts).
  const order = prepareStacks(shared, set.value, desiredOf, false, false);
  if (!order.ok) return order;
  const { targetsOf, several } = set.value;
  // A plan reads only: its stacks need not all start at once, so each server takes a few at a time.
  const { work } = order.value;
  const servers = work && { shares: new ServerShares((shared.parallelism ?? DEFAULT_PARALLELISM) * OBJECTS_PER_SLOT), work };
  const outcomes = await runStacksInOrder(order.value.ordered, order.value.waitsFor, async (stack) => {
    const planned = await planOne({
      ...shared, stack, targets: targetsOf(stack), desired: desiredOf(), onProgress: several ? stackProgress(shared.onProgress, stack) : shared.onProgress,
    });
    // The plan holds what it needs of the desired state; the rest need not wait in memory for the other stacks.
    releaseDesiredSource({ desired: desiredOf() }, stack);
    return planned;
  }, undefined, servers);
  return ok({ outcomes, set: set.value });
}
