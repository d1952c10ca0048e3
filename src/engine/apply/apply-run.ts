/**
 * apply and destroy: plan under the state lock, then carry the plan out in dependency order, saving state after
 * every operation, so that after any failure or interruption the state holds exactly what succeeded.
 */
import type { ServiceClient } from '../../client';
import { runInDependencyOrder, type TaskOutcome } from '../dependency-scheduler';
import type { ApplyOptions, ApplyResult, OperationOutcome } from '../engine-options';
import { EngineError, fail, ok, type Result } from '../errors';
import type { Plan } from '../plan/plan';
import type { PlanComputation } from '../plan/compute-plan';
import type { ResourcePlan } from '../plan/resource-plan';
import { planRun, prepareRun, readRunState, type RunContext } from '../run-context';
import type { ResolvedSecrets } from '../secret-resolution';
import { fingerprintSecret, type FingerprintKey } from '../state/fingerprint';
import type { ResourceState } from '../state/state-file';
import { lockState } from '../state/state-lock';
import type { RunMode } from '../targets';
import { deleteObject, writeObject } from './operations';
import { StateWriter } from './state-writer';
import { buildOperations } from './task-graph';

/** Plans under the state lock and carries the plan out in dependency order, saving state after each step. */
export function apply(options: ApplyOptions): Promise<Result<ApplyResult>> {
  return run(options, 'apply');
}

/** Deletes every resource recorded in state (or the targets and what depends on them), dependents first. */
export function destroy(options: ApplyOptions): Promise<Result<ApplyResult>> {
  return run(options, 'destroy');
}

async function run(options: ApplyOptions, mode: RunMode): Promise<Result<ApplyResult>> {
  const context = prepareRun(options);
  if (!context.ok) return context;
  const lock = await lockState(context.value.statePath);
  if (!lock.ok) return lock;
  let client: ServiceClient | undefined;
  try {
    const state = await readRunState(context.value);
    if (!state.ok) return state;
    const planned = await planRun(context.value, state.value, mode);
    if (!planned.ok) return planned;
    client = planned.value.client;
    const { computation, secrets } = planned.value;
    if (options.confirm && !(await options.confirm(computation.plan))) {
      return ok({ plan: computation.plan, outcomes: [], interrupted: false, succeeded: true, confirmed: false });
    }
    const writer = new StateWriter(context.value.statePath, state.value);
    return await execute(context.value, client, computation, secrets, writer);
  } finally {
    await client?.close();
    await lock.value();
  }
}

async function execute(
  context: RunContext,
  client: ServiceClient,
  computation: PlanComputation,
  secrets: ResolvedSecrets,
  writer: StateWriter,
): Promise<Result<ApplyResult>> {
  const { plan, resources } = computation;
  const refreshOnly = context.options.refreshOnly === true;
  const housekept = housekeep(resources, writer, refreshOnly);
  if (housekept) {
    try {
      await writer.save();
    } catch {
      return fail(writer.failure!);
    }
  }
  if (refreshOnly) return ok(result(plan, [], false));

  const { operations, tasks } = buildOperations(resources.values());
  const signal = context.options.signal;
  const onProgress = context.options.onProgress;
  const runOperation = async (key: string): Promise<void> => {
    const operation = operations.get(key)!;
    const resource = resources.get(operation.address)!;
    onProgress?.({ kind: 'operation-start', address: operation.address, action: operation.label });
    try {
      if (operation.kind === 'delete') {
        await deleteObject(client, resource);
        await writer.set(operation.address, undefined);
      } else {
        const values = secrets.get(operation.address) ?? {};
        await writeObject(client, resource, values, operation.kind === 'create');
        await writer.set(operation.address, stateEntryAfterWrite(resource, values, context.fingerprintKey, operation.kind === 'create'));
      }
    } catch (error) {
      onProgress?.({ kind: 'operation-done', address: operation.address, action: operation.label, status: 'failed', message: (error as Error).message });
      throw error;
    }
    onProgress?.({ kind: 'operation-done', address: operation.address, action: operation.label, status: 'succeeded' });
  };

  const taskOutcomes = await runInDependencyOrder(tasks, runOperation, {
    parallelism: context.parallelism,
    shouldStop: () => signal?.aborted === true,
  });
  const outcomes = taskOutcomes.map((outcome) => toOutcome(outcome, operations.get(outcome.key)!));
  for (const outcome of outcomes) {
    if (outcome.status === 'skipped') {
      onProgress?.({ kind: 'operation-done', address: outcome.address, action: outcome.action, status: 'skipped', message: outcome.message });
    }
  }
  if (writer.failure) {
    const done = outcomes.filter((o) => o.status === 'succeeded').map((o) => `${o.action} ${o.address}`);
    return fail(new EngineError('state_io', `${writer.failure.message}. The state file may miss these changes made on the service: ${done.join(', ') || 'none'}`));
  }
  const interrupted = signal?.aborted === true && taskOutcomes.some((o) => o.status === 'skipped' && o.reason === STOPPED);
  return ok(result(plan, outcomes, interrupted));
}

