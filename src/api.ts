/**
 * The engine API as the package exports it. Besides what the engine takes (a synth output directory, or desired
 * state already loaded), it takes an in-memory cdktf stack, `{ kind: 'stack', stack }`, loaded here with the
 * constructs' `desiredFromStack`: so the engine itself never imports constructs or cdktf.
 */
import { desiredFromStack } from './constructs/desired-from-stack';
import type { IConstruct } from 'constructs';
import { isStack } from './constructs/cdktf-adapter';
import * as engine from './engine';
import type { ApplyResult, ImportedResource, Plan, ResourceState, Result, StateListEntry, StateMoved } from './engine';
import { EngineError, fail, ok } from './engine/errors';

/** Where the desired state comes from: the engine's sources, or an in-memory stack (a cdktf or cdktn `TerraformStack`). */
export type DesiredSource = engine.DesiredSource | { kind: 'stack'; stack: unknown };

/** The engine's options, whose `desired` may be an in-memory stack. */
export interface EngineOptions extends Omit<engine.EngineOptions, 'desired'> {
  desired: DesiredSource;
}

export interface ApplyOptions extends Omit<engine.ApplyOptions, 'desired'> {
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

export async function plan(options: EngineOptions): Promise<Result<Plan>> {
  const loaded = engineOptions(options);
  return loaded.ok ? engine.plan(loaded.value) : loaded;
}

export async function apply(options: ApplyOptions): Promise<Result<ApplyResult>> {
  const loaded = engineOptions(options);
  return loaded.ok ? engine.apply(loaded.value) : loaded;
}

export async function destroy(options: ApplyOptions): Promise<Result<ApplyResult>> {
  const loaded = engineOptions(options);
  return loaded.ok ? engine.destroy(loaded.value) : loaded;
}

export async function importResource(options: EngineOptions, address: string, id: string): Promise<Result<ImportedResource>> {
  const loaded = engineOptions(options);
  return loaded.ok ? engine.importResource(loaded.value, address, id) : loaded;
}

export async function stateList(options: EngineOptions): Promise<Result<StateListEntry[]>> {
  const loaded = engineOptions(options);
  return loaded.ok ? engine.stateList(loaded.value) : loaded;
}

export async function stateShow(options: EngineOptions, address: string): Promise<Result<ResourceState>> {
  const loaded = engineOptions(options);
  return loaded.ok ? engine.stateShow(loaded.value, address) : loaded;
}

export async function stateRm(options: EngineOptions, address: string): Promise<Result<void>> {
  const loaded = engineOptions(options);
  return loaded.ok ? engine.stateRm(loaded.value, address) : loaded;
}

export async function stateMv(options: EngineOptions, from: string, to: string): Promise<Result<StateMoved>> {
  const loaded = engineOptions(options);
  return loaded.ok ? engine.stateMv(loaded.value, from, to) : loaded;
}

/** The stack a command works on (see the engine's resolveStack); an in-memory stack gives its own name. */
export function resolveStack(options: Pick<EngineOptions, 'stack' | 'desired'>): Result<string> {
  const { desired } = options;
  if (desired.kind !== 'stack') return engine.resolveStack({ stack: options.stack, desired });
  if (options.stack !== undefined && options.stack !== '') return ok(options.stack);
  if (!isStack(desired.stack)) return fail(new EngineError('desired_invalid', 'desired.stack is not a TerraformStack (cdktf or cdktn)'));
  return ok((desired.stack).node.id);
}
