/**
 * `secretform action` and `secretform exec`: one operation (rotate-root, creds, check-out ...) on an object the
 * stack manages. The type's resource module declares which operations it offers and the call each makes; this
 * module checks the request against that, sends the one call, and records in state what a rotate-root changed.
 * Credentials an operation returns stay in the answer, in memory: never in state, an error message or a log.
 */
import type { ServiceClient, ServiceResult } from '../../client';
import { isPlainObject } from '../../resources/define';
import { parseDuration } from '../../resources/duration';
import { findResourceType } from '../../resources/registry';
import type { OperationName, OperationOption, OperationSpec, ResourceType } from '../../resources/types';
import type { EngineOptions } from '../setup/engine-options';
import { retryWhileSettling } from './eventual-consistency';
import { EngineError, fail, ok, type Result } from '../errors';
import { clientFor, lockRunState, prepareRun, readRunState, runService, type RunContext } from '../setup/run-context';
import { resolveSecrets, type ResolvedSecrets } from '../setup/secret-resolution';
import { addressStack } from '../setup/stack-name';
import type { LockedState } from '../state/locked-state';
import type { ResourceState } from '../state/state-file';
import { StateWriter } from '../state/state-writer';
import { ownValue } from '../../own-keys';

export interface OperationRequest {
  address: string;
  operation: OperationName;
  /** `--ttl` (check-out), as given. */
  ttl?: string;
  /** `--force` (check-in on the manage path). */
  force?: boolean;
  /** `--account` (check-in). */
  accounts?: readonly string[];
}

export interface OperationAnswer {
  address: string;
  type: string;
  construct: string;
  /** The object's identity on the service. */
  id: string;
  operation: OperationName;
  /** The answer holds credentials (print them to stdout only). */
  returnsCredentials: boolean;
  /**
   * What the service answered: the envelope's `data` (login: its `auth`), or the bare object. Holds the
   * credentials of the operations that return them.
   */
  fields: Record<string, unknown>;
  /** The lease of credentials, when the service gave one. */
  lease?: { id?: string; durationSeconds?: number; renewable?: boolean };
  /** Every credential value of the answer, for callers that must keep them out of what they print elsewhere. */
  credentialValues: string[];
  /** Facts to tell the user besides the answer (a capped ttl, nothing checked in): never a credential. */
  notes: string[];
  /** rotate-root: when state recorded the rotation. */
  rotatedAt?: string;
}

/** The operations a type offers, for messages: `rotate-root` or `creds, check-out`. */
export function offeredOperations(resourceType: ResourceType): string {
  const names = resourceType.operations.map((operation) => operation.name);
  return names.length === 0 ? 'none' : names.join(', ');
}

const OPTION_FLAGS: Record<OperationOption, string> = { ttl: '--ttl', force: '--force', account: '--account' };

