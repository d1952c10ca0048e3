/**
 * `secretform state list | show | rm | mv | history | restore | pull | push` and `force-unlock`: read and edit the
 * state without talking to the service. State holds no secret values (only keyed or salted fingerprints).
 */
import { readFile } from 'node:fs/promises';
import type { EngineOptions } from '../setup/engine-options';
import { EngineError, fail, ok, type Result } from '../errors';
import { loadDesired } from '../setup/desired';
import { addressStack, resolveStack } from '../setup/stack-name';
import { addressProblem, renameAddress } from '../state/state-moves';
import type { LockHolder, StateBackend, StateVersionInfo } from '../state/backend';
import { openLockedState, readStateAt } from '../state/locked-state';
import { openStateBackend } from '../state/open-backend';
import { stateFileSchema, type ResourceState, type StateFile } from '../state/state-file';
import { resolveStateLocation, type StateLocation } from '../state/state-location';
import { ownValue } from '../../own-keys';

export interface StateListEntry {
  address: string;
  type: string;
  id: string;
}

interface StateTarget {
  stack: string;
  location: StateLocation;
}

function stateTarget(options: EngineOptions, stack?: string): Result<StateTarget> {
  const resolved = stack !== undefined ? ok(stack) : resolveStack(options);
  if (!resolved.ok) return resolved;
  const location = resolveStateLocation(options.statePath, options.env ?? process.env, options.cwd ?? process.cwd(), resolved.value);
  if (!location.ok) return location;
  return ok({ stack: resolved.value, location: location.value });
}

/**
 * The options of a state command on one address, on the stack that holds it (see addressStack): a stack given
 * that does not is refused before the state is read or locked.
 */
function onAddressStack(options: EngineOptions, address: string): Result<EngineOptions> {
  const stack = addressStack(options, address);
  return stack.ok ? ok({ ...options, stack: stack.value }) : stack;
}

/** The managed resources recorded in state, in address order. */
export async function stateList(options: EngineOptions): Promise<Result<StateListEntry[]>> {
  const state = await statePull(options);
  if (!state.ok) return state;
  const entries = Object.entries(state.value.resources)
    .map(([address, entry]) => ({ address, type: entry.type, id: entry.id }))
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return ok(entries);
}

/** One resource's state entry (its secrets are fingerprints only: state never holds a secret value). */
export async function stateShow(given: EngineOptions, address: string): Promise<Result<ResourceState>> {
  const options = onAddressStack(given, address);
  if (!options.ok) return options;
  const target = stateTarget(options.value);
  if (!target.ok) return target;
  const state = await readStateAt(target.value.location, target.value.stack);
  if (!state.ok) return state;
  const entry = ownValue(state.value.resources, address);
  if (!entry) return fail(notInState(address, target.value.location.display));
  return ok(entry);
}

/** The whole state as it stands (a local journal left by a crashed command applied), for `state pull`. */
export async function statePull(options: EngineOptions): Promise<Result<StateFile>> {
  const target = stateTarget(options);
  if (!target.ok) return target;
  return readStateAt(target.value.location, target.value.stack);
}

/**
 * Changes the resources of the state under its lock, as one new version: `edit` gets the current resources and
 * returns the new ones (or an error, and nothing is written). The state commands that edit state use this.
 */
export async function editState(
  options: EngineOptions,
  command: string,
  edit: (resources: Record<string, ResourceState>, where: string) => Result<Record<string, ResourceState>>,
): Promise<Result<StateFile>> {
  const target = stateTarget(options);
  if (!target.ok) return target;
  const locked = await openLockedState(target.value.location, target.value.stack, command, options.lockTimeoutMs ?? 0);
  if (!locked.ok) return locked;
  try {
    const { state, backend } = locked.value;
    const edited = edit({ ...state.resources }, backend.location);
    if (!edited.ok) return edited;
    return await backend.replace({ lineage: state.lineage, serial: state.serial }, { lineage: state.lineage, resources: edited.value }, command);
  } finally {
    await locked.value.release();
  }
}

