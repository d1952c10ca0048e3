// `sys/sync/destinations[/:type[/:name]]`: create/update, read, list and delete of destinations.
import { badRequest, noContent, notFound, okEnvelope, ServiceError, unsupportedOperation } from '../respond';
import type { DevRequest, DevResponse, ServerContext } from '../types';
import {
  DESTINATION_TYPE_IDS,
  DESTINATION_TYPES,
  GRANULARITIES,
  type ConnectionField,
  type DestinationType,
  type Granularity,
} from './destination-types';
import { destinationKey, rfc3339, type Destination } from './model';
import type { SyncState } from './sync-state';
import { checkSecretNameTemplate } from './secret-name';
import { templateOf, type Syncer } from './syncer';

export const PURGE_DELAY_MS = 300;

/** The type named in a path, or 400 naming the accepted ones. */
export function destinationTypeOf(id: string): DestinationType {
  const type = DESTINATION_TYPES.get(id);
  if (!type) {
    throw badRequest(`unknown destination type "${id}"; expected one of: ${DESTINATION_TYPE_IDS.join(', ')}`);
  }
  return type;
}

/** The destination at `type/name`, or 404 naming it. */
export function existingDestination(state: SyncState, type: DestinationType, name: string): Destination {
  const destination = state.destinations.get(destinationKey(type.id, name));
  if (!destination) throw new ServiceError(404, [`destination "${type.id}/${name}" does not exist`]);
  return destination;
}

export function listAllDestinations(state: SyncState): DevResponse {
  const namesByType = new Map<string, string[]>();
  for (const destination of state.destinations.values()) {
    const names = namesByType.get(destination.type) ?? [];
    names.push(destination.name);
    namesByType.set(destination.type, names);
  }
  if (namesByType.size === 0) throw notFound();
  const types = [...namesByType.keys()].sort();
  const keyInfo: Record<string, string[]> = {};
  for (const type of types) keyInfo[`${type}/`] = namesByType.get(type)!.sort();
  return okEnvelope({ keys: types.map((t) => `${t}/`), key_info: keyInfo, total_destinations: state.destinations.size });
}

export function listDestinationsOfType(state: SyncState, type: DestinationType): DevResponse {
  const names = [...state.destinations.values()].filter((d) => d.type === type.id).map((d) => d.name).sort();
  if (names.length === 0) throw notFound();
  return okEnvelope({ keys: names, total_destinations: names.length });
}

export function handleDestination(
  req: DevRequest,
  type: DestinationType,
  name: string,
  state: SyncState,
  syncer: Syncer,
  ctx: ServerContext,
): DevResponse {
  switch (req.method) {
    case 'GET': {
      const destination = state.destinations.get(destinationKey(type.id, name));
      if (!destination) throw notFound();
      return okEnvelope(destinationData(destination, type));
    }
    case 'POST': {
      const { destination, ignored } = writeDestination(state, syncer, type, name, req.body);
      const warnings = ignored.length > 0 ? [`Endpoint ignored these unrecognized parameters: [${ignored.join(' ')}]`] : null;
      return okEnvelope(destinationData(destination, type), { warnings });
    }
    case 'DELETE':
      deleteDestination(req, state, syncer, ctx, destinationKey(type.id, name));
      return noContent();
    default:
      throw unsupportedOperation();
  }
}

/** The destination as read: sensitive connection values masked, unsupplied sensitive ones omitted. */
export function destinationData(destination: Destination, type: DestinationType): Record<string, unknown> {
  const connectionDetails: Record<string, unknown> = {};
  for (const field of type.fields) {
    const value = destination.connection[field.name];
    if (value === undefined) continue;
    connectionDetails[field.name] = field.sensitive ? '*****' : Array.isArray(value) ? [...value] : value;
  }
  const options: Record<string, unknown> = {
    granularity_level: destination.granularity,
    secret_name_template: templateOf(destination),
  };
  if (type.acceptsCustomTags) options.custom_tags = { ...destination.customTags };
  const data: Record<string, unknown> = {
    type: destination.type,
    name: destination.name,
    connection_details: connectionDetails,
    options,
  };
  if (destination.purgeInitiatedAt !== undefined) data.purge_initiated_at = rfc3339(destination.purgeInitiatedAt);
  return data;
}

