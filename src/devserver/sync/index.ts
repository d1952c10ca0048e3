// The secret-sync system (`sys/sync/...`): routing, time-based purges, and the in-process view for tests.
import { unsupportedOperation, unsupportedPath } from '../respond';
import type { AreaHandler, DevRequest, DevResponse, ServerContext } from '../types';
import { AssociationIndex } from './association-index';
import { handleDestinationAssociations, handleSecretAssociations, listAssociations } from './associations';
import { handleConfig } from './config';
import {
  destinationData,
  destinationTypeOf,
  existingDestination,
  finishDuePurges,
  handleDestination,
  listAllDestinations,
  listDestinationsOfType,
} from './destinations';
import { DESTINATION_TYPES } from './destination-types';
import { DueSchedule } from '../due-schedule';
import { ExternalStores, type ExternalSecret } from './external-stores';
import { handleGithubApps } from './github-apps';
import { DEFAULT_QUEUE_CAPACITY, destinationKey, rfc3339 } from './model';
import type { SyncState } from './sync-state';
import { Syncer } from './syncer';

/** What `inspect()` (and so `DevServer.inspectSync()`) returns. */
export interface SyncInspection {
  config: { disabled: boolean; queueCapacity: number; pendingOperations: number };
  /** Each destination as read over HTTP (masked), keyed `<type>/<name>`. */
  destinations: Record<string, Record<string, unknown>>;
  /** Every association entry, keyed `<type>/<name>` then `<accessor>/<secret>[/<subkey>]`. */
  associations: Record<string, Record<string, { mount: string; secretName: string; subKey?: string; status: string; updatedAt: string; externalName?: string }>>;
  /** What the emulated external stores hold: `<type>/<name>` -> external secret name -> value and tags. */
  externalStores: Record<string, Record<string, ExternalSecret>>;
  /** With a cause set, syncs to that destination fail and report the cause as their status; null clears it. */
  setRemoteFailure(type: string, name: string, cause: string | null): void;
}

export function createSyncArea(ctx: ServerContext): AreaHandler {
  const state: SyncState = {
    config: { disabled: false, queueCapacity: DEFAULT_QUEUE_CAPACITY },
    destinations: new Map(),
    associationsBySecret: new AssociationIndex(),
    githubApps: new Map(),
    queue: new Map(),
    purgesDue: new DueSchedule(),
    external: new ExternalStores(),
  };
  const syncer = new Syncer(state, ctx);
  ctx.kvEvents.onWrite((mount, secretName) => syncer.onSecretChanged(mount, secretName));
  ctx.kvEvents.onDelete((mount, secretName) => syncer.onSecretChanged(mount, secretName));

  function route(req: DevRequest, subpath: string): DevResponse {
    const segments = subpath === '' ? [] : subpath.split('/');
    const [area, ...rest] = segments;
    switch (area) {
      case 'config':
        if (rest.length > 0) throw unsupportedPath();
        return handleConfig(req, state, syncer);
      case 'github-apps':
        return handleGithubApps(req, rest.join('/'), state);
      case 'associations':
        if (rest.length === 0) {
          if (req.method !== 'LIST') throw unsupportedOperation();
          return listAssociations(state);
        }
        return handleSecretAssociations(req, rest.join('/'), state);
      case 'destinations':
        return routeDestinations(req, rest);
      default:
        throw unsupportedPath();
    }
  }

  function routeDestinations(req: DevRequest, segments: string[]): DevResponse {
    if (segments.length === 0) {
      if (req.method !== 'LIST') throw unsupportedOperation();
      return listAllDestinations(state);
    }
    const type = destinationTypeOf(segments[0]);
    if (segments.length === 1) {
      if (req.method !== 'LIST') throw unsupportedOperation();
      return listDestinationsOfType(state, type);
    }
    const name = segments[1];
    if (segments.length === 2) return handleDestination(req, type, name, state, syncer, ctx);
    if (segments[2] !== 'associations' || segments.length > 4) throw unsupportedPath();
    const action = segments[3] ?? '';
    if (action !== '' && action !== 'set' && action !== 'remove') throw unsupportedPath();
    return handleDestinationAssociations(req, action, existingDestination(state, type, name), type, syncer, ctx);
  }

  return {
    handle: route,
    tick(now: number) {
      finishDuePurges(state, syncer, now);
    },
    inspect(): SyncInspection {
      const destinations: SyncInspection['destinations'] = {};
      const associations: SyncInspection['associations'] = {};
      for (const [key, destination] of state.destinations) {
        destinations[key] = destinationData(destination, DESTINATION_TYPES.get(destination.type)!);
        const entries: SyncInspection['associations'][string] = {};
        for (const association of destination.associations.values()) {
          for (const entry of association.entries.values()) {
            const base = `${association.accessor}/${association.secretName}`;
            entries[entry.subKey !== undefined ? `${base}/${entry.subKey}` : base] = {
              mount: association.mount,
              secretName: association.secretName,
              ...(entry.subKey !== undefined ? { subKey: entry.subKey } : {}),
              status: entry.status,
              updatedAt: rfc3339(entry.updatedAt),
              ...(entry.externalName !== undefined ? { externalName: entry.externalName } : {}),
            };
          }
        }
        associations[key] = entries;
      }
      return {
        config: { ...state.config, pendingOperations: state.queue.size },
        destinations,
        associations,
        externalStores: state.external.snapshot(),
        setRemoteFailure(type, name, cause) {
          state.external.setFailure(destinationKey(type, name), cause);
        },
      };
    },
  };
}
