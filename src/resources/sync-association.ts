import { isNonEmptyString } from '../json-shape';
import { describeKeys, defineResourceType, isPlainObject, matchPath, payloadProblem } from './define';
import { listedNames, NAME_LISTING } from './discovery';
import { field, mountPathFacts } from './field';
import { SECRET_PATH } from './formats';
import { ImportIdError, type Attributes, type DiscoveryResult, type ListingRead, type ListingShape } from './types';
import { DESTINATION_TYPES } from './sync-destination';
import { unwrapData } from './define';
import { CONTENT_NOUNS } from './nouns';

/** The sync status of an association that is up to date; anything else is drift. */
const SYNCED = 'SYNCED';

/** The link of one KV-v2 secret to one sync destination. */
export const syncAssociation = defineResourceType({
  type: 'sync_association',
  construct: 'SyncAssociation',
  doc: 'Links a KV-v2 secret to a sync destination.',
  fields: [
    field('destination_type', 'string', 'Type of the destination (cloud1-sm, cloud2-kv, ...).', {
      identity: true, immutable: true, prop: 'destination', setByConstruct: true,
    }),
    field('destination_name', 'string', 'Name of the destination.', { identity: true, immutable: true, prop: 'destination', setByConstruct: true }),
    field('mount', 'string', 'KV-v2 mount holding the secret.', { identity: true, immutable: true, inBody: true, setByConstruct: true, ...mountPathFacts('secrets') }),
    field('secret_name', 'string', 'Path of the secret in the mount (without `data/`).', {
      identity: true, immutable: true, inBody: true, required: true, format: SECRET_PATH, segment: 'hierarchical',
    }),
    field('sync_status', 'string', 'Sync status reported by the server; anything but SYNCED is drift.', { computed: true }),
  ],
  // Setting an association again refreshes it; there is nothing else to update.
  writeSemantics: 'create-only',
  id: (spec) => `${destinationPath(spec)}/associations/${String(spec.mount)}/${String(spec.secret_name)}`,
  parseImportId(importId) {
    const match = matchPath(importId, /^sys\/sync\/destinations\/([^/]+)\/([^/]+)\/associations\/([^/]+)\/(.+)$/);
    if (!match) {
      throw new ImportIdError('sync_association', importId, 'sys/sync/destinations/<type>/<name>/associations/<mount>/<secret>');
    }
    return { destination_type: match[1], destination_name: match[2], mount: match[3], secret_name: match[4] };
  },
  api: (spec) => {
    const membership = { mount: spec.mount, secret_name: spec.secret_name };
    return {
      // The per-secret lookup answers keyed by destination, so no mount accessor is needed to find the entry.
      read: { method: 'GET', path: 'sys/sync/associations/destinations', query: { mount: String(spec.mount), secret_name: String(spec.secret_name) } },
      create: { method: 'POST', path: `${destinationPath(spec)}/associations/set` },
      update: { method: 'POST', path: `${destinationPath(spec)}/associations/set` },
      delete: { method: 'POST', path: `${destinationPath(spec)}/associations/remove`, body: membership },
    };
  },
  dependsOn: (spec) => [destinationPath(spec), `sys/mounts/${String(spec.mount)}`],
  // A destination deleted with purge takes its associations with it.
  livesIn: (identity) => [destinationPath(identity)],
  discover: {
    find: findAssociations,
    // The lookup answer is keyed by destination; `readAttributes` takes the one entry it needs.
    unmodelledKeys: () => [],
  },
  // Removing an association unsyncs the secret: its copy in the external store is deleted. Known without a read.
  consequences: (identity) => Promise.resolve([{
    what: CONTENT_NOUNS.externalSecrets.many,
    one: CONTENT_NOUNS.externalSecrets.one,
    count: 1,
    detail: `the copy of ${String(identity.mount)}/${String(identity.secret_name)} synced to ${String(identity.destination_type)} destination ${JSON.stringify(identity.destination_name)} is deleted in the external store`,
  }]),
  health(live) {
    const status = live.sync_status;
    if (status === undefined || status === SYNCED) return undefined;
    // Setting the association again makes the service sync it again.
    return { kind: 'out_of_sync', headline: 'is out of sync on the service', label: 'sync status', status: typeof status === 'string' ? status : JSON.stringify(status), repairedByWrite: true };
  },
  // The lookup answers every secret, associated or not, with its (maybe empty) map of destinations.
  readAnswerShape: lookupProblem,
  readAttributes(data, identity) {
    const destinations = isPlainObject(data.associated_destinations) ? data.associated_destinations : {};
    const entry = destinations[`${String(identity.destination_type)}/${String(identity.destination_name)}`];
    if (!isPlainObject(entry)) return null;
    return { sync_status: entry.sync_status };
  },
});

