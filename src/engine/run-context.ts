/**
 * Everything a run needs before it talks to the service, checked in this order so that a mistake is reported
 * before any request: stack name, desired state, state file, selection, secrets, client settings.
 */
import { ServiceClient } from '../client';
import type { DesiredStack } from './desired';
import { loadDesiredSource } from './desired-source';
import type { EngineOptions } from './engine-options';
import { EngineError, fail, ok, type Result } from './errors';
import { computePlan, type PlanComputation } from './plan/compute-plan';
import { resolveSecrets, type ResolvedSecrets } from './secret-resolution';
import { resolveStack, statePathOf } from './stack-name';
import { fingerprintKeyFromEnv, type FingerprintKey } from './state/fingerprint';
import { readState, type StateFile } from './state/state-file';
import { selectAddresses, type RunMode } from './targets';

export const DEFAULT_PARALLELISM = 10;

export interface RunContext {
  options: EngineOptions;
  stack: string;
  statePath: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  parallelism: number;
  desired: DesiredStack;
  fingerprintKey: FingerprintKey;
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
  return ok({
    options,
    stack: stack.value,
    statePath: statePathOf(options, stack.value),
    cwd: options.cwd ?? process.cwd(),
    env,
    parallelism,
    desired: desired.value,
    fingerprintKey: fingerprintKeyFromEnv(env),
  });
}

export function readRunState(context: RunContext): Promise<Result<StateFile>> {
  return readState(context.statePath, context.stack);
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

export interface PlannedRun {
  computation: PlanComputation;
  secrets: ResolvedSecrets;
}

/**
 * Selects, resolves secrets, creates the client, refreshes and diffs. Secrets are resolved before the first
 * request (destroy needs none). On success the client is the caller's to close.
 */
export async function planRun(context: RunContext, state: StateFile, mode: RunMode): Promise<Result<PlannedRun & { client: ServiceClient }>> {
  const selection = selectAddresses(context.desired, state, context.options.targets, mode);
  if (!selection.ok) return selection;
  const secrets = mode === 'destroy'
    ? ok(new Map() as ResolvedSecrets)
    : await resolveSecrets(context.desired.resources, { cwd: context.cwd, env: context.env });
  if (!secrets.ok) return secrets;
  const client = clientFor(context, secrets.value);
  if (!client.ok) return client;
  const computation = await computePlan({
    client: client.value,
    stack: context.stack,
    desired: context.desired,
    state,
    selected: selection.value.addresses,
    secrets: secrets.value,
    fingerprintKey: context.fingerprintKey,
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
  return ok({ computation: computation.value, secrets: secrets.value, client: client.value });
}