/**
 * Creates the destination, or updates it by merging the fields sent into the stored ones. Everything is
 * validated before anything is stored.
 */
function writeDestination(
  state: SyncState,
  syncer: Syncer,
  type: DestinationType,
  name: string,
  body: Record<string, unknown>,
): { destination: Destination; ignored: string[] } {
  const where = `destination "${type.id}/${name}"`;
  const key = destinationKey(type.id, name);
  const existing = state.destinations.get(key);
  if (existing?.purgeInitiatedAt !== undefined) {
    throw badRequest(`${where} is being purged and cannot be changed`);
  }

  const connection: Record<string, string | string[]> = existing ? { ...existing.connection } : initialConnection(type);
  for (const field of type.fields) {
    if (body[field.name] === undefined) continue;
    const value = parseField(where, field, body[field.name]);
    if (existing && field.immutable && value !== existing.connection[field.name]) {
      throw badRequest(
        `${where}: field "${field.name}" cannot be changed after creation because it identifies the remote store; ` +
          'delete and re-create the destination instead',
      );
    }
    if (field.sensitive && value === '') delete connection[field.name];
    else connection[field.name] = value;
  }
  for (const field of type.fields) {
    const value = connection[field.name];
    if (field.required && (value === undefined || value.length === 0)) {
      throw badRequest(`${where}: missing required field "${field.name}"`);
    }
  }
  if (type.id === 'repohost') checkRepohostAuthentication(where, connection, state);

  let customTags = existing ? existing.customTags : {};
  if (body.custom_tags !== undefined) {
    if (!type.acceptsCustomTags) {
      throw badRequest(
        `${where}: "custom_tags" is not accepted by destination type "${type.id}" (only by cloud1-sm, cloud2-kv, cloud3-sm)`,
      );
    }
    customTags = parseCustomTags(where, body.custom_tags);
  }

  let granularity: Granularity = existing ? existing.granularity : type.defaultGranularity;
  if (body.granularity !== undefined) granularity = parseGranularity(where, body.granularity);

  let secretNameTemplate = existing?.secretNameTemplate;
  if (body.secret_name_template !== undefined) {
    if (typeof body.secret_name_template !== 'string') {
      throw badRequest(`${where}: "secret_name_template" must be a string`);
    }
    // An empty template means "use the type's default".
    secretNameTemplate = body.secret_name_template === '' ? undefined : body.secret_name_template;
    if (secretNameTemplate !== undefined) {
      try {
        checkSecretNameTemplate(secretNameTemplate);
      } catch (error) {
        throw badRequest(`${where}: invalid "secret_name_template": ${(error as Error).message}`);
      }
    }
  }

  const known = new Set([...type.fields.map((f) => f.name), 'granularity', 'secret_name_template', 'custom_tags']);
  const ignored = Object.keys(body).filter((k) => !known.has(k)).sort();

  if (!existing) {
    const destination: Destination = {
      type: type.id,
      name,
      connection,
      granularity,
      customTags,
      associations: new Map(),
    };
    if (secretNameTemplate !== undefined) destination.secretNameTemplate = secretNameTemplate;
    state.destinations.set(key, destination);
    state.associationsBySecret.addDestination(destination);
    return { destination, ignored };
  }
  const syncedFormChanged =
    existing.granularity !== granularity ||
    existing.secretNameTemplate !== secretNameTemplate ||
    JSON.stringify(existing.customTags) !== JSON.stringify(customTags);
  existing.connection = connection;
  existing.granularity = granularity;
  existing.customTags = customTags;
  if (secretNameTemplate === undefined) delete existing.secretNameTemplate;
  else existing.secretNameTemplate = secretNameTemplate;
  if (syncedFormChanged) syncer.onDestinationChanged(existing);
  return { destination: existing, ignored };
}

/** Defaults of the non-sensitive fields; sensitive fields stay absent until supplied. */
function initialConnection(type: DestinationType): Record<string, string | string[]> {
  const connection: Record<string, string | string[]> = {};
  for (const field of type.fields) {
    if (field.defaultValue === undefined) continue;
    connection[field.name] = Array.isArray(field.defaultValue) ? [...field.defaultValue] : field.defaultValue;
  }
  return connection;
}

