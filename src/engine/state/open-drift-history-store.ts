/** The drift history store of a stack's state location: a file beside a local state, a table beside PostgreSQL's. */
import { FileDriftHistoryStore } from './drift-history-file';
import { PostgresDriftHistoryStore } from './drift-history-postgres';
import type { DriftHistoryStore } from './drift-history-store';
import type { StateLocation } from './state-location';

export function openDriftHistoryStore(location: StateLocation, stack: string): DriftHistoryStore {
  return location.kind === 'file' ? new FileDriftHistoryStore(location.path) : new PostgresDriftHistoryStore(location, stack);
}
