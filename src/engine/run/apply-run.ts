/**
 * One stack's apply and destroy (its part of a run over a stack set, stacks/stacks-change.ts): plan under the
 * state lock, then carry the plan out in dependency order, saving state after every operation, so that after
 * any failure or interruption the state holds exactly what succeeded.
 */
import { ServiceClientError, runFailureHeadline, runFailureMessage, type ServiceClient } from '../../client';
import { runInDependencyOrder, type TaskOutcome, type TaskRun } from '../apply/dependency-scheduler';
import { stableStringify } from '../plan/diff/values';
import type { ApplyOptions, ApplyResult, OperationOutcome, StateOnlyChange } from './apply-options';
import { EngineError, fail, ok, type Result } from '../errors';
import type { Plan } from '../plan/plan';
import { serverWarnings, type PlanComputation } from '../plan/compute-plan';
import type { ResourcePlan } from '../plan/resource-plan';
import { lockRunState, prepareRun, runFingerprintKey, type RunContext } from '../setup/run-context';
import { planRun } from './planned-run';
import { digestOfDesired } from '../setup/desired-digest';
import type { ResolvedSecrets } from '../setup/secret-resolution';
import type { StateBackend, StateVersionInfo } from '../state/backend';
import type { FingerprintKey } from '../state/fingerprint';
import type { ResourceState } from '../state/state-file';
import { renameAddress } from '../state/state-moves';
import type { RunMode } from '../setup/targets';
import { canonicalJson } from '../saved-plan/canonical-json';
import type { SavedPlan } from '../saved-plan/saved-plan';
import type { SavedPlanVerificationOptions } from '../saved-plan/verify-saved-plan-set';
import { appliedVersion, savedPlanApplyCommand, staleReasons } from '../saved-plan/staleness';
import { recordedGuardrails } from '../plan/lifecycle';
import { policyRefusal } from '../policy/policy-stage';
import { hasAfterCreateOperations, runAfterCreateOperations } from '../apply/after-create';
import { deleteObject, writeObject } from '../apply/operations';
import { StateWriter } from '../state/state-writer';
import { buildOperations, type Operation } from '../apply/task-graph';
import { ownValue, setOwn } from '../../own-keys';

/** Plans under the state lock and carries the plan out in dependency order, saving state after each step. */
export function applyStack(options: ApplyOptions): Promise<Result<ApplyResult>> {
  return run(options, 'apply');
}

/**
 * What `applyStackSavedPlan` (and the package's `applySavedPlan`) takes besides the plan: the plan fixes the
 * stack, desired state, targets and mode; `output` and `allowUnverified` are what its verification takes.
 */
export type SavedPlanApplyOptions = Omit<ApplyOptions, 'desired' | 'stack' | 'targets' | 'refreshOnly'> & Pick<SavedPlanVerificationOptions, 'planFile' | 'output' | 'allowUnverified'>;

/**
 * Carries out one stack's saved plan (its part of `apply PLANFILE`): the desired state, targets and mode it
 * was made with, secrets resolved again. Refused (`plan_stale`), before any write, when the state or a live object it read
 * changed since, or when the plan computed now is not the saved one.
 */
export function applyStackSavedPlan(saved: SavedPlan, options: SavedPlanApplyOptions): Promise<Result<ApplyResult>> {
  // The set was verified before any stack's run (saved-plan/verify-saved-plan-set.ts): its MACs, every
  // stack's connection, and the policies it recorded.
  const runOptions: ApplyOptions = {
    ...options,
    stack: saved.stack,
    desired: { kind: 'specs', stack: saved.stack, specs: saved.desired, connection: saved.connection },
    targets: saved.targets.length > 0 ? saved.targets : undefined,
    refreshOnly: saved.refresh_only,
  };
  return run(runOptions, 'apply', saved);
}

/** Deletes every resource recorded in state (or the targets and what depends on them), dependents first. */
export function destroyStack(options: ApplyOptions): Promise<Result<ApplyResult>> {
  return run(options, 'destroy');
}

