/**
 * apply and destroy over a stack set, and `apply PLANFILE` of a saved plan (a set too). Each stack runs through
 * its own run (apply/apply-run.ts: its own context, client, state and lock), in two steps; a run of one stack is
 * a set of one:
 *
 * 1. Every stack takes its lock, in sorted order (one stack's lock is held before the next is asked for, so two
 *    runs over overlapping stacks never wait on each other), and plans under it at the same time as the others.
 *    A saved plan is checked for staleness here: one stale stack refuses the whole run, before any write.
 * 2. Once every stack has planned (or failed), `confirm` sees all the plans at once (one approval for the run);
 *    then each stack writes after the stacks it waits for (its dependencies; for destroy, its dependents) have
 *    succeeded, independent stacks at the same time. A stack whose dependency failed is skipped; the others
 *    finish.
 */
import { applyStack, applyStackSavedPlan, destroyStack } from '../run/apply-run';
import type { Plan } from '../plan/plan';
import type { ApplyOptions, ApplyResult } from '../run/apply-options';
import { EngineError, fail, inStack, ok, type Result } from '../errors';
import type { SavedPlanSet } from '../saved-plan/saved-plan-set';
import type { StackDependencies } from './stack-order';
import { prepareStacks } from './stack-preparation';
import { withRunLimits } from '../setup/run-limits';
import { stackProgress } from './stack-progress';
import { stackSetOf, type StackSet, type StackSetOptions } from './stack-set';
import { stackSucceeded, type StackOutcome } from './stack-scheduler';
import { ownValue } from '../../own-keys';
import { savedPlanPolicyRefusal } from '../policy/policy-stage';
import { verifySavedPlanSet, type SavedPlanVerificationOptions } from '../saved-plan/verify-saved-plan-set';

/**
 * A stack's failures that refuse every stack of a run, before any of them writes: a saved plan that is stale,
 * tampered with or already applied (the plan was reviewed as one file), a failed mandatory policy, which stops
 * `apply --stack` without a saved plan as well as `apply PLANFILE`, and policies that could not be evaluated (a
 * check that threw or gave no answer in time): they fail closed for the whole run. So do a protected object the
 * plan would delete or replace and a state applied to another service than the run's connection: every refusal
 * known before the first write refuses the run over every stack.
 */
const REFUSES_EVERY_STACK: ReadonlySet<string> = new Set<string>(['plan_stale', 'plan_tampered', 'plan_already_applied', 'policy_failed', 'policy_error', 'protected', 'service_mismatch']);

/** A stack as the run's approval sees it: planned, failed while planning, or skipped for a failed dependency. */
export type StackPreview = StackOutcome<Plan>;

/** What apply and destroy take: the stack set, and one approval for all of it. */
export interface StacksChangeOptions extends StackSetOptions {
  /**
   * Called once with every stack's plan (or failure) before anything is changed anywhere: resolve false to stop
   * (nothing changes on any stack). Not called when no stack could be planned.
   */
  confirm?: (previews: StackPreview[]) => Promise<boolean> | boolean;
}

/**
 * What `applySavedPlan` takes besides the plan: the plan fixes the stacks, desired state, targets and mode; the
 * run says where it is (`output`, the synth output each stack's connection is checked against) and whether it
 * applies unverified plans (`allowUnverified`): see saved-plan/verify-saved-plan-set.ts.
 */
export type SavedPlanSetApplyOptions = Omit<StacksChangeOptions, 'stack' | 'stacks' | 'desired' | 'targets' | 'refreshOnly'> & SavedPlanVerificationOptions;

export interface StacksChangeResult {
  /** Per stack, in the order the stacks ran: the stack's ApplyResult, its failure, or the dependency that stopped it. */
  stacks: StackOutcome<ApplyResult>[];
  /** False when `confirm` declined (then nothing changed). */
  confirmed: boolean;
}

/** Plans each stack under its lock and carries the plans out in dependency order, one approval for the run. */
export function apply(options: StacksChangeOptions): Promise<Result<StacksChangeResult>> {
  return changeStackSet(options, 'apply');
}

