/**
 * What every command that changes state does first: open the backend, take the lock (waiting up to the lock
 * timeout), and read the state under it. `release` is idempotent and also closes the backend.
 */
import { fail, ok, type Result } from '../errors';
import type { StateBackend } from './backend';
import { openStateBackend } from './open-backend';
import type { StateFile } from './state-file';
import type { StateLocation } from './state-location';

export interface LockedState {
  backend: StateBackend;
  state: StateFile;
  release(): Promise<void>;
}

export async function openLockedState(location: StateLocation, stack: string, command: string, lockTimeoutMs = 0): Promise<Result<LockedState>> {
  const backend = openStateBackend(location, stack);
  const lock = await backend.lock({ command, timeoutMs: lockTimeoutMs });
  if (!lock.ok) {
    await backend.close();
    return lock;
  }
  const release = async (): Promise<void> => {
    await lock.value.release();
    await backend.close();
  };
  const state = await backend.read();
  if (!state.ok) {
    await release();
    return fail(state.error);
  }
  return ok({ backend, state: state.value, release });
}

/** Reads a state without locking it (plan, state list/show/pull). */
export async function readStateAt(location: StateLocation, stack: string): Promise<Result<StateFile>> {
  const backend = openStateBackend(location, stack);
  try {
    return await backend.read();
  } finally {
    await backend.close();
  }
}