async function run(options: ApplyOptions, mode: RunMode, saved?: SavedPlan): Promise<Result<ApplyResult>> {
  const context = prepareRun(options);
  if (!context.ok) return context;
  const locked = await lockRunState(context.value, `secretform ${mode}`);
  if (!locked.ok) return locked;
  options.onStateLocked?.();
  let client: ServiceClient | undefined;
  try {
    const state = locked.value.state;
    const planned = await planRun(context.value, state, mode);
    if (!planned.ok) return planned;
    client = planned.value.client;
    const { computation, secrets, fingerprintKey } = planned.value;
    if (saved) {
      const reasons = staleReasons(saved, state, computation);
      const applied = reasons.length > 0 ? await appliedBefore(saved, locked.value.backend) : undefined;
      if (applied) {
        return fail(new EngineError('plan_already_applied', `the saved plan was already applied, so nothing was changed: its apply wrote state serial ${applied.serial} at ${applied.created_at} (the plan was made from serial ${saved.state.serial}; the state is at ${state.serial} now). Make a new plan (\`secretform plan --out PLANFILE\`) for new changes`));
      }
      if (reasons.length > 0) {
        return fail(new EngineError('plan_stale', `the saved plan is stale, so nothing was changed: ${reasons.join('; ')}. Make a new plan (\`secretform plan --out PLANFILE\`), review it, and apply that one`));
      }
    }
    // A failed mandatory policy stops the run before approval is asked and before any write.
    const refusal = policyRefusal(computation.plan);
    if (refusal) return fail(refusal);
    if (options.confirm && !(await options.confirm(computation.plan))) {
      return ok({ plan: computation.plan, outcomes: [], interrupted: false, succeeded: true, confirmed: false, stateOnly: [] });
    }
    // A saved plan's id goes with the version it writes, so applying it again is told apart from a stale plan.
    const writer = new StateWriter(locked.value.backend, state, saved ? savedPlanApplyCommand(saved) : `secretform ${mode}`, planned.value.service);
    const executed = await execute(context.value, client, computation, secrets, fingerprintKey, writer);
    // The writes become a version of the history (the local journal is folded into the state file), with the
    // digest of the desired state when the run carried all of it out.
    const finished = await writer.finish(carriedOutInFull(context.value, mode, executed) ? digestOfDesired(context.value.desired, planned.value.service) : undefined);
    if (executed.ok && finished) return fail(finished);
    return executed;
  } finally {
    await client?.close();
    await locked.value.release();
  }
}

/**
 * Whether the run carried out the stack's whole desired state, so that its digest describes the state it leaves
 * (docs/fleets.md, "Change detection"): an apply (a saved plan's too) that succeeded in full, uninterrupted,
 * over every object (no --target) and not refresh-only. Anything else records no digest, and what it wrote moves
 * the state's serial past the one recorded, which then no longer counts: destroy, a refresh-only apply that
 * took in drift, a targeted apply, and an apply that failed or was interrupted midway.
 */
function carriedOutInFull(context: RunContext, mode: RunMode, executed: Result<ApplyResult>): boolean {
  if (mode !== 'apply' || !executed.ok) return false;
  const { succeeded, interrupted, runFailure } = executed.value;
  const targeted = context.options.targets !== undefined && context.options.targets.length > 0;
  return succeeded && !interrupted && runFailure === undefined && !targeted && context.options.refreshOnly !== true;
}

/** The history version written by applying this saved plan, if it was applied already. */
async function appliedBefore(saved: SavedPlan, backend: StateBackend): Promise<StateVersionInfo | undefined> {
  const history = await backend.history();
  return history.ok ? appliedVersion(saved, history.value) : undefined;
}

