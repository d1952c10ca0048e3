// `sys/sync/config`: the global switch (`disabled`) and the queue capacity.
import { badRequest, noContent, okEnvelope, unsupportedOperation } from '../respond';
import type { DevRequest, DevResponse } from '../types';
import { DEFAULT_QUEUE_CAPACITY } from './model';
import type { SyncState } from './sync-state';
import type { Syncer } from './syncer';

export function handleConfig(req: DevRequest, state: SyncState, syncer: Syncer): DevResponse {
  switch (req.method) {
    case 'GET':
      return configResponse(state);
    case 'PATCH': {
      // Validate everything before changing anything.
      const disabled = 'disabled' in req.body ? parseDisabled(req.body.disabled) : state.config.disabled;
      const queueCapacity =
        'queue_capacity' in req.body ? parseQueueCapacity(req.body.queue_capacity) : state.config.queueCapacity;
      applyConfig(state, syncer, disabled, queueCapacity);
      return configResponse(state);
    }
    case 'DELETE':
      applyConfig(state, syncer, false, DEFAULT_QUEUE_CAPACITY);
      return noContent();
    default:
      throw unsupportedOperation();
  }
}

function applyConfig(state: SyncState, syncer: Syncer, disabled: boolean, queueCapacity: number): void {
  const reEnabled = state.config.disabled && !disabled;
  state.config.disabled = disabled;
  state.config.queueCapacity = queueCapacity;
  if (reEnabled) syncer.processQueue();
}

function configResponse(state: SyncState): DevResponse {
  return okEnvelope(
    { disabled: state.config.disabled, queue_capacity: state.config.queueCapacity },
    { mountType: 'system' },
  );
}

/** Merge-patch: `null` resets a field to its default. Booleans may also arrive as "true"/"false". */
function parseDisabled(value: unknown): boolean {
  if (value === null) return false;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw badRequest(`sync config: "disabled" must be a boolean, got ${JSON.stringify(value)}`);
}

function parseQueueCapacity(value: unknown): number {
  if (value === null) return DEFAULT_QUEUE_CAPACITY;
  const number = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isSafeInteger(number) || number < 1) {
    throw badRequest(`sync config: "queue_capacity" must be a positive integer, got ${JSON.stringify(value)}`);
  }
  return number;
}
