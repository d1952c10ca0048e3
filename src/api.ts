/**
 * The engine API as the package exports it: a run of one stack. Besides what the engine takes (a synth output
 * directory, or desired state already loaded), it takes an in-memory cdktf stack, `{ kind: 'stack', stack }`,
 * loaded here with the constructs' `desiredFromStack`: so the engine itself never imports constructs or cdktf.
 * Each command is the engine's one function over a stack set, called with a set of one: its one outcome is the
 * result (a failed stack is the run's failure).
 */
import { desiredFromStack } from './constructs/desired-from-stack';
import type { IConstruct } from 'constructs';
import { isStack } from './constructs/cdktf-adapter';
import type * as engine from './engine';
import type {
  ApplyResult, ImportedResource, OperationAnswer, OperationRequest, Plan, ResourceState, Result, SavedPlan, SavedPlanApplyOptions,
  StackOutcome, StacksChangeResult, StateListEntry, StateMoved,
} from './engine';
import { EngineError, fail, ok } from './engine/errors';
import type { ResourceType } from './resources/types';

/**
 * The engine, loaded on the first command (Node caches it: later calls cost a lookup). The package entry point
 * exports these functions, and an app that imports only constructs from it should not pay for loading the
 * engine, its client and their packages (about 160 modules; issue 35).
 */
function loadEngine(): typeof engine {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a top-level import would load the engine with every construct app
  return require('./engine') as typeof engine;
}

/** Where the desired state comes from: the engine's sources, or an in-memory stack (a cdktf or cdktn `TerraformStack`). */
export type DesiredSource = engine.DesiredSource | { kind: 'stack'; stack: unknown };

/** The engine's options, whose `desired` may be an in-memory stack. */
export interface EngineOptions extends Omit<engine.EngineOptions, 'desired'> {
  desired: DesiredSource;
}

/** apply and destroy of one stack (the engine's `onStateLocked` orders the locks of a set of several: not here). */
export interface ApplyOptions extends Omit<engine.ApplyOptions, 'desired' | 'onStateLocked'> {
  desired: DesiredSource;
}

/** The engine's options, with an in-memory stack loaded; invalid props are a `desired_invalid` error. */
export function engineOptions<T extends { desired: DesiredSource }>(options: T): Result<T & { desired: engine.DesiredSource }> {
  const { desired } = options;
  if (desired.kind !== 'stack') return ok(options as T & { desired: engine.DesiredSource });
  try {
    return ok({ ...options, desired: { kind: 'loaded', desired: desiredFromStack(desired.stack as IConstruct) } });
  } catch (error) {
    return fail(new EngineError('desired_invalid', `invalid desired state: ${error instanceof Error ? error.message : String(error)}`));
  }
}

/**
 * Refreshes every resource of the desired state and of the state file (or the targets and what they need) and
 * diffs them into a plan. Reads only: nothing is written, on the service or in state.
 */
export async function plan(options: EngineOptions): Promise<Result<Plan>> {
  const loaded = engineOptions(options);
  if (!loaded.ok) return loaded;
  const planned = await loadEngine().plan(loaded.value);
  return planned.ok ? onlyOutcome(planned.value) : planned;
}

/**
 * `plan`, plus the saved plan `applySavedPlan` can carry out later (`secretform plan --out`). Fails when the
 * desired state holds a plain-text secret (only references may be written to a file).
 */
export async function createSavedPlan(options: EngineOptions): Promise<Result<{ plan: Plan; saved: SavedPlan }>> {
  const loaded = engineOptions(options);
  if (!loaded.ok) return loaded;
  const made = await loadEngine().createSavedPlan(loaded.value);
  if (!made.ok) return made;
  const planned = onlyOutcome(made.value.outcomes);
  return planned.ok ? ok({ plan: planned.value, saved: made.value.saved!.plans[0] }) : planned;
}

/** Plans under the state lock and carries the plan out in dependency order, saving state after each step. */
export async function apply(options: ApplyOptions): Promise<Result<ApplyResult>> {
  const loaded = engineOptions(options);
  return loaded.ok ? onlyStackChange(await loadEngine().apply(oneStackChange(loaded.value))) : loaded;
}

/** Deletes every resource recorded in state (or the targets and what depends on them), dependents first. */
export async function destroy(options: ApplyOptions): Promise<Result<ApplyResult>> {
  const loaded = engineOptions(options);
  return loaded.ok ? onlyStackChange(await loadEngine().destroy(oneStackChange(loaded.value))) : loaded;
}

