/**
 * The whole state of the secret-sync system, shared by the handlers in this folder. Apart from the records of
 * model.ts because it holds the association index, which is built over those records.
 */
import type { DueSchedule } from '../due-schedule';
import type { AssociationIndex } from './association-index';
import type { ExternalStores } from './external-stores';
import type { Destination, GithubApp, QueuedOperation, SyncConfig } from './model';

export interface SyncState {
  config: SyncConfig;
  /** Keyed by `destinationKey(type, name)`. */
  destinations: Map<string, Destination>;
  /** The associations of `destinations`, by the secret they sync. */
  associationsBySecret: AssociationIndex;
  githubApps: Map<string, GithubApp>;
  /** Keyed by `${destinationKey}|${associationKey}`, in arrival order. */
  queue: Map<string, QueuedOperation>;
  /** Keys of the destinations being purged, by when the purge completes. */
  purgesDue: DueSchedule<string>;
  external: ExternalStores;
}