/** Runs one operation on an object recorded in state. Nothing is sent unless the request fits the type. */
export async function runOperation(options: EngineOptions, request: OperationRequest): Promise<Result<OperationAnswer>> {
  const stack = addressStack(options, request.address);
  if (!stack.ok) return stack;
  const prepared = prepareRun({ ...options, stack: stack.value });
  if (!prepared.ok) return prepared;
  const context = prepared.value;
  // rotate-root records in state: it holds the lock from the first read to the last write.
  const lock = request.operation === 'rotate-root' ? await lockRunState(context, 'secretform action rotate-root') : undefined;
  if (lock && !lock.ok) return lock;
  let client: ServiceClient | undefined;
  try {
    const state = lock?.ok ? lock.value.state : await readRunState(context).then((read) => (read.ok ? read.value : read.error));
    if (state instanceof EngineError) return fail(state);
    // Sent to another service than the one the state was applied to, the operation would act on an object
    // the state does not describe: refused before any request, as plan and apply are.
    const service = runService(context, state);
    if (!service.ok) return service;
    const entry = ownValue(state.resources, request.address);
    if (!entry) return fail(notInState(context, request.address, Object.keys(state.resources)));
    const resourceType = findResourceType(entry.type);
    if (!resourceType) return fail(new EngineError('state_corrupt', `state records an unknown type "${entry.type}"`, { address: request.address }));
    const operation = resourceType.operations.find((candidate) => candidate.name === request.operation);
    if (!operation) {
      return fail(new EngineError('operation_unsupported',
        `${request.address} is a ${resourceType.construct} (${resourceType.type}), which does not offer ${request.operation}; it offers: ${offeredOperations(resourceType)}`));
    }
    const optionProblem = checkOptions(request, operation, resourceType);
    if (optionProblem) return fail(optionProblem);

    const secrets = await operationSecrets(context, request.address, operation);
    if (!secrets.ok) return secrets;
    const created = clientFor(context, secrets.value);
    if (!created.ok) return created;
    client = created.value;

    const call = operation.call(entry.attributes, {
      ttl: request.ttl,
      force: request.force,
      accounts: request.accounts,
      secrets: secrets.value.get(request.address),
    });
    const send = () => client!.request(call.method, call.path, {
      body: call.method === 'GET' || call.method === 'LIST' ? undefined : call.body ?? {},
      query: call.query,
      contentType: call.contentType,
      anonymous: operation.anonymous,
    });
    const result = operation.eventuallyConsistent ? await retryWhileSettling(send) : await send();
    if (!result.ok) return fail(operationFailure(request, entry, result.error));

    const answer = answerOf(request, resourceType, entry, operation, result);
    // Later messages of this client (none today, but a caller may reuse it) never show what was returned.
    client.addSecrets(answer.credentialValues);
    if (operation.rotatesRootCredential && lock?.ok) {
      const recorded = await recordRotation(lock.value, request.address, entry, resourceType, service.value);
      if (!recorded.ok) return recorded;
      answer.rotatedAt = recorded.value;
    }
    return ok(answer);
  } finally {
    await client?.close();
    if (lock?.ok) await lock.value.release();
  }
}

function notInState(context: RunContext, address: string, known: string[]): EngineError {
  const inCode = context.desired.resources.some((resource) => resource.address === address);
  const hint = inCode
    ? 'it is in the code but was never applied: run `secretform apply` first'
    : `addresses in state: ${known.sort().join(', ') || 'none'}`;
  return new EngineError('address_unknown', `${address} is not in the state of stack ${context.stack} (${hint}); nothing was sent`);
}

function checkOptions(request: OperationRequest, operation: OperationSpec, resourceType: ResourceType): EngineError | undefined {
  const given: OperationOption[] = [];
  if (request.ttl !== undefined) given.push('ttl');
  if (request.force) given.push('force');
  if (request.accounts && request.accounts.length > 0) given.push('account');
  const refused = given.filter((option) => !operation.options.includes(option));
  if (refused.length > 0) {
    const takes = operation.options.map((option) => OPTION_FLAGS[option]).join(', ') || 'no option';
    return new EngineError('operation_unsupported',
      `${refused.map((option) => OPTION_FLAGS[option]).join(', ')} does not apply to ${operation.name} of a ${resourceType.construct} (it takes ${takes}); nothing was sent`);
  }
  if (request.ttl !== undefined && parseDuration(request.ttl) === undefined) {
    return new EngineError('operation_unsupported', `--ttl must be a duration such as "1h", "90m", "45s" or whole seconds, got "${request.ttl}"; nothing was sent`);
  }
  return undefined;
}

/** The secrets from code the operation sends (login: the user's password); nothing for the others. */
async function operationSecrets(context: RunContext, address: string, operation: OperationSpec): Promise<Result<ResolvedSecrets>> {
  const needed = operation.secretInputs ?? [];
  if (needed.length === 0) return ok(new Map());
  const desired = context.desired.resources.find((resource) => resource.address === address);
  if (!desired || needed.some((field) => desired.secrets[field] === undefined)) {
    return fail(new EngineError('secret_unresolved', `${operation.name} needs ${needed.join(', ')} from the code, and the code has none at this address`, { address }));
  }
  return resolveSecrets([{ ...desired, secrets: Object.fromEntries(needed.map((field) => [field, desired.secrets[field]])) }], { cwd: context.cwd, env: context.env });
}