async function execute(
  context: RunContext,
  client: ServiceClient,
  computation: PlanComputation,
  secrets: ResolvedSecrets,
  fingerprintKey: FingerprintKey,
  writer: StateWriter,
): Promise<Result<ApplyResult>> {
  const { plan, resources } = computation;
  const refreshOnly = context.options.refreshOnly === true;
  const stateOnly = housekeep(resources, writer, refreshOnly);
  if (stateOnly.length > 0) {
    try {
      await writer.save();
    } catch {
      return fail(writer.failure!);
    }
  }
  if (refreshOnly) return ok(result(plan, [], false, stateOnly));

  const { operations, tasks } = buildOperations(resources.values());
  // The first apply that records a fingerprint creates the stack's key (approved now: nothing was written before).
  const writesSecrets = [...resources.values()].some((resource) => resource.writeSecrets.length > 0);
  if (writesSecrets && !fingerprintKey.hasKey) fingerprintKey = await runFingerprintKey(context, client, 'write');
  const signal = context.options.signal;
  const onProgress = context.options.onProgress;
  onProgress?.({ kind: 'operations', total: operations.size });
  const warningsByKey = new Map<string, string[]>();
  const failedOperation = (operation: Operation, error: unknown): never => {
    onProgress?.({ kind: 'operation-done', address: operation.address, action: operation.label, status: 'failed', message: (error as Error).message });
    throw error;
  };
  const succeededOperation = (operation: Operation): void => {
    onProgress?.({ kind: 'operation-done', address: operation.address, action: operation.label, status: 'succeeded' });
  };
  // Changes the service made whose recording failed (the state could not be written): the error names them.
  const notRecorded: string[] = [];
  const recordingFailed = (operation: Operation, error: unknown): never => {
    if (error === writer.failure) notRecorded.push(`${operation.label} ${operation.address}`);
    return failedOperation(operation, error);
  };
  // In the slot: the request. After it: state, which changes only after the service answered 2xx (the client
  // turns anything else into an error); a delete or write counts as done once its change is stored.
  const runOperation: TaskRun = async (key) => {
    const operation = operations.get(key)!;
    const resource = resources.get(operation.address)!;
    onProgress?.({ kind: 'operation-start', address: operation.address, action: operation.label });
    if (operation.kind === 'delete') {
      try {
        warningsByKey.set(key, await deleteObject(client, resource));
      } catch (error) {
        failedOperation(operation, error);
      }
      return async () => {
        try {
          await writer.set(operation.address, undefined);
        } catch (error) {
          recordingFailed(operation, error);
        }
        succeededOperation(operation);
      };
    }
    const values = secrets.get(operation.address) ?? {};
    const created = operation.kind === 'create';
    try {
      warningsByKey.set(key, await writeObject(client, resource, values, created));
    } catch (error) {
      failedOperation(operation, error);
    }
    return async (slot) => {
      try {
        const entry = await stateEntryAfterWrite(resource, values, fingerprintKey, created);
        await writer.set(operation.address, entry);
        // Only a resource that asks for operations after its creation takes a slot again (before the tasks waiting).
        const rotated = created && hasAfterCreateOperations(resource) ? await slot(() => runAfterCreateOperations(client, resource)) : [];
        if (rotated.length > 0) {
          const at = new Date().toISOString();
          await writer.set(operation.address, { ...entry, rotated_by_service: Object.fromEntries(rotated.map((field) => [field, at])) });
        }
      } catch (error) {
        recordingFailed(operation, error);
      }
      succeededOperation(operation);
    };
  };

  // A failure that concerns the whole run (the client latches it) stops it like Ctrl-C: nothing new starts. So
  // does a state write that failed: a change made after it could not be recorded either.
  const taskOutcomes = await runInDependencyOrder(tasks, runOperation, {
    parallelism: context.parallelism,
    shouldStop: () => signal?.aborted === true || client.runFailure() !== undefined || writer.failure !== undefined,
  });
  const runFailure = client.runFailure();
  const outcomes = taskOutcomes.map((outcome) => {
    const converted = toOutcome(outcome, operations.get(outcome.key)!, signal?.aborted === true, (key) => operations.get(key));
    const warnings = [...new Set(warningsByKey.get(outcome.key) ?? [])];
    return warnings.length > 0 ? { ...converted, warnings } : converted;
  });
  for (const outcome of outcomes) {
    if (outcome.status === 'skipped') {
      onProgress?.({ kind: 'operation-done', address: outcome.address, action: outcome.action, status: 'skipped', message: outcome.message });
    }
  }
  if (writer.failure) {
    const made = notRecorded.length === 0 ? 'every change made on the service before it is recorded' : `these changes were made on the service but are not recorded: ${notRecorded.join(', ')}`;
    return fail(new EngineError('state_io', `${writer.failure.message}. Nothing was started after it; ${made}. Once the state can be written again, \`secretform plan\` shows what remains (an object created but not recorded is adopted by the next apply)`));
  }
  const interrupted = signal?.aborted === true && taskOutcomes.some((o) => o.status === 'skipped' && o.reason.kind === 'stopped');
  const done = result(plan, outcomes, interrupted, stateOnly);
  if (runFailure) done.runFailure = runFailureMessage(runFailure);
  const warnings = applyWarnings(outcomes);
  if (warnings.length > 0) done.warnings = warnings;
  return ok(done);
}