/** Forgets a resource (the object on the service is left alone). */
export async function stateRm(given: EngineOptions, address: string): Promise<Result<void>> {
  const options = onAddressStack(given, address);
  if (!options.ok) return options;
  const edited = await editState(options.value, 'secretform state rm', (resources, where) => {
    if (!ownValue(resources, address)) return fail(notInState(address, where));
    delete resources[address];
    return ok(resources);
  });
  return edited.ok ? ok(undefined) : edited;
}

/** The versions the backend keeps, newest first. */
export async function stateHistory(options: EngineOptions): Promise<Result<StateVersionInfo[]>> {
  return withBackend(options, (backend) => backend.history());
}

/**
 * Makes a kept version the current state again (as a new version: the history keeps what it replaces). Also
 * works when the current state is damaged: that is when a kept version is needed most.
 */
export async function stateRestore(options: EngineOptions, serial: number): Promise<Result<StateFile>> {
  const target = stateTarget(options);
  if (!target.ok) return target;
  const backend = openStateBackend(target.value.location, target.value.stack);
  try {
    const lock = await backend.lock({ command: 'secretform state restore', timeoutMs: options.lockTimeoutMs ?? 0 });
    if (!lock.ok) return lock;
    const current = await backend.read();
    if (!current.ok && current.error.code !== 'state_corrupt') return current;
    const version = await backend.version(serial);
    if (!version.ok) return version;
    const base = current.ok ? { lineage: current.value.lineage, serial: current.value.serial } : undefined;
    const lineage = current.ok ? current.value.lineage : version.value.lineage;
    return await backend.replace(base, { lineage, resources: version.value.resources }, `secretform state restore ${serial}`);
  } finally {
    await backend.close();
  }
}

export interface StateMoved {
  from: string;
  to: string;
  /** Addresses whose recorded dependencies named FROM and now name TO. */
  dependents: string[];
  /** Non-fatal notes (e.g. TO is not in the synthesized code). */
  warnings: string[];
}

/**
 * Renames a resource in state (the object on the service is left alone), under the state lock: FROM must be in
 * state, TO a construct path of the stack that is not; every recorded dependency on FROM then names TO. When the
 * synth output is readable, TO must not be a construct of another type there.
 */
export async function stateMv(given: EngineOptions, from: string, to: string): Promise<Result<StateMoved>> {
  // FROM names the stack; TO must then be an address of that stack too (addressProblem below).
  const onStack = onAddressStack(given, from);
  if (!onStack.ok) return onStack;
  const options = onStack.value;
  const stack = resolveStack(options);
  if (!stack.ok) return stack;
  for (const [name, address] of [['FROM', from], ['TO', to]] as const) {
    const problem = addressProblem(address, stack.value);
    if (problem) return fail(new EngineError('address_unknown', `state mv: ${name} ${JSON.stringify(address)} ${problem}`));
  }
  if (from === to) return fail(new EngineError('address_unknown', `state mv: FROM and TO are both ${from}; nothing to move`));
  const warnings: string[] = [];
  let dependents: string[] = [];
  const edited = await editState(options, 'secretform state mv', (resources, where) => {
    const entry = ownValue(resources, from);
    if (!entry) return fail(notInState(from, where));
    const taken = ownValue(resources, to);
    if (taken) {
      return fail(new EngineError('address_unknown', `state mv: ${to} is already in state (as ${taken.id}); remove it with \`secretform state rm ${to}\` first if it is stale`));
    }
    const inCode = desiredResourceAt(options, stack.value, to);
    if (inCode === null) {
      warnings.push(`${to} is not in the synthesized code (${describeSource(options)}); unless the code gets it, the next apply deletes the object`);
    } else if (inCode !== undefined && inCode.type !== entry.type) {
      return fail(new EngineError('address_unknown', `state mv: ${to} is a ${inCode.type} in the code, but ${from} is a ${entry.type}; a resource keeps its type when it moves`));
    }
    dependents = Object.entries(resources).filter(([, other]) => other.dependencies.includes(from)).map(([address]) => address === from ? to : address).sort();
    return ok(renameAddress(resources, from, to));
  });
  if (!edited.ok) return edited;
  return ok({ from, to, dependents, warnings });
}

