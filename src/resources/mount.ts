/** What secrets engines (`sys/mounts`) and auth methods (`sys/auth`) share: how they are enabled, read and tuned. */
import { describeKeys, isPlainObject, matchPath, payloadProblem, unwrapData, type ResourceTypeDefinition } from './define';
import { ImportIdError, type DiscoverySpec, type ListingShape } from './types';

/** Mounts every server has and no one configures (the system backend, per-token storage, the token method). */
const BUILT_IN_MOUNT_TYPES = ['system', 'cubbyhole', 'identity', 'token', 'ns_system', 'ns_cubbyhole', 'ns_identity', 'ns_token'];

/** Everything of a mount type but its names and fields: `<base>/<path>` is its id; create enables, update tunes. */
export function mountBehaviour(
  type: string,
  base: 'sys/mounts' | 'sys/auth',
  supportedTypes: readonly string[],
): Pick<ResourceTypeDefinition, 'writeSemantics' | 'id' | 'parseImportId' | 'api' | 'readAttributes' | 'readAnswerShape' | 'alignWithDesired' | 'writeBody' | 'discover'> {
  const pattern = new RegExp(`^${base}/(.+)$`);
  return {
    writeSemantics: 'create-only',
    id: (spec) => `${base}/${String(spec.path)}`,
    parseImportId(importId) {
      const match = matchPath(importId, pattern);
      if (!match) throw new ImportIdError(type, importId, `${base}/<path>`);
      return { path: match[1] };
    },
    api: (spec) => ({
      // The service lists mounts at `<base>` keyed "<path>/"; there is no per-mount read in the document.
      read: { method: 'GET', path: base },
      create: { method: 'POST', path: `${base}/${String(spec.path)}` },
      update: { method: 'POST', path: `${base}/${String(spec.path)}/tune` },
      delete: { method: 'DELETE', path: `${base}/${String(spec.path)}` },
    }),
    readAttributes: (data, identity) => mountEntry(data, String(identity.path)),
    readAnswerShape: mountListingProblem,
    discover: mountDiscovery(base, supportedTypes),
    // The listing reports an engine without options as null (read as absent); `options: {}` in code is the same.
    alignWithDesired: (read, desired) =>
      read.options === undefined && isPlainObject(desired.options) && Object.keys(desired.options).length === 0 ? { ...read, options: {} } : read,
    writeBody(desired, options) {
      if (!options.create) return desired.description === undefined ? {} : { description: desired.description };
      const body: Record<string, unknown> = { type: desired.type };
      if (desired.description !== undefined) body.description = desired.description;
      if (desired.options !== undefined) body.options = desired.options;
      return body;
    },
  };
}

/** The entry of one mount in a `sys/mounts` or `sys/auth` listing, or null when it is not mounted. */
export function mountEntry(data: Record<string, unknown>, path: string): Record<string, unknown> | null {
  const entry = data[`${path}/`] ?? data[path];
  if (!isPlainObject(entry)) return null;
  const result: Record<string, unknown> = { type: entry.type, description: entry.description };
  // Engines without options report null; an empty object means the same.
  if (isPlainObject(entry.options) && Object.keys(entry.options).length > 0) result.options = entry.options;
  return result;
}

/**
 * A listing is keyed "<path>/", each entry an object with its `type`; envelope fields may sit beside them (servers
 * return the listing both at the top level and under `data`). Any other key, or an entry without a type, means
 * the answer is not a mount listing. An empty listing is one (a server may list no mount of this kind).
 */
function mountListingProblem(data: Record<string, unknown>): string | undefined {
  const others = Object.keys(data).filter((key) => !key.endsWith('/') && !RESPONSE_ENVELOPE_KEYS.includes(key));
  if (others.length > 0) return `an object with keys that are not mount paths ending in "/" (${describeKeys(others)}) where a mount listing was expected`;
  const untyped = Object.keys(data).filter((key) => key.endsWith('/') && (!isPlainObject(data[key]) || typeof (data[key]).type !== 'string'));
  if (untyped.length > 0) return `a mount listing whose entries ${describeKeys(untyped)} have no "type"`;
  return undefined;
}

/** Fields of the service's envelope, which a listing answered at the top level may carry beside its entries. */
const RESPONSE_ENVELOPE_KEYS = ['request_id', 'lease_id', 'renewable', 'lease_duration', 'data', 'wrap_info', 'warnings', 'auth', 'mount_type'];

/**
 * The listing discovery reads (`GET sys/mounts`, `GET sys/auth`), as refresh reads it (`mountListingProblem`), and
 * not a bare `{}`: the service answers in its envelope and always lists its built-in mounts (`sys/`, `token/`),
 * so a body with neither says nothing about what is mounted. The envelope with empty `data` lists no mount.
 */
const MOUNT_LISTING: ListingShape = {
  expected: 'the mount listing the service answers (an object keyed "<path>/", each entry an object with its "type")',
  problem(body) {
    const problem = payloadProblem(body);
    if (problem !== undefined) return problem;
    if (Object.keys(body as Record<string, unknown>).length === 0) return 'an empty object, neither the envelope nor any mount';
    return mountListingProblem(unwrapData(body)!);
  },
};

/** Every mount of the listing whose type secretform manages; other types (not built in) are reported. */
function mountDiscovery(base: string, supportedTypes: readonly string[]): DiscoverySpec {
  return {
    async find(read) {
      const data = unwrapData(await read({ method: 'GET', path: base, answers: MOUNT_LISTING })) ?? {};
      const found = [];
      const unexpressed = [];
      for (const key of Object.keys(data).sort()) {
        const entry = data[key];
        // Keys without "/" are envelope fields beside the entries; every entry has its type (MOUNT_LISTING).
        if (!key.endsWith('/') || !isPlainObject(entry) || typeof entry.type !== 'string') continue;
        if (BUILT_IN_MOUNT_TYPES.includes(entry.type)) continue;
        const path = key.slice(0, -1);
        if (supportedTypes.includes(entry.type)) found.push({ path });
        else unexpressed.push(`${base}/${path} (mount type ${JSON.stringify(entry.type)} is not one secretform manages)`);
      }
      return { found, unexpressed };
    },
    // The listing entry is mapped to the fields by `mountEntry`; what else it holds (accessor, config) is the server's.
    unmodelledKeys: () => [],
  };
}
