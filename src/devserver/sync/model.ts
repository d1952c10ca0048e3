// The records of the secret-sync system (destinations, associations, apps, queued operations); the state that
// holds them is sync-state.ts.
import type { Granularity } from './destination-types';

export const DEFAULT_QUEUE_CAPACITY = 1_000_000;

export interface SyncConfig {
  disabled: boolean;
  queueCapacity: number;
}

export interface Destination {
  type: string;
  name: string;
  /** Connection field values as stored (defaults filled in; sensitive fields only when supplied). */
  connection: Record<string, string | string[]>;
  granularity: Granularity;
  /** undefined: the type's default template (which follows the granularity) applies. */
  secretNameTemplate?: string;
  customTags: Record<string, string>;
  /** Epoch ms when a purge delete started; the destination is removed 300 ms later (finishDuePurges). */
  purgeInitiatedAt?: number;
  /** Keyed by `associationKey(accessor, secretName)`. */
  associations: Map<string, Association>;
}

/** The link between one KV v2 secret and one destination. */
export interface Association {
  mount: string;
  accessor: string;
  secretName: string;
  /**
   * What is synced as distinct resources: one entry keyed '' for granularity secret-path, one per sub-key
   * for secret-key.
   */
  entries: Map<string, AssociationEntry>;
}

export interface AssociationEntry {
  /** Set for secret-key granularity. */
  subKey?: string;
  /** `SYNCED`, `UNSYNCED`, `PENDING`, or a failure cause text such as `SECRET_NOT_FOUND: ...`. */
  status: string;
  /** Epoch ms of the last status change. */
  updatedAt: number;
  /** The name under which the value currently exists in the external store, if it does. */
  externalName?: string;
}

export interface GithubApp {
  name: string;
  appId: number;
  privateKey: string;
  fingerprint: string;
}

/** A sync operation waiting while syncing is disabled. One per association: the latest intent wins. */
export interface QueuedOperation {
  kind: 'sync' | 'unsync';
  destinationKey: string;
  associationKey: string;
}

export const destinationKey = (type: string, name: string): string => `${type}/${name}`;
export const associationKey = (accessor: string, secretName: string): string => `${accessor}/${secretName}`;

/** RFC 3339 with fractional seconds, as the service writes `updated_at` and `purge_initiated_at`. */
export const rfc3339 = (epochMs: number): string => new Date(epochMs).toISOString();