/** The resource at `address` in the synth output: undefined when the output cannot be read, null when absent. */
function desiredResourceAt(options: EngineOptions, stack: string, address: string): { type: string } | null | undefined {
  if (options.desired.kind !== 'synth-output') return undefined;
  try {
    return loadDesired(options.desired.outdir, stack).resources.find((resource) => resource.address === address) ?? null;
  } catch {
    return undefined;
  }
}

function describeSource(options: EngineOptions): string {
  return options.desired.kind === 'synth-output' ? options.desired.outdir : 'the in-memory stack';
}

/**
 * Writes a state file (from `state pull`, another backend or a backup) as the stack's state. Refused when the
 * destination holds a state of another lineage, or a newer serial of the same lineage, unless `force`.
 */
export async function statePush(options: EngineOptions, file: string, force: boolean): Promise<Result<StateFile>> {
  const pushed = await readPushedState(file);
  if (!pushed.ok) return pushed;
  if (options.stack !== undefined && options.stack !== '' && options.stack !== pushed.value.stack) {
    return fail(new EngineError(
      'state_stack_mismatch',
      `${file} holds the state of stack "${pushed.value.stack}", not "${options.stack}", so nothing was written. ` +
        `Push it as that stack's state (\`--stack ${pushed.value.stack}\`, or no --stack), or push the file of stack ${options.stack}`,
    ));
  }
  const target = stateTarget(options, pushed.value.stack);
  if (!target.ok) return target;
  const locked = await openLockedState(target.value.location, target.value.stack, 'secretform state push', options.lockTimeoutMs ?? 0);
  if (!locked.ok) return locked;
  try {
    const { state, backend } = locked.value;
    const written = state.serial > 0;
    if (written && !force && state.lineage !== pushed.value.lineage) {
      return fail(new EngineError(
        'state_conflict',
        `${file} has lineage ${pushed.value.lineage}, but the state in ${backend.location} has lineage ${state.lineage}: they are different states. ` +
          'Pass --force to replace it anyway (the replaced state stays in `secretform state history`)',
      ));
    }
    if (written && !force && pushed.value.serial < state.serial) {
      return fail(new EngineError(
        'state_conflict',
        `${file} is at serial ${pushed.value.serial}, older than the state in ${backend.location} (serial ${state.serial}). ` +
          'Pull the current state first, or pass --force to replace it anyway',
      ));
    }
    // The service the pushed state was applied to goes with it (moving a stack between backends keeps it).
    const service = pushed.value.service === undefined ? {} : { service: pushed.value.service };
    return await backend.replace({ lineage: state.lineage, serial: state.serial }, { lineage: pushed.value.lineage, resources: pushed.value.resources, ...service }, 'secretform state push');
  } finally {
    await locked.value.release();
  }
}

/** Who holds the state's lock, if anyone. */
export async function stateLockHolder(options: EngineOptions): Promise<Result<LockHolder | undefined>> {
  return withBackend(options, (backend) => backend.lockHolder());
}

/** Removes the state's lock whoever holds it; the holder that was removed, if there was one. */
export async function forceUnlock(options: EngineOptions): Promise<Result<LockHolder | undefined>> {
  return withBackend(options, (backend) => backend.forceUnlock());
}

async function withBackend<T>(options: EngineOptions, work: (backend: StateBackend) => Promise<Result<T>>): Promise<Result<T>> {
  const target = stateTarget(options);
  if (!target.ok) return target;
  const backend = openStateBackend(target.value.location, target.value.stack);
  try {
    return await work(backend);
  } finally {
    await backend.close();
  }
}

async function readPushedState(file: string): Promise<Result<StateFile>> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    return fail(new EngineError('state_io', `cannot read state file ${file}: ${(err as Error).message}`));
  }
  const parsed = stateFileSchema().safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(new EngineError('state_corrupt', `${file} is not a secretform state: ${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  return ok(parsed.data);
}

function notInState(address: string, where: string): EngineError {
  return new EngineError('address_unknown', `${address} is not in state ${where}; \`secretform state list\` shows what is`);
}