const STOPPED = 'the run was stopped';

/**
 * State changes that need no request: forget objects deleted outside secretform and removed from code, rename
 * moved addresses, and (refresh-only) record the live values of the fields secretform owns.
 */
function housekeep(resources: Map<string, ResourcePlan>, writer: StateWriter, refreshOnly: boolean): boolean {
  const entries: Record<string, ResourceState> = { ...writer.state.resources };
  let changed = false;
  for (const resource of resources.values()) {
    const entry = entries[resource.address];
    if (!entry) continue;
    if (resource.movedTo) {
      entries[resource.movedTo] = entry;
      delete entries[resource.address];
      changed = true;
    } else if (resource.live.attributes === null && (!resource.desired || refreshOnly)) {
      delete entries[resource.address];
      changed = true;
    } else if (refreshOnly && resource.live.attributes) {
      const live = resource.live.attributes;
      const attributes: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(entry.attributes)) attributes[name] = live[name] !== undefined ? live[name] : value;
      entries[resource.address] = { ...entry, attributes };
      changed = true;
    }
  }
  if (changed) writer.replaceResources(entries);
  return changed;
}

/** State after a successful create or update: the canonical desired attributes and fingerprints of the secrets. */
function stateEntryAfterWrite(resource: ResourcePlan, values: Readonly<Record<string, string>>, key: FingerprintKey, created: boolean): ResourceState {
  const desired = resource.desired!;
  const previous = !created && resource.stateEntry?.id === desired.id ? resource.stateEntry.secrets : {};
  const fingerprints: Record<string, string> = {};
  for (const field of Object.keys(desired.secrets)) {
    const value = values[field];
    if (value !== undefined && resource.writeSecrets.includes(field)) fingerprints[field] = fingerprintSecret(value, key);
    else if (previous[field] !== undefined) fingerprints[field] = previous[field];
  }
  return {
    type: desired.type,
    id: desired.id,
    attributes: resource.canonical!,
    secrets: fingerprints,
    digest: desired.digest,
    dependencies: [...desired.dependsOn],
    applied_at: new Date().toISOString(),
  };
}

function toOutcome(outcome: TaskOutcome, operation: { address: string; label: string }): OperationOutcome {
  const base = { address: operation.address, action: operation.label };
  if (outcome.status === 'succeeded') return { ...base, status: 'succeeded' };
  if (outcome.status === 'failed') return { ...base, status: 'failed', message: outcome.error.message };
  return { ...base, status: 'skipped', message: outcome.reason === STOPPED ? 'not started: the run was interrupted' : `not started: ${outcome.reason.replace(/^(write|delete):/, '')}` };
}

function result(plan: Plan, outcomes: OperationOutcome[], interrupted: boolean): ApplyResult {
  return { plan, outcomes, interrupted, succeeded: !interrupted && outcomes.every((o) => o.status === 'succeeded'), confirmed: true };
}