function parseField(where: string, field: ConnectionField, value: unknown): string | string[] {
  if (field.kind === 'string') {
    // Numbers are accepted for string fields (installation_id is often sent as one).
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value !== 'string') throw badRequest(`${where}: "${field.name}" must be a string`);
    return value;
  }
  const list =
    typeof value === 'string'
      ? value.split(',').map((v) => v.trim()).filter((v) => v !== '')
      : Array.isArray(value) && value.every((v) => typeof v === 'string')
        ? value
        : undefined;
  if (list === undefined) {
    throw badRequest(`${where}: "${field.name}" must be a list of strings or a comma-separated string`);
  }
  if (field.allowedValues) {
    const bad = list.filter((v) => !field.allowedValues!.includes(v));
    if (bad.length > 0) {
      throw badRequest(
        `${where}: "${field.name}" has invalid values ${bad.map((b) => `"${b}"`).join(', ')}; ` +
          `allowed: ${field.allowedValues.join(', ')}`,
      );
    }
  }
  return [...new Set(list)];
}

function parseCustomTags(where: string, value: unknown): Record<string, string> {
  if (value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw badRequest(`${where}: "custom_tags" must be a map of string to string`);
  }
  const tags: Record<string, string> = {};
  for (const [tag, tagValue] of Object.entries(value as Record<string, unknown>)) {
    if (typeof tagValue !== 'string') {
      throw badRequest(`${where}: "custom_tags" value of "${tag}" must be a string`);
    }
    tags[tag] = tagValue;
  }
  return tags;
}

function parseGranularity(where: string, value: unknown): Granularity {
  if (typeof value === 'string' && (GRANULARITIES as readonly string[]).includes(value)) return value as Granularity;
  throw badRequest(
    `${where}: "granularity" must be one of ${GRANULARITIES.map((g) => `"${g}"`).join(', ')}, got ${JSON.stringify(value)}`,
  );
}

/** repohost authenticates with `access_token`, or with `app_name` (an existing app) plus `installation_id`. */
function checkRepohostAuthentication(
  where: string,
  connection: Record<string, string | string[]>,
  state: SyncState,
): void {
  const accessToken = connection.access_token ?? '';
  const appName = connection.app_name ?? '';
  const installationId = connection.installation_id ?? '';
  if (appName !== '') {
    if (typeof appName !== 'string' || !state.githubApps.has(appName)) {
      throw badRequest(`${where}: github app "${String(appName)}" (app_name) does not exist under sys/sync/github-apps`);
    }
    if (installationId === '') throw badRequest(`${where}: "installation_id" is required when "app_name" is set`);
    return;
  }
  if (accessToken === '') {
    throw badRequest(`${where}: authentication is required: set "access_token", or "app_name" with "installation_id"`);
  }
}

/**
 * `DELETE ...?purge=&force_delete=`: absent is fine; with associations it needs `purge` (asynchronous, see
 * `finishDuePurges`) or `force_delete` (at once).
 */
function deleteDestination(req: DevRequest, state: SyncState, syncer: Syncer, ctx: ServerContext, key: string): void {
  const purge = parseBooleanQuery(req, 'purge');
  const force = parseBooleanQuery(req, 'force_delete');
  const destination = state.destinations.get(key);
  if (!destination) return;
  if (force || destination.associations.size === 0) {
    syncer.removeDestination(destination);
    return;
  }
  if (!purge) throw badRequest('store cannot be deleted because it is still managing secrets');
  destination.purgeInitiatedAt ??= ctx.now();
  state.purgesDue.set(key, destination.purgeInitiatedAt + PURGE_DELAY_MS);
}

/** Completes the purges started at least PURGE_DELAY_MS ago. */
export function finishDuePurges(state: SyncState, syncer: Syncer, now: number): void {
  // In order of purge rather than of creation: each removal touches only its own destination, so either will do.
  for (const key of state.purgesDue.due(now)) syncer.removeDestination(state.destinations.get(key)!);
}

function parseBooleanQuery(req: DevRequest, name: string): boolean {
  const value = req.query.get(name);
  if (value === null || value === '' || value === 'false' || value === '0') return false;
  if (value === 'true' || value === '1') return true;
  throw badRequest(`query parameter "${name}" must be true or false, got "${value}"`);
}
