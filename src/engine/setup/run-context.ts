/**
 * Everything a run needs before it talks to the service, checked in this order so that a mistake is reported
 * before any request: stack name, desired state, state file, selection, secrets, client settings.
 */
import { ServiceClient } from '../../client';
import type { DesiredStack } from './desired';
import { loadDesiredSource } from './desired-source';
import type { EngineOptions } from './engine-options';
import { EngineError, fail, ok, type Result } from '../errors';
import { computePlan, type PlanComputation } from '../plan/compute-plan';
import { resolveSecrets, type ResolvedSecrets } from './secret-resolution';
import { resolveStack } from './stack-name';
import { FingerprintKey } from '../state/fingerprint';
import { resolveFingerprintKey, ServiceKvKeySource, slowHashingHint, type KeyUse } from '../state/fingerprint-key-source';
import { openLockedState, readStateAt, type LockedState } from '../state/locked-state';
import type { StateFile } from '../state/state-file';
import { resolveStateLocation, type StateLocation } from '../state/state-location';
import { selectAddresses, type RunMode } from './targets';
import { planWithPolicies } from '../policy/policy-stage';

export const DEFAULT_PARALLELISM = 10;

export interface RunContext {
  options: EngineOptions;
  stack: string;
  /** Where the state is, printable (a URL's password masked). */
  statePath: string;
  stateLocation: StateLocation;
  cwd: string;
  env: NodeJS.ProcessEnv;
  parallelism: number;
  desired: DesiredStack;
}

/** Stack, state path and desired state (validated); no request, no state read. */
export function prepareRun(options: EngineOptions): Result<RunContext> {
  const parallelism = options.parallelism ?? DEFAULT_PARALLELISM;
  if (!Number.isInteger(parallelism) || parallelism < 1) {
    return fail(new EngineError('desired_invalid', `parallelism must be a whole number of at least 1, got ${String(parallelism)}`));
  }
  const stack = resolveStack(options);
  if (!stack.ok) return stack;
  const desired = loadDesiredSource(options, stack.value);
  if (!desired.ok) return desired;
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const location = resolveStateLocation(options.statePath, env, cwd, stack.value);
  if (!location.ok) return location;
  return ok({
    options,
    stack: stack.value,
    statePath: location.value.display,
    stateLocation: location.value,
    cwd,
    env,
    parallelism,
    desired: desired.value,
  });
}

/** The run's state, read without locking it (plan). */
export function readRunState(context: RunContext): Promise<Result<StateFile>> {
  return readStateAt(context.stateLocation, context.stack);
}

/** The run's state, locked (waiting up to the lock timeout) and read under the lock. */
export function lockRunState(context: RunContext, command: string): Promise<Result<LockedState>> {
  return openLockedState(context.stateLocation, context.stack, command, context.options.lockTimeoutMs ?? 0);
}

/** A client from the run's environment (SERVICE_ADDR, SERVICE_TOKEN, TLS variables). */
export function clientFor(context: RunContext, secrets?: ResolvedSecrets): Result<ServiceClient> {
  // A run stops at the first failure that concerns all of it; server text never shows a secret of the run.
  const created = ServiceClient.fromEnv(context.env, {
    maxConnections: context.parallelism,
    stopAfterRunFailure: true,
    secrets: [...(secrets?.values() ?? [])].flatMap((values) => Object.values(values)),
  });
  if (!created.ok) return fail(new EngineError('service_config', `${created.error.variable}: ${created.error.message}`));
  return ok(created.client);
}

/**
 * The run's fingerprint key (see state/fingerprint-key-source.ts). Plans only read it: the stack's key is created
 * by the first apply that records a fingerprint, after approval.
 */
export function runFingerprintKey(context: RunContext, client: ServiceClient, use: KeyUse): Promise<FingerprintKey> {
  const source = () => context.options.fingerprintKeySource ?? ServiceKvKeySource.forStack(client, context.stack, context.env);
  return resolveFingerprintKey(context.env, source, use);
}

export interface PlannedRun {
  computation: PlanComputation;
  secrets: ResolvedSecrets;
  /** The run's fingerprint key (for the fingerprints apply records). */
  fingerprintKey: FingerprintKey;
}

/**
 * Selects, resolves secrets, creates the client, refreshes and diffs. Secrets are resolved before the first
 * request (destroy and refresh-only need none). On success the client is the caller's to close.
 */
export async function planRun(context: RunContext, state: StateFile, mode: RunMode): Promise<Result<PlannedRun & { client: ServiceClient }>> {
  const selection = selectAddresses(context.desired, state, context.options.targets, mode);
  if (!selection.ok) return selection;
  // Destroy writes no secret, and a refresh-only run compares none: neither reads a secret value, so a drift
  // check needs only the service address and token.
  const secrets = mode === 'destroy' || context.options.refreshOnly === true
    ? ok(new Map() as ResolvedSecrets)
    : await resolveSecrets(context.desired.resources, { cwd: context.cwd, env: context.env });
  if (!secrets.ok) return secrets;
  const client = clientFor(context, secrets.value);
  if (!client.ok) return client;
  // The key is read from the service while the refresh runs (the diff of a secret waits for it).
  const fingerprintKeyRead = mode === 'destroy'
    ? Promise.resolve(FingerprintKey.none('destroy writes no secret'))
    : runFingerprintKey(context, client.value, 'read');
  const computation = await computePlan({
    client: client.value,
    stack: context.stack,
    desired: context.desired,
    state,
    selected: selection.value.addresses,
    secrets: secrets.value,
    fingerprintKey: fingerprintKeyRead,
    mode,
    refreshOnly: context.options.refreshOnly === true,
    parallelism: context.parallelism,
    warnings: selection.value.warnings,
    onProgress: context.options.onProgress,
  });
  if (!computation.ok) {
    await client.value.close();
    return computation;
  }
  const fingerprintKey = await fingerprintKeyRead;
  // The plan is a value: a note about it makes a new one.
  const hint = slowHashingHint(fingerprintKey);
  const { plan } = computation.value;
  const noted = hint ? Object.freeze({ ...plan, warnings: Object.freeze([...plan.warnings, hint]) }) : plan;
  const checked = await planWithPolicies(noted, mode === 'destroy' ? [] : context.desired.resources, context.options.policies);
  if (!checked.ok) {
    await client.value.close();
    return checked;
  }
  return ok({ computation: { ...computation.value, plan: checked.value }, secrets: secrets.value, client: client.value, fingerprintKey });
}
