/**
 * Everything a run needs before it talks to the service, checked in this order so that a mistake is reported
 * before any request: stack name, desired state, state file, selection, secrets, client settings.
 */
import * as path from 'node:path';
import { ServiceClient } from '../../client';
import type { DesiredStack } from './desired';
import { readRecordedDigest } from './desired-digest-record';
import { loadDesiredSource } from './desired-source';
import type { EngineOptions } from './engine-options';
import { EngineError, fail, ok, type Result } from '../errors';
import { resolveSecrets, type ResolvedSecrets } from './secret-resolution';
import { resolveStack } from './stack-name';
import { FingerprintKey, fingerprintKeyFromEnv } from '../state/fingerprint';
import { backendKeySourceFirst, resolveFingerprintKey, ServiceKvKeySource, type KeyUse } from '../state/fingerprint-key-source';
import type { StateBackend } from '../state/backend';
import { openStateBackend } from '../state/open-backend';
import { openLockedState, readStateAt, type LockedState } from '../state/locked-state';
import type { StateFile } from '../state/state-file';
import { resolveStateLocation, type StateLocation } from '../state/state-location';
import { checkStackConnection, type CheckedConnection } from './stack-connection';
import type { RunMode } from './targets';
import { DEFAULT_PARALLELISM, runLimitsOf } from './run-limits';
import { serviceIdentity, serviceMismatch } from './service-identity';

export { DEFAULT_PARALLELISM };
/** The methods of a read-only run (EngineOptions.readOnly): reads and listings. */
export const READ_ONLY_METHODS: readonly string[] = Object.freeze(['GET', 'LIST']);

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
  const basics = runBasics(options);
  if (!basics.ok) return basics;
  const { stack, parallelism, env, cwd } = basics.value;
  const desired = loadDesiredSource(options, stack);
  if (!desired.ok) return desired;
  const location = resolveStateLocation(options.statePath, env, cwd, stack);
  if (!location.ok) return location;
  return ok({
    options,
    stack,
    statePath: location.value.display,
    stateLocation: location.value,
    cwd,
    env,
    parallelism,
    desired: desired.value,
  });
}

/** What a run checks of its options before its desired state: parallelism, deadline, the stack's name. */
function runBasics(options: EngineOptions): Result<{ stack: string; parallelism: number; env: NodeJS.ProcessEnv; cwd: string }> {
  const parallelism = options.parallelism ?? DEFAULT_PARALLELISM;
  if (!Number.isInteger(parallelism) || parallelism < 1) {
    return fail(new EngineError('desired_invalid', `parallelism must be a whole number of at least 1, got ${String(parallelism)}`));
  }
  if (options.timeoutMs !== undefined && (!Number.isFinite(options.timeoutMs) || options.timeoutMs <= 0)) {
    return fail(new EngineError('desired_invalid', `timeoutMs (--timeout) must be a positive number of milliseconds, got ${String(options.timeoutMs)}`));
  }
  const stack = resolveStack(options);
  if (!stack.ok) return stack;
  return ok({ stack: stack.value, parallelism, env: options.env ?? process.env, cwd: options.cwd ?? process.cwd() });
}

/**
 * Whether a check requires the token's variable to be set: `always` (what the CLI checks before a command that
 * talks to the service), or `with-connection` (a run over several stacks: a ServiceConnection's token variable
 * must be set, while without one an unset SERVICE_TOKEN is the CLI's to refuse; see `clientFor`).
 */
export type TokenRequirement = 'always' | 'with-connection';

function tokenRequired(token: TokenRequirement, hasConnection: boolean): boolean {
  return token === 'always' || hasConnection;
}

/** A stack's connection settings, checked, and its number of objects: what a run over several checks first. */
export interface StackAhead {
  checked: CheckedConnection;
  objects: number;
}

/**
 * What a run over several stacks checks of one before any request, as `prepareRun` and `checkRunConnection` would
 * (the stack, its state location, its connection settings), without loading its desired state when the synth
 * output's digest record vouches for the stack's file (desired-digest-record.ts: the connection and the number of
 * objects as synth wrote them): a plan over a fleet then loads each stack when its turn comes, instead of every
 * stack before its first request (1-4 s of a plan of 100 x 1,000 objects during which no server works,
 * docs/performance.md, "Session 17"). Without such a record (another version's, a file written since, an input
 * that is not a synth output) the stack is loaded and checked in full, as before.
 */
export function checkStackAhead(options: EngineOptions, token: TokenRequirement): Result<StackAhead> {
  const basics = runBasics(options);
  if (!basics.ok) return basics;
  const { stack, env, cwd } = basics.value;
  const recorded = options.desired.kind === 'synth-output' ? readRecordedDigest(path.join(options.desired.outdir, 'stacks', stack)) : undefined;
  if (recorded?.objects === undefined) {
    const context = prepareRun(options);
    if (!context.ok) return context;
    const checked = checkRunConnection(context.value, tokenRequired(token, context.value.desired.connection !== undefined));
    return checked.ok ? ok({ checked: checked.value, objects: context.value.desired.resources.length }) : checked;
  }
  const location = resolveStateLocation(options.statePath, env, cwd, stack);
  if (!location.ok) return location;
  const checked = checkStackConnection({ stack, connection: recorded.connection, env, cwd }, tokenRequired(token, recorded.connection !== undefined));
  return checked.ok ? ok({ checked: checked.value, objects: recorded.objects }) : checked;
}

/** The run's state, read without locking it (plan). */
export function readRunState(context: RunContext): Promise<Result<StateFile>> {
  return readStateAt(context.stateLocation, context.stack);
}