function operationFailure(request: OperationRequest, entry: ResourceState, error: Error & { status?: number; errors?: string[] }): EngineError {
  const said = (error.errors ?? []).join(' ');
  if (request.operation === 'check-out' && error.status === 400 && /no service accounts? available/i.test(said)) {
    return new EngineError('no_account_available', `no account available in ${setName(entry)}: every account of the set is checked out; check one in or wait for a check-out to expire`);
  }
  return new EngineError('service_error', `${request.operation} failed: ${error.message}`, { address: request.address });
}

function setName(entry: ResourceState): string {
  return typeof entry.attributes.name === 'string' ? entry.attributes.name : entry.id;
}

function answerOf(request: OperationRequest, resourceType: ResourceType, entry: ResourceState, operation: OperationSpec, result: Extract<ServiceResult, { ok: true }>): OperationAnswer {
  const raw = isPlainObject(result.raw) ? result.raw : {};
  // Login answers in `auth` (its `data` is null); the others in `data`, or bare.
  const auth = isPlainObject(raw.auth) ? raw.auth : undefined;
  const fields = auth ?? (isPlainObject(result.data) ? result.data : {});
  // A login's lease is the token's, inside `auth`; the envelope's own is that of the (empty) data.
  const lease = !auth && typeof raw.lease_duration === 'number' && (raw.lease_id || operation.returnsCredentials)
    ? { id: typeof raw.lease_id === 'string' && raw.lease_id !== '' ? raw.lease_id : undefined, durationSeconds: raw.lease_duration, renewable: raw.renewable === true }
    : undefined;
  const notes: string[] = [];
  if (request.operation === 'check-in') {
    const checkedIn = Array.isArray(fields.check_ins) ? fields.check_ins : [];
    if (checkedIn.length === 0) {
      const which = request.accounts && request.accounts.length > 0 ? request.accounts.join(', ') : 'the account';
      notes.push(`nothing was checked in: ${which} ${request.accounts && request.accounts.length > 1 ? 'are' : 'is'} already in`);
    }
  }
  if (request.operation === 'check-out' && request.ttl !== undefined && lease?.durationSeconds !== undefined) {
    const asked = parseDuration(request.ttl)!;
    if (lease.durationSeconds !== asked) {
      notes.push(`--ttl ${request.ttl} was capped: the set allows ${lease.durationSeconds} s (its ttl and max_ttl cap every check-out)`);
    }
  }
  return {
    address: request.address,
    type: resourceType.type,
    construct: resourceType.construct,
    id: entry.id,
    operation: request.operation,
    returnsCredentials: operation.returnsCredentials,
    fields,
    lease,
    credentialValues: operation.returnsCredentials ? credentialValues(fields) : [],
    notes,
  };
}

/** Every string of a credential answer that could be a secret: all of them, bar short flags and numbers. */
function credentialValues(fields: Record<string, unknown>): string[] {
  const values: string[] = [];
  const visit = (value: unknown): void => {
    if (typeof value === 'string' && value.length >= 4) values.push(value);
    else if (Array.isArray(value)) value.forEach(visit);
    else if (isPlainObject(value)) Object.values(value).forEach(visit);
  };
  visit(fields);
  return values;
}

/**
 * After rotate-root: the root credentials of the type are the service's now. State keeps the fingerprint of the
 * superseded value from code (so a change of it in code is noticed) and records when the rotation happened.
 */
async function recordRotation(locked: LockedState, address: string, entry: ResourceState, resourceType: ResourceType, service: string | undefined): Promise<Result<string>> {
  const at = new Date().toISOString();
  const current = ownValue(locked.state.resources, address) ?? entry;
  const rotated = { ...(current.rotated_by_service ?? {}) };
  for (const field of resourceType.fields) if (field.rootCredential) rotated[field.api] = at;
  const writer = new StateWriter(locked.backend, locked.state, 'secretform action rotate-root', service);
  const failed = await writer.set(address, { ...current, rotated_by_service: rotated }).then(() => writer.finish(), (error: EngineError) => error);
  if (failed) {
    return fail(new EngineError('state_io', `the service rotated the root credential, but state could not record it (${failed.message}); run \`secretform action rotate-root ${address}\` again once state is writable, or a later apply may send the superseded value`, { address }));
  }
  return ok(at);
}
