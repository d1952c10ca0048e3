/** `secretform state list | show | rm | mv`: read and edit the state file without talking to the service. */
import type { EngineOptions } from './engine-options';
import { EngineError, fail, ok, type Result } from './errors';
import { resolveStack, statePathOf } from './stack-name';
import { loadDesired } from './desired';
import { addressProblem, renameAddress } from './state-moves';
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
export async function stateMv(options: EngineOptions, from: string, to: string): Promise<Result<StateMoved>> {
  const stack = resolveStack(options);
  if (!stack.ok) return stack;
  const path = statePathOf(options, stack.value);
  for (const [name, address] of [['FROM', from], ['TO', to]] as const) {
    const problem = addressProblem(address, stack.value);
    if (problem) return fail(new EngineError('address_unknown', `state mv: ${name} ${JSON.stringify(address)} ${problem}`));
  }
  if (from === to) return fail(new EngineError('address_unknown', `state mv: FROM and TO are both ${from}; nothing to move`));
  const lock = await lockState(path);
  if (!lock.ok) return lock;
  try {
    const state = await readState(path, stack.value);
    if (!state.ok) return state;
    const entry = state.value.resources[from];
    if (!entry) return fail(notInState(from, path));
    if (state.value.resources[to]) {
      return fail(new EngineError('address_unknown', `state mv: ${to} is already in state (as ${state.value.resources[to].id}); remove it with \`secretform state rm ${to}\` first if it is stale`));
    }
    const warnings: string[] = [];
    const inCode = desiredResourceAt(options, stack.value, to);
    if (inCode === null) {
      warnings.push(`${to} is not in the synthesized code (${describeSource(options)}); unless the code gets it, the next apply deletes the object`);
    } else if (inCode !== undefined && inCode.type !== entry.type) {
      return fail(new EngineError('address_unknown', `state mv: ${to} is a ${inCode.type} in the code, but ${from} is a ${entry.type}; a resource keeps its type when it moves`));
    }
    const dependents = Object.entries(state.value.resources).filter(([, other]) => other.dependencies.includes(from)).map(([address]) => address === from ? to : address).sort();
    const written = await writeState(path, { ...state.value, resources: renameAddress(state.value.resources, from, to) });
    if (!written.ok) return written;
    return ok({ from, to, dependents, warnings });
  } finally {
    await lock.value();
  }
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

function notInState(address: string, path: string): EngineError {
  return new EngineError('address_unknown', `${address} is not in state ${path}; \`secretform state list\` shows what is`);
}