/** The run's state, locked (waiting up to the lock timeout) and read under the lock. */
export function lockRunState(context: RunContext, command: string): Promise<Result<LockedState>> {
  return openLockedState(context.stateLocation, context.stack, command, context.options.lockTimeoutMs ?? 0);
}

/**
 * The run's connection settings, checked without any request (see stack-connection.ts): the stack's
 * ServiceConnection, else the SERVICE_* environment. A run over several stacks checks every stack's first.
 */
export function checkRunConnection(context: RunContext, requireToken = true): Result<CheckedConnection> {
  return checkStackConnection({ stack: context.stack, connection: context.desired.connection, env: context.env, cwd: context.cwd }, requireToken);
}

/**
 * The connection settings of the stack `options` name, checked without any request and with the token required:
 * what the CLI checks before a command that talks to the service does any work (its desired state loaded only
 * when no digest record vouches for its file: `checkStackAhead`).
 */
export function checkServiceConnection(options: EngineOptions): Result<CheckedConnection> {
  const ahead = checkStackAhead(options, 'always');
  return ahead.ok ? ok(ahead.value.checked) : ahead;
}

/**
 * A client for the run's stack: its ServiceConnection's address, token variable and TLS files, else the
 * environment (SERVICE_ADDR, SERVICE_TOKEN, TLS variables). A connection's unset token variable fails here,
 * before any request; without a connection an unset SERVICE_TOKEN is the CLI's to refuse (the engine API lets
 * the server answer, as it always did).
 */
export function clientFor(context: RunContext, secrets?: ResolvedSecrets): Result<ServiceClient> {
  const checked = checkRunConnection(context, context.desired.connection !== undefined);
  if (!checked.ok) return checked;
  // A run stops at the first failure that concerns all of it; server text never shows a secret of the run.
  // Its requests take slots of their server's budget, shared with the run's other stacks there, until its deadline.
  const limits = runLimitsOf(context.options);
  return ok(new ServiceClient(checked.value.config, {
    maxConnections: context.parallelism,
    budget: limits.budgets.for(checked.value.config.address),
    deadline: limits.deadline,
    pools: limits.pools,
    stopAfterRunFailure: true,
    secrets: [...(secrets?.values() ?? [])].flatMap((values) => Object.values(values)),
    ...(context.options.readOnly === true ? { allowedMethods: READ_ONLY_METHODS } : {}),
  }));
}

/**
 * The service this run talks to (`serviceIdentity` of its connection's address; undefined when the connection
 * cannot tell, which the client then reports), or the refusal of a run whose service is not the one `state`
 * records (service-identity.ts), before any request. What plan and apply check, for import and action too.
 */
export function runService(context: RunContext, state: StateFile): Result<string | undefined> {
  const connection = checkRunConnection(context, false);
  if (!connection.ok) return ok(undefined);
  const service = serviceIdentity(connection.value.config.address);
  const mismatch = serviceMismatch({
    stack: context.stack, state, stateLocation: context.statePath, service, source: connection.value.source, migrateState: context.options.migrateState === true,
  });
  return mismatch ? fail(mismatch) : ok(service);
}

/**
 * The run's fingerprint key (see state/fingerprint-key-source.ts). Plans only read it: the stack's key is created
 * by the first apply that records a fingerprint, after approval.
 */
export async function runFingerprintKey(context: RunContext, client: ServiceClient, use: KeyUse, openBackend?: StateBackend): Promise<FingerprintKey> {
  const { fingerprintKeySource } = context.options;
  if (fingerprintKeySource) return resolveFingerprintKey(context.env, () => fingerprintKeySource, use);
  const service = () => ServiceKvKeySource.forStack(client, context.stack, context.env);
  if (fingerprintKeyFromEnv(context.env)) return resolveFingerprintKey(context.env, service, use);
  // The state backend's own place for the key, when it has one (PostgreSQL): no KV mount needed on the service.
  // A backend the caller opened (a plan's, which reads its state over it too) stays open; one opened here closes.
  const backend = openBackend ?? openStateBackend(context.stateLocation, context.stack);
  try {
    const own = backend.fingerprintKeySource?.();
    return await resolveFingerprintKey(context.env, () => (own ? backendKeySourceFirst(own, service()) : service()), use);
  } finally {
    if (openBackend === undefined) await backend.close();
  }
}

/**
 * The fingerprint key of a saved plan: the key the run itself uses (SECRETFORM_STATE_KEY, the state backend's, or
 * the stack's key on the stack's own service). `apply PLANFILE` checks with it before its run starts, reading
 * only (no write, no state read); `plan --out` signs with it and creates it when the stack has none yet
 * (`write`), so that every stack's plan carries a MAC, one without secrets included.
 */
export async function savedPlanKey(context: RunContext, use: KeyUse = 'read'): Promise<Result<FingerprintKey>> {
  const client = clientFor(context);
  if (!client.ok) return client;
  try {
    return ok(await runFingerprintKey(context, client.value, use));
  } finally {
    await client.value.close();
  }
}

/**
 * The secret values a run needs. Destroy writes no secret, and a refresh-only run compares none: neither reads a
 * secret value, so a drift check needs only the service address and token.
 */
export function resolveRunSecrets(context: RunContext, mode: RunMode): Promise<Result<ResolvedSecrets>> {
  if (mode === 'destroy' || context.options.refreshOnly === true) return Promise.resolve(ok(new Map() as ResolvedSecrets));
  return resolveSecrets(context.desired.resources, { cwd: context.cwd, env: context.env });
}
