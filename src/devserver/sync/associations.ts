// Associations: `destinations/:type/:name/associations[/set|/remove]` and `sys/sync/associations[...]`.
import { badRequest, notFound, okEnvelope, unsupportedOperation, unsupportedPath } from '../respond';
import type { DevRequest, DevResponse, ServerContext } from '../types';
import type { DestinationType } from './destination-types';
import { rfc3339, type Association, type Destination } from './model';
import type { SyncState } from './sync-state';
import { PENDING, SYNCED, type Syncer } from './syncer';

/** `GET .../associations`, `POST .../associations/set`, `POST .../associations/remove`. */
export function handleDestinationAssociations(
  req: DevRequest,
  action: string,
  destination: Destination,
  type: DestinationType,
  syncer: Syncer,
  ctx: ServerContext,
): DevResponse {
  const where = `destination "${type.id}/${destination.name}"`;
  if (action === '') {
    if (req.method !== 'GET') throw unsupportedOperation();
    return destinationAssociationsResponse(destination, destination.associations.values());
  }
  if (req.method !== 'POST') throw unsupportedOperation();
  const mount = requiredString(req.body, 'mount', where);
  const secretName = requiredString(req.body, 'secret_name', where);

  if (action === 'set') {
    if (destination.purgeInitiatedAt !== undefined) {
      throw badRequest(`${where} is being purged; no secrets can be associated with it`);
    }
    const mountEntry = ctx.mounts.secretsMount(mount);
    if (!mountEntry || mountEntry.type !== 'kv' || mountEntry.options.version !== '2') {
      throw badRequest(`${where}: mount "${mount}" is not a KV version 2 secrets engine; only KV v2 secrets can be synced`);
    }
    if (ctx.kv.read(mount, secretName) === undefined) {
      throw badRequest(`${where}: secret "${secretName}" does not exist in mount "${mount}"`);
    }
    syncer.requestSet(destination, mount, mountEntry.accessor, secretName);
    return destinationAssociationsResponse(destination, destination.associations.values());
  }

  // remove: success also when the association is already gone.
  const association = [...destination.associations.values()].find(
    (a) => a.mount === mount && a.secretName === secretName,
  );
  if (!association) return destinationAssociationsResponse(destination, destination.associations.values());
  syncer.requestRemove(destination, association);
  const shown = [...destination.associations.values()];
  if (!shown.includes(association)) shown.push(association); // show it one last time, as UNSYNCED
  return destinationAssociationsResponse(destination, shown);
}

/** `LIST sys/sync/associations`: every associated secret, once per `<mount>/<secret>`. */
export function listAssociations(state: SyncState): DevResponse {
  const keyInfo = new Map<string, { mount: string; secret_path: string }[]>();
  let totalAssociations = 0;
  for (const destination of state.destinations.values()) {
    for (const association of destination.associations.values()) {
      totalAssociations += 1;
      const key = `${association.mount}/${association.secretName}`;
      if (!keyInfo.has(key)) keyInfo.set(key, [{ mount: `${association.mount}/`, secret_path: association.secretName }]);
    }
  }
  if (keyInfo.size === 0) throw notFound();
  const keys = [...keyInfo.keys()].sort();
  return okEnvelope({
    keys,
    key_info: Object.fromEntries(keys.map((k) => [k, keyInfo.get(k)])),
    total_associations: totalAssociations,
    total_secrets: keys.length,
  });
}

/** `GET sys/sync/associations/:mount/:name` and `GET sys/sync/associations/destinations?mount=&secret_name=`. */
export function handleSecretAssociations(req: DevRequest, subpath: string, state: SyncState): DevResponse {
  if (req.method !== 'GET') throw unsupportedOperation();
  let mount: string;
  let secretName: string;
  if (subpath === 'destinations') {
    mount = trimSlashes(req.query.get('mount') ?? '');
    secretName = trimSlashes(req.query.get('secret_name') ?? '');
    if (mount === '' || secretName === '') {
      throw badRequest('associations/destinations: query parameters "mount" and "secret_name" are required');
    }
  } else {
    // The path form cannot tell where a mount with slashes ends: the first segment is the mount.
    const slash = subpath.indexOf('/');
    if (slash < 0) throw unsupportedPath();
    mount = subpath.slice(0, slash);
    secretName = subpath.slice(slash + 1);
  }
  const associatedDestinations: Record<string, unknown> = {};
  for (const { destination, association } of state.associationsBySecret.of(mount, secretName)) {
    associatedDestinations[`${destination.type}/${destination.name}`] = {
      type: destination.type,
      name: destination.name,
      sync_status: overallStatus(association),
      updated_at: rfc3339(latestUpdate(association)),
    };
  }
  return okEnvelope({ associated_destinations: associatedDestinations });
}

function destinationAssociationsResponse(destination: Destination, associations: Iterable<Association>): DevResponse {
  const associatedSecrets: Record<string, unknown> = {};
  for (const association of associations) {
    for (const entry of association.entries.values()) {
      const base = `${association.accessor}/${association.secretName}`;
      const key = entry.subKey !== undefined ? `${base}/${entry.subKey}` : base;
      const shown: Record<string, unknown> = {
        accessor: association.accessor,
        secret_name: association.secretName,
        sync_status: entry.status,
        updated_at: rfc3339(entry.updatedAt),
      };
      if (entry.subKey !== undefined) shown.sub_key = entry.subKey;
      associatedSecrets[key] = shown;
    }
  }
  return okEnvelope({
    associated_secrets: associatedSecrets,
    store_name: destination.name,
    store_type: destination.type,
  });
}

/** One status for the association as a whole: the shared one, else the first that is not in sync. */
function overallStatus(association: Association): string {
  const statuses = [...association.entries.values()].map((e) => e.status);
  if (statuses.length === 0) return SYNCED;
  if (statuses.every((s) => s === statuses[0])) return statuses[0];
  return statuses.find((s) => s !== SYNCED && s !== PENDING) ?? PENDING;
}

function latestUpdate(association: Association): number {
  return Math.max(0, ...[...association.entries.values()].map((e) => e.updatedAt));
}

function requiredString(body: Record<string, unknown>, field: string, where: string): string {
  const value = body[field];
  if (typeof value !== 'string' || trimSlashes(value) === '') {
    throw badRequest(`${where}: missing required field "${field}" (a non-empty string)`);
  }
  return trimSlashes(value);
}

const trimSlashes = (value: string): string => value.trim().replace(/^\/+|\/+$/g, '');