/**
 * Carries out a saved plan (`secretform apply PLANFILE`): the desired state, targets and mode it was made with,
 * secrets resolved again. Refused (`plan_stale`), before any write, when the state or a live object it read
 * changed since, or when the plan computed now is not the saved one.
 */
export async function applySavedPlan(saved: SavedPlan, options: SavedPlanApplyOptions): Promise<Result<ApplyResult>> {
  const { confirm, onStateLocked: _locked, ...rest } = options;
  const set = { plans: [saved], dependencies: { [saved.stack]: [] } };
  return onlyStackChange(await loadEngine().applySavedPlan(set, { ...rest, confirm: confirm && ((previews) => confirmOne(confirm, previews)) }));
}

/** The engine's options for a set of one: the approval sees the one stack's plan. */
function oneStackChange(options: ApplyOptions & { desired: engine.DesiredSource }): engine.StacksChangeOptions {
  const { confirm, ...rest } = options;
  return { ...rest, confirm: confirm && ((previews) => confirmOne(confirm, previews)) };
}

/** A set of one is confirmed only once its stack planned: the preview is that plan. */
function confirmOne(confirm: (plan: Plan) => Promise<boolean> | boolean, previews: engine.StackPreview[]): Promise<boolean> | boolean {
  const [preview] = previews;
  return preview.status === 'done' ? confirm(preview.value) : false;
}

/** The one stack's result of a set of one. */
function onlyStackChange(result: Result<StacksChangeResult>): Result<ApplyResult> {
  return result.ok ? onlyOutcome(result.value.stacks) : result;
}

/** The value of the one outcome of a set of one; its failure is the run's (a set of one skips nothing). */
function onlyOutcome<T>(outcomes: readonly StackOutcome<T>[]): Result<T> {
  const [outcome] = outcomes;
  if (outcome.status === 'done') return ok(outcome.value);
  if (outcome.status === 'failed') return fail(outcome.error);
  return fail(new EngineError('desired_invalid', `stack ${outcome.stack} was skipped: stack ${outcome.dependency} failed`));
}

export async function importResource(options: EngineOptions, address: string, id: string): Promise<Result<ImportedResource>> {
  const loaded = engineOptions(options);
  return loaded.ok ? loadEngine().importResource(loaded.value, address, id) : loaded;
}

export async function stateList(options: EngineOptions): Promise<Result<StateListEntry[]>> {
  const loaded = engineOptions(options);
  return loaded.ok ? loadEngine().stateList(loaded.value) : loaded;
}

export async function stateShow(options: EngineOptions, address: string): Promise<Result<ResourceState>> {
  const loaded = engineOptions(options);
  return loaded.ok ? loadEngine().stateShow(loaded.value, address) : loaded;
}

export async function stateRm(options: EngineOptions, address: string): Promise<Result<void>> {
  const loaded = engineOptions(options);
  return loaded.ok ? loadEngine().stateRm(loaded.value, address) : loaded;
}

export async function stateMv(options: EngineOptions, from: string, to: string): Promise<Result<StateMoved>> {
  const loaded = engineOptions(options);
  return loaded.ok ? loadEngine().stateMv(loaded.value, from, to) : loaded;
}

/** The stack a command works on (see the engine's resolveStack); an in-memory stack gives its own name. */
export function resolveStack(options: Pick<EngineOptions, 'stack' | 'desired'>): Result<string> {
  const { desired } = options;
  if (desired.kind !== 'stack') return loadEngine().resolveStack({ stack: options.stack, desired });
  if (options.stack !== undefined && options.stack !== '') return ok(options.stack);
  if (!isStack(desired.stack)) return fail(new EngineError('desired_invalid', 'desired.stack is not a TerraformStack (cdktf or cdktn)'));
  return ok((desired.stack).node.id);
}

/** Runs one operation on an object recorded in state (`secretform action`). Nothing is sent unless the request fits the type. */
export async function runOperation(options: engine.EngineOptions, request: OperationRequest): Promise<Result<OperationAnswer>> {
  return loadEngine().runOperation(options, request);
}

/** The operations a type offers, for messages: `rotate-root` or `creds, check-out`. */
export function offeredOperations(resourceType: ResourceType): string {
  return loadEngine().offeredOperations(resourceType);
}