/** Deletes what each stack's state records (or the targets and what depends on them), dependents first. */
export function destroy(options: StacksChangeOptions): Promise<Result<StacksChangeResult>> {
  return changeStackSet(options, 'destroy');
}

/**
 * Carries out a saved plan (`secretform apply PLANFILE`): every stack is checked for staleness before the first
 * write anywhere (one stale stack: `plan_stale`, nothing changed), then applied in dependency order.
 */
export async function applySavedPlan(set: SavedPlanSet, givenOptions: SavedPlanSetApplyOptions): Promise<Result<StacksChangeResult>> {
  // One request budget per server and one deadline for every stack of the run (setup/run-limits.ts).
  const options = withRunLimits(givenOptions);
  // A plan that recorded a failed mandatory policy when it was made is refused before anything, a request included.
  for (const plan of set.plans) {
    const failedPolicies = savedPlanPolicyRefusal(plan.plan, options.planFile ?? 'given');
    if (failedPolicies) {
      // Worded as a refusal of every stack after their runs (changeStacks): the closing full stop gives way to the note.
      if (set.plans.length === 1) return fail(failedPolicies);
      const { code, message, subject } = inStack(failedPolicies, plan.stack);
      return fail(new EngineError(code, `${message.replace(/\.$/, '')}; no stack was changed`, subject));
    }
  }
  // Nothing in the file is trusted, and no request goes to an address it alone names, before every stack is verified.
  const verified = await verifySavedPlanSet(set, options);
  if (!verified.ok) return verified;
  const saved = new Map(set.plans.map((plan) => [plan.stack, plan]));
  const stacks = set.plans.map((plan) => plan.stack);
  const dependencies = new Map(stacks.map((stack) => [stack, ownValue(set.dependencies, stack) ?? []]));
  const stackSet: StackSet = { stacks, several: stacks.length > 1, dependencies, targetsOf: () => undefined };
  const desiredOf = (stack: string) => ({ kind: 'specs', stack, specs: saved.get(stack)!.desired, connection: saved.get(stack)!.connection }) as const;
  const { output: _output, allowUnverified: _allowUnverified, planFileOf, ...runOptions } = options;
  return changeStacks(runOptions, stackSet, desiredOf, false, (stack, hooks) =>
    applyStackSavedPlan(saved.get(stack)!, { ...runOptions, ...hooks, planFile: planFileOf?.(stack) ?? options.planFile }));
}

function changeStackSet(givenOptions: StacksChangeOptions, mode: 'apply' | 'destroy'): Promise<Result<StacksChangeResult>> {
  const options = withRunLimits(givenOptions);
  const set = stackSetOf(options);
  if (!set.ok) return Promise.resolve(set);
  const { stacks: _selected, confirm: _confirm, ...shared } = options;
  const desiredOf = () => options.desired;
  const runOne = mode === 'apply' ? applyStack : destroyStack;
  const { targetsOf } = set.value;
  return changeStacks(options, set.value, desiredOf, mode === 'destroy', (stack, hooks) => runOne({ ...shared, ...hooks, stack, targets: targetsOf(stack), desired: desiredOf() }));
}

/** The hooks a stack's run is given: how it reports its lock, its plan and its progress to the run over all stacks. */
type StackHooks = Required<Pick<ApplyOptions, 'confirm' | 'onStateLocked'>> & Pick<ApplyOptions, 'onProgress'>;

