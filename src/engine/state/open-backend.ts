/** The backend of a state location: the local file, or PostgreSQL for a postgres:// URL. */
import type { StateBackend } from './backend';
import { LocalStateBackend } from './local-backend';
import { PostgresStateBackend } from './postgres-backend';
import type { StateLocation } from './state-location';

export function openStateBackend(location: StateLocation, stack: string): StateBackend {
  return location.kind === 'file' ? new LocalStateBackend(location.path, stack) : new PostgresStateBackend(location, stack);
}