/** The service's warnings of every operation, once per resource (a replacement's two steps are one resource). */
function applyWarnings(outcomes: OperationOutcome[]): string[] {
  const byAddress = new Map<string, string[]>();
  for (const outcome of outcomes) byAddress.set(outcome.address, [...(byAddress.get(outcome.address) ?? []), ...(outcome.warnings ?? [])]);
  return [...byAddress].flatMap(([address, warnings]) => serverWarnings(address, warnings));
}

/**
 * State changes that need no request: rename moved addresses, forget objects deleted outside secretform and
 * removed from code, and record the refreshed state of every object read: for a resource in code that needs no
 * write, what the code says (it matches the live object, so drift the code now matches clears); with
 * --refresh-only, the live values of the fields secretform owns.
 */
function housekeep(resources: ReadonlyMap<string, ResourcePlan>, writer: StateWriter, refreshOnly: boolean): StateOnlyChange[] {
  let entries: Record<string, ResourceState> = { ...writer.state.resources };
  const changes: StateOnlyChange[] = [];
  for (const resource of resources.values()) {
    const from = resource.movedFrom;
    if (from !== undefined && ownValue(entries, from) && !ownValue(entries, resource.address)) {
      entries = renameAddress(entries, from, resource.address);
      changes.push({ address: resource.address, change: 'moved', from });
    }
  }
  for (const resource of resources.values()) {
    const entry = ownValue(entries, resource.address);
    if (!entry) continue;
    if (resource.change.action === 'forget' && !refreshOnly) {
      // retainOnDelete: the object stays on the service; only secretform lets go of it.
      delete entries[resource.address];
      changes.push({ address: resource.address, change: 'retained' });
    } else if (resource.live.attributes === null && (!resource.desired || refreshOnly)) {
      delete entries[resource.address];
      changes.push({ address: resource.address, change: 'forgotten' });
    } else if (refreshOnly && resource.live.attributes) {
      const live = resource.live.attributes;
      const attributes: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(entry.attributes)) {
        const liveValue = ownValue(live, name);
        setOwn(attributes, name, liveValue !== undefined ? liveValue : value);
      }
      // Only drift makes a new state version: a refresh-only apply of an unchanged service writes nothing.
      if (canonicalJson(attributes) === canonicalJson(entry.attributes)) continue;
      setOwn(entries, resource.address, { ...entry, attributes });
      changes.push({ address: resource.address, change: 'refreshed' });
    } else if (!refreshOnly) {
      const refreshed = refreshedEntry(resource, entry);
      if (refreshed) {
        setOwn(entries, resource.address, refreshed);
        const guardrails = {
          ...((refreshed.protect === true) !== (entry.protect === true) ? { protect: refreshed.protect === true } : {}),
          ...((refreshed.retain_on_delete === true) !== (entry.retain_on_delete === true) ? { retainOnDelete: refreshed.retain_on_delete === true } : {}),
        };
        changes.push({ address: resource.address, change: 'refreshed', ...(Object.keys(guardrails).length > 0 ? { guardrails } : {}) });
      }
    }
  }
  if (changes.length > 0) writer.replaceResources(entries);
  return changes;
}

