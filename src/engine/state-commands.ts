/** `secretform state list | show | rm`: read and edit the state file without talking to the service. */
import type { EngineOptions } from './engine-options';
import { EngineError, fail, ok, type Result } from './errors';
import { resolveStack, statePathOf } from './stack-name';
import { readState, writeState, type ResourceState } from './state/state-file';
import { lockState } from './state/state-lock';

export interface StateListEntry {
  address: string;
  type: string;
  id: string;
}

/** The managed resources recorded in state, in address order. */
export async function stateList(options: EngineOptions): Promise<Result<StateListEntry[]>> {
  const stack = resolveStack(options);
  if (!stack.ok) return stack;
  const state = await readState(statePathOf(options, stack.value), stack.value);
  if (!state.ok) return state;
  const entries = Object.entries(state.value.resources)
    .map(([address, entry]) => ({ address, type: entry.type, id: entry.id }))
    .sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  return ok(entries);
}

/** One resource's state entry (its secrets are fingerprints only: state never holds a secret value). */
export async function stateShow(options: EngineOptions, address: string): Promise<Result<ResourceState>> {
  const stack = resolveStack(options);
  if (!stack.ok) return stack;
  const path = statePathOf(options, stack.value);
  const state = await readState(path, stack.value);
  if (!state.ok) return state;
  const entry = state.value.resources[address];
  if (!entry) return fail(notInState(address, path));
  return ok(entry);
}

/** Forgets a resource (the object on the service is left alone). */
export async function stateRm(options: EngineOptions, address: string): Promise<Result<void>> {
  const stack = resolveStack(options);
  if (!stack.ok) return stack;
  const path = statePathOf(options, stack.value);
  const lock = await lockState(path);
  if (!lock.ok) return lock;
  try {
    const state = await readState(path, stack.value);
    if (!state.ok) return state;
    if (!state.value.resources[address]) return fail(notInState(address, path));
    const resources = { ...state.value.resources };
    delete resources[address];
    const written = await writeState(path, { ...state.value, resources });
    if (!written.ok) return written;
    return ok(undefined);
  } finally {
    await lock.value();
  }
}

function notInState(address: string, path: string): EngineError {
  return new EngineError('address_unknown', `${address} is not in state ${path}; \`secretform state list\` shows what is`);
}