async function changeStacks(
  options: Omit<StacksChangeOptions, 'stack' | 'stacks' | 'desired'>,
  set: StackSet,
  desiredOf: (stack: string) => ApplyOptions['desired'],
  reversed: boolean,
  runOne: (stack: string, hooks: StackHooks) => Promise<Result<ApplyResult>>,
): Promise<Result<StacksChangeResult>> {
  const order = prepareStacks(options, set, desiredOf, reversed);
  if (!order.ok) return order;
  const { ordered, waitsFor } = order.value;

  const planned = new Map<string, Plan>();
  const finished = new Map(ordered.map((stack) => [stack, deferred<StackOutcome<ApplyResult>>()]));
  // Settled when the stack has planned (its confirm was called) or its run ended before that.
  const reached = new Map(ordered.map((stack) => [stack, deferred<void>()]));
  const skippedFor = new Map<string, string>();
  let declined = false;

  let decision: Promise<boolean> | undefined;
  const decide = (): Promise<boolean> => (decision ??= (async () => {
    await Promise.all([...reached.values()].map((step) => step.promise));
    const early = await Promise.all(ordered.filter((stack) => !planned.has(stack)).map((stack) => finished.get(stack)!.promise));
    // A stale saved plan or a failed mandatory policy in one stack: no stack is confirmed (REFUSES_EVERY_STACK).
    if (early.some((outcome) => outcome.status === 'failed' && REFUSES_EVERY_STACK.has(outcome.error.code))) return false;
    if (planned.size === 0) return false;
    const { confirm } = options;
    // A person reading the plans is not the service being slow: that time does not count against the deadline.
    const shown = previews(ordered, waitsFor, planned, early);
    const approved = confirm ? await (options.runLimits?.deadline.excluding(async () => confirm(shown)) ?? confirm(shown)) : true;
    declined = !approved;
    return approved;
  })());

  const hooksFor = (stack: string, locked: () => void): StackHooks => ({
    onStateLocked: locked,
    // A set of one reports as the only stack: its events name no stack.
    onProgress: set.several ? stackProgress(options.onProgress, stack) : options.onProgress,
    confirm: async (plan) => {
      planned.set(stack, plan);
      reached.get(stack)!.resolve();
      if (!(await decide())) return false;
      for (const dependency of waitsFor.get(stack) ?? []) {
        const outcome = await finished.get(dependency)!.promise;
        if (!stackSucceeded(outcome, succeededRun)) {
          skippedFor.set(stack, dependency);
          return false;
        }
      }
      return true;
    },
  });

  // Locks are taken in sorted order: the next stack's run starts once this one holds its lock (or has ended).
  for (const stack of [...ordered].sort()) {
    const locked = deferred<void>();
    const run = runOne(stack, hooksFor(stack, () => locked.resolve())).then((result): StackOutcome<ApplyResult> => {
      if (!result.ok) return { stack, status: 'failed', error: result.error };
      const dependency = skippedFor.get(stack);
      return dependency !== undefined ? { stack, status: 'skipped', dependency } : { stack, status: 'done', value: result.value };
    });
    void run.then((outcome) => {
      reached.get(stack)!.resolve();
      finished.get(stack)!.resolve(outcome);
    });
    await Promise.race([locked.promise, run]);
  }
  const outcomes = await Promise.all(ordered.map((stack) => finished.get(stack)!.promise));
  const refused = outcomes.find((outcome) => outcome.status === 'failed' && REFUSES_EVERY_STACK.has(outcome.error.code));
  if (refused?.status === 'failed') {
    if (!set.several) return fail(refused.error);
    // The run's error now, naming its stack; a message's closing full stop gives way to the note.
    const { code, message, subject } = inStack(refused.error, refused.stack);
    return fail(new EngineError(code, `${message.replace(/\.$/, '')}; no stack was changed`, subject));
  }
  return ok({ stacks: outcomes, confirmed: !declined && planned.size > 0 });
}

/** Whether the stacks waiting for this one may write. */
function succeededRun(result: ApplyResult): boolean {
  return result.confirmed && result.succeeded;
}

/** The plans for the approval, a planned stack whose dependency failed shown as skipped. */
function previews(ordered: readonly string[], waitsFor: StackDependencies, planned: ReadonlyMap<string, Plan>, early: StackOutcome<ApplyResult>[]): StackPreview[] {
  const shown = new Map<string, StackPreview>();
  for (const stack of ordered) {
    const failed = early.find((outcome) => outcome.stack === stack);
    if (failed?.status === 'failed') {
      shown.set(stack, { stack, status: 'failed', error: failed.error });
      continue;
    }
    const blocked = (waitsFor.get(stack) ?? []).find((dependency) => shown.get(dependency)?.status !== 'done');
    const plan = planned.get(stack);
    shown.set(stack, blocked !== undefined || plan === undefined
      ? { stack, status: 'skipped', dependency: blocked ?? stack }
      : { stack, status: 'done', value: plan });
  }
  return ordered.map((stack) => shown.get(stack)!);
}

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}