/**
 * The state of a resource in code that apply leaves alone on the service (no-op): the code's canonical
 * attributes, which equal the live ones field by field, with its current digest and dependencies. Undefined
 * when nothing but the time would change. Create-only fields keep the value they were created with.
 */
function refreshedEntry(resource: ResourcePlan, entry: ResourceState): ResourceState | undefined {
  const { desired, canonical } = resource;
  if (resource.change.action !== 'no-op' || !desired || !canonical || resource.live.attributes === null || entry.id !== desired.id) return undefined;
  const attributes: Record<string, unknown> = { ...canonical };
  for (const field of resource.resourceType.fields) {
    if (field.createOnly && entry.attributes[field.api] !== undefined) attributes[field.api] = entry.attributes[field.api];
  }
  const { protect: _protect, retain_on_delete: _retain, ...rest } = entry;
  const refreshed: ResourceState = {
    ...rest, attributes, digest: desired.digest, dependencies: [...desired.dependsOn], ...recordedGuardrails(desired.lifecycle),
  };
  const same = stableStringify({ ...refreshed, applied_at: '' }) === stableStringify({ ...entry, applied_at: '' });
  return same ? undefined : refreshed;
}

/** State after a successful create or update: the canonical desired attributes and fingerprints of the secrets. */
async function stateEntryAfterWrite(resource: ResourcePlan, values: Readonly<Record<string, string>>, key: FingerprintKey, created: boolean): Promise<ResourceState> {
  const desired = resource.desired!;
  const sameObject = !created && resource.stateEntry?.id === desired.id;
  const previous = sameObject ? resource.stateEntry.secrets : {};
  const previouslyRotated = sameObject ? resource.stateEntry.rotated_by_service ?? {} : {};
  const fingerprints: Record<string, string> = {};
  // A root credential the service rotated stays the service's until this apply writes the value from code.
  const rotated: Record<string, string> = {};
  for (const field of Object.keys(desired.secrets)) {
    const value = values[field];
    const written = value !== undefined && resource.writeSecrets.includes(field);
    if (written) fingerprints[field] = await key.fingerprint(value);
    else if (previous[field] !== undefined) fingerprints[field] = previous[field];
    if (!written && previouslyRotated[field] !== undefined) rotated[field] = previouslyRotated[field];
  }
  return {
    type: desired.type,
    id: desired.id,
    attributes: resource.canonical!,
    secrets: fingerprints,
    digest: desired.digest,
    ...(Object.keys(rotated).length > 0 ? { rotated_by_service: rotated } : {}),
    dependencies: [...desired.dependsOn],
    applied_at: new Date().toISOString(),
    ...recordedGuardrails(desired.lifecycle),
  };
}

function toOutcome(outcome: TaskOutcome, operation: { address: string; label: string }, aborted: boolean, operationOf: (key: string) => { address: string } | undefined): OperationOutcome {
  const base = { address: operation.address, action: operation.label };
  if (outcome.status === 'succeeded') return { ...base, status: 'succeeded' };
  if (outcome.status === 'failed') {
    const { error } = outcome;
    if (error instanceof ServiceClientError && error.runFailure !== undefined) {
      return { ...base, status: 'failed', message: `not done: ${error.headline ?? runFailureHeadline(error.runFailure)}`, stoppedByRunFailure: true };
    }
    return { ...base, status: 'failed', message: error.message };
  }
  const { reason } = outcome;
  if (reason.kind === 'stopped') {
    return { ...base, status: 'skipped', message: aborted ? 'not started: the run was interrupted' : 'not started: the run stopped (see the error)' };
  }
  return { ...base, status: 'skipped', message: `not started: ${operationOf(reason.key)?.address ?? reason.key} did not succeed` };
}

function result(plan: Plan, outcomes: OperationOutcome[], interrupted: boolean, stateOnly: StateOnlyChange[]): ApplyResult {
  return { plan, outcomes, interrupted, succeeded: !interrupted && outcomes.every((o) => o.status === 'succeeded'), confirmed: true, stateOnly };
}
