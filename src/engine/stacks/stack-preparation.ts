/**
 * What a run over a stack set checks before its first request: the order (a cycle is an error), and for a set of
 * several one state per stack and each stack's run context (desired state, state location) and connection
 * settings (address, token variable, TLS files), so that a mistake in any stack stops the run before any server
 * is contacted. A set of one is checked by its own run, as it always was (the same errors, unprefixed).
 */
import { serverOf } from '../../client';
import type { EngineOptions } from '../setup/engine-options';
import { EngineError, fail, inStack, ok, type Result } from '../errors';
import { checkRunConnection, prepareRun } from '../setup/run-context';
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
 * `desiredOf` says where a stack's desired state comes from.
 */
export function prepareStacks(
  options: Omit<EngineOptions, 'stack' | 'desired'>,
  set: StackSet,
  desiredOf: (stack: string) => EngineOptions['desired'],
  reversed: boolean,
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
    const context = prepareRun({ ...options, stack, desired: desiredOf(stack) });
    // Each stack's connection is checked as its client will check it: no server is contacted while any is wrong.
    const checked = context.ok ? checkRunConnection(context.value, context.value.desired.connection !== undefined) : context;
    // The run's error now: it names the stack it is about (once, if the error named it already).
    if (!checked.ok) return fail(inStack(checked.error, stack));
    work.set(stack, { server: serverOf(checked.value.config.address), objects: context.ok ? context.value.desired.resources.length : 0 });
  }
  return ok(reversed
    ? { ordered: [...order.value].reverse(), waitsFor: reverseDependencies(dependencies), work }
    : { ordered: order.value, waitsFor: dependencies, work });
}

/** The state file every stack would share (a file path without `{stack}`), if that is what was asked for. */
function sharedStateFile(options: Pick<EngineOptions, 'statePath' | 'env'>, stacks: readonly string[]): string | undefined {
  const chosen = chosenStateSetting(options.statePath, options.env ?? process.env);
  if (stacks.length < 2 || chosen === undefined || isStateUrl(chosen) || chosen.includes(STACK_PLACEHOLDER)) return undefined;
  return chosen;
}