function destinationPath(spec: Record<string, unknown>): string {
  return `sys/sync/destinations/${String(spec.destination_type)}/${String(spec.destination_name)}`;
}

/** Why a per-secret lookup's answer (unwrapped) is not one: it always holds the (maybe empty) map of destinations. */
function lookupProblem(data: Record<string, unknown>): string | undefined {
  return isPlainObject(data.associated_destinations) ? undefined : 'an object without "associated_destinations" where the association lookup was expected';
}

/** A secret's place as the association listing's `key_info` gives it. */
interface SecretLocation {
  mount: string;
  secret_path: string;
}

function isSecretLocations(value: unknown): value is SecretLocation[] {
  return Array.isArray(value) && value.length > 0 &&
    value.every((entry) => isPlainObject(entry) && isNonEmptyString(entry.mount) && isNonEmptyString(entry.secret_path));
}

/**
 * `LIST sys/sync/associations`: `data.keys`, each associated secret as `<mount>/<secret>`, and `data.key_info`, each
 * key to the `{mount, secret_path}` discovery looks it up by. A key without them would be an associated secret
 * left out without a word.
 */
const ASSOCIATION_LISTING: ListingShape = {
  expected: 'the listing of associated secrets the service answers (data.keys, an array of strings, and data.key_info: each key to an array of {mount, secret_path})',
  problem(body) {
    const names = NAME_LISTING.problem(body);
    if (names !== undefined) return names;
    const keys = listedNames(body);
    if (keys.length === 0) return undefined;
    const keyInfo = unwrapData(body)?.key_info;
    if (!isPlainObject(keyInfo)) return 'a listing without "key_info", where each associated secret gives its mount and path';
    const unplaced = keys.filter((key) => !isSecretLocations(keyInfo[key]));
    return unplaced.length === 0 ? undefined : `a listing whose "key_info" gives no {mount, secret_path} for ${describeKeys(unplaced)}`;
  },
};

/**
 * `GET sys/sync/associations/destinations?mount=&secret_name=`: `data.associated_destinations`, keyed
 * `<type>/<name>`, each entry with the destination's `type` and `name` (by which discovery names the association).
 */
const DESTINATIONS_OF_SECRET: ListingShape = {
  expected: 'the destinations of one secret the service answers (data.associated_destinations: an object keyed "<type>/<name>", each entry with its "type" and "name")',
  problem(body) {
    const problem = payloadProblem(body) ?? lookupProblem(unwrapData(body)!);
    if (problem !== undefined) return problem;
    const destinations = unwrapData(body)!.associated_destinations as Record<string, unknown>;
    const unnamed = Object.keys(destinations).filter((key) => {
      const entry = destinations[key];
      return !isPlainObject(entry) || !isNonEmptyString(entry.type) || !isNonEmptyString(entry.name);
    });
    return unnamed.length === 0 ? undefined : `"associated_destinations" whose entries ${describeKeys(unnamed)} have no "type" and "name"`;
  },
};

/** Every associated secret (`LIST sys/sync/associations`), then the destinations of each (the per-secret lookup). */
async function findAssociations(read: ListingRead): Promise<DiscoveryResult> {
  const answer = await read({ method: 'LIST', path: 'sys/sync/associations', answers: ASSOCIATION_LISTING });
  // The answer has ASSOCIATION_LISTING's shape: every key has its places.
  const keyInfo = unwrapData(answer)?.key_info as Record<string, SecretLocation[]> | undefined;
  const secrets = new Map<string, { mount: string; secret_name: string }>();
  for (const key of listedNames(answer)) {
    for (const entry of keyInfo?.[key] ?? []) {
      const secret = { mount: entry.mount.replace(/^\/+|\/+$/g, ''), secret_name: entry.secret_path };
      secrets.set(`${secret.mount}/${secret.secret_name}`, secret);
    }
  }
  const found: Attributes[] = [];
  const unexpressed: string[] = [];
  const lookups = await Promise.all(
    [...secrets.values()].map(async (secret) => {
      const query = { mount: secret.mount, secret_name: secret.secret_name };
      const lookup = await read({ method: 'GET', path: 'sys/sync/associations/destinations', query, answers: DESTINATIONS_OF_SECRET });
      return { secret, destinations: (unwrapData(lookup)?.associated_destinations ?? {}) as Record<string, { type: string; name: string }> };
    }),
  );
  for (const { secret, destinations } of lookups) {
    for (const entry of Object.values(destinations)) {
      const identity = { destination_type: entry.type, destination_name: entry.name, ...secret };
      if ((DESTINATION_TYPES as readonly string[]).includes(entry.type)) found.push(identity);
      else unexpressed.push(`${destinationPath(identity)}/associations/${secret.mount}/${secret.secret_name} (destination type ${JSON.stringify(entry.type)} is not one secretform manages)`);
    }
  }
  return { found, unexpressed };
}
