/**
 * What a run over a stack set checks before its first request: the order (a cycle is an error), and for a set of
 * several one state per stack and each stack's state location and connection settings (address, token variable,
 * TLS files), so that a mistake in any of them stops the run before any server is contacted. apply and destroy
 * also load and check every stack's desired state then (a refusal comes before any write); a plan loads each
 * stack whose synth-time digest record vouches for its file when its turn comes (`checkStackAhead`): such a
 * stack's desired state was checked at synth, and should it fail the engine's checks all the same, that stack
 * fails and the others are planned. A set of one is checked by its own run, as it always was (the same errors,
 * unprefixed).
 */
import { serverOf } from '../../client';
import type { EngineOptions } from '../setup/engine-options';
import { EngineError, fail, inStack, ok, type Result } from '../errors';
import { checkRunConnection, checkStackAhead, prepareRun, type StackAhead } from '../setup/run-context';
import { chosenStateSetting, isStateUrl, STACK_PLACEHOLDER } from '../state/state-location';
import { orderStacks, reverseDependencies, type StackDependencies } from './stack-order';
import type { StackSet } from './stack-set';

/** The run's stacks in the order they start, and by stack the stacks it waits for. */
export interface StackPlanOrder {
  ordered: string[];
  waitsFor: StackDependencies;
  /** In a set of several, by stack: the server it talks to (its budget's key) and its number of objects. */
  work?: Map<string, StackWork>;
}

/** What a stack of a set asks of its server: what `ServerShares` (server-shares.ts) admits it by. */
export interface StackWork {
  server: string;
  objects: number;
}

/**
 * Orders the set's stacks (reversed for destroy) and, in a set of several, checks each one's run context.
 * `desiredOf` says where a stack's desired state comes from; `loadEveryStack`, whether every stack's desired state
 * is loaded and checked now (apply, destroy), not only where no digest record vouches for it (plan).
 */
export function prepareStacks(
  options: Omit<EngineOptions, 'stack' | 'desired'>,
  set: StackSet,
  desiredOf: (stack: string) => EngineOptions['desired'],
  reversed: boolean,
  loadEveryStack = true,
): Result<StackPlanOrder> {
  const { stacks, dependencies } = set;
  const order = orderStacks(stacks, dependencies);
  if (!order.ok) return order;
  if (!set.several) return ok({ ordered: order.value, waitsFor: dependencies });
  const sharedFile = sharedStateFile(options, stacks);
  if (sharedFile !== undefined) {
    return fail(new EngineError(
      'state_config',
      `the state ${sharedFile} is one file, but this run covers ${stacks.length} stacks (${stacks.join(', ')}): put ${STACK_PLACEHOLDER} in the path for one file per stack (e.g. --state 'state/${STACK_PLACEHOLDER}.json'), use a postgres:// URL (one row set per stack), or leave --state and SECRETFORM_STATE unset (.secretform/<stack>.state.json)`,
    ));
  }
  const work = new Map<string, StackWork>();
  for (const stack of order.value) {
    const stackOptions = { ...options, stack, desired: desiredOf(stack) };
    const checked = loadEveryStack ? loadedAhead(stackOptions) : checkStackAhead(stackOptions, 'with-connection');
    // The run's error now: it names the stack it is about (once, if the error named it already).
    if (!checked.ok) return fail(inStack(checked.error, stack));
    work.set(stack, { server: serverOf(checked.value.checked.config.address), objects: checked.value.objects });
  }
  return ok(reversed
    ? { ordered: [...order.value].reverse(), waitsFor: reverseDependencies(dependencies), work }
    : { ordered: order.value, waitsFor: dependencies, work });
}

/**
 * The stack's run context loaded and checked, and its connection checked as its client will check it (the token's
 * variable required when a ServiceConnection names it): no server is contacted while any is wrong.
 */
function loadedAhead(options: EngineOptions): Result<StackAhead> {
  const context = prepareRun(options);
  if (!context.ok) return context;
  const checked = checkRunConnection(context.value, context.value.desired.connection !== undefined);
  return checked.ok ? ok({ checked: checked.value, objects: context.value.desired.resources.length }) : checked;
}

/** The state file every stack would share (a file path without `{stack}`), if that is what was asked for. */
function sharedStateFile(options: Pick<EngineOptions, 'statePath' | 'env'>, stacks: readonly string[]): string | undefined {
  const chosen = chosenStateSetting(options.statePath, options.env ?? process.env);
  if (stacks.length < 2 || chosen === undefined || isStateUrl(chosen) || chosen.includes(STACK_PLACEHOLDER)) return undefined;
  return chosen;
}
