import { randomBytes, randomUUID } from 'node:crypto';
import { parseDurationSeconds } from './duration';
import { badRequest, noContent, notFound, okEnvelope, ServiceError, unsupportedOperation } from './respond';
import type { AreaFactory, AreaHandler, DevRequest, DevResponse, MountEntry, MountTable, ServerContext } from './types';

export type MountType = MountEntry['type'];

/** The area factory for every mount type. */
export type AreaFactories = Record<MountType, AreaFactory>;

export interface EnableMountInput {
  path: string;
  type: string;
  description?: unknown;
  options?: unknown;
  auth: boolean;
}

interface MountedArea {
  entry: MountEntry;
  area: AreaHandler;
  uuid: string;
  /** Tunable lease settings, in seconds (0 = the system default). */
  config: { default_lease_ttl: number; max_lease_ttl: number };
}

/** A request routed to a mount: the area and the path relative to the mount. */
export interface ResolvedMount {
  entry: MountEntry;
  area: AreaHandler;
  subpath: string;
}

const SECRETS_TYPES: ReadonlySet<string> = new Set(['kv', 'cloud', 'ldap']);
const AUTH_TYPES: ReadonlySet<string> = new Set(['userpass']);
/** Secrets mounts cannot shadow the server's own paths; `token` is the built-in auth method. */
const RESERVED_SECRETS_PATHS = ['sys', 'auth'];
const RESERVED_AUTH_PATHS = ['token'];

/**
 * The enabled secrets engines (`sys/mounts`) and auth methods (`sys/auth`), each with its area handler.
 * Paths may contain slashes (`team/ldap`); a request goes to the mount with the longest matching prefix.
 */
export class MountRegistry implements MountTable {
  private readonly secrets = new Map<string, MountedArea>();
  private readonly auths = new Map<string, MountedArea>();

  constructor(
    private readonly factories: AreaFactories,
    private readonly context: () => ServerContext,
  ) {}

  secretsMount(path: string): MountEntry | undefined {
    const mounted = this.secrets.get(trimSlashes(path));
    return mounted && copyEntry(mounted.entry);
  }

  authMount(path: string): MountEntry | undefined {
    const mounted = this.auths.get(trimSlashes(path));
    return mounted && copyEntry(mounted.entry);
  }

  byAccessor(accessor: string): MountEntry | undefined {
    for (const mounted of [...this.secrets.values(), ...this.auths.values()]) {
      if (mounted.entry.accessor === accessor) return copyEntry(mounted.entry);
    }
    return undefined;
  }

  /** Every area, for ticking. */
  areas(): AreaHandler[] {
    return [...this.secrets.values(), ...this.auths.values()].map((m) => m.area);
  }

  area(path: string, auth: boolean): AreaHandler | undefined {
    return this.table(auth).get(trimSlashes(path))?.area;
  }

  /**
   * The mount with the longest path that is `path` or a prefix of it at a `/` boundary. Linear in the path: only
   * prefixes up to the deepest mount's depth are looked up, each built from the previous one (a request with
   * 30,000 segments, unauthenticated, must not cost seconds of CPU before its 403).
   */
  resolve(path: string, auth: boolean): ResolvedMount | undefined {
    const table = this.table(auth);
    let deepest = 0;
    for (const key of table.keys()) deepest = Math.max(deepest, key.split('/').length);
    let found: { mounted: MountedArea; end: number } | undefined;
    let end = -1;
    for (let depth = 1; depth <= deepest && end < path.length; depth += 1) {
      const next = path.indexOf('/', end + 1);
      end = next < 0 ? path.length : next;
      const mounted = table.get(path.slice(0, end));
      if (mounted) found = { mounted, end };
    }
    if (!found) return undefined;
    return { entry: found.mounted.entry, area: found.mounted.area, subpath: path.slice(found.end + 1) };
  }

  /** Enables a mount; throws a 400 ServiceError naming the problem. */
  enable(input: EnableMountInput): MountEntry {
    const path = validatePath(input.path, input.auth);
    let type = input.type;
    let options = parseOptions(input.options);
    if (!input.auth && type === 'kv-v2') {
      // The service's alias for a KV mount with version 2.
      type = 'kv';
      options = { ...options, version: '2' };
    }
    const allowed = input.auth ? AUTH_TYPES : SECRETS_TYPES;
    if (typeof type !== 'string' || !allowed.has(type)) {
      throw badRequest(
        `${input.auth ? 'auth method' : 'secrets engine'} type ${JSON.stringify(type)} is not supported: use one of ${[...allowed].join(', ')}`,
      );
    }
    if (input.description !== undefined && input.description !== null && typeof input.description !== 'string') {
      throw badRequest('"description" must be a string');
    }
    const table = this.table(input.auth);
    for (const existing of table.keys()) {
      if (existing === path || path.startsWith(`${existing}/`) || existing.startsWith(`${path}/`)) {
        throw badRequest(`path is already in use at ${input.auth ? 'auth/' : ''}${existing}/`);
      }
    }
    const entry: MountEntry = {
      path,
      type: type as MountType,
      accessor: `${input.auth ? 'auth_' : ''}${type}_${randomBytes(4).toString('hex')}`,
      description: (input.description as string | undefined) ?? '',
      options,
      auth: input.auth,
    };
    const area = this.factories[entry.type](copyEntry(entry), this.context());
    table.set(path, { entry, area, uuid: randomUUID(), config: { default_lease_ttl: 0, max_lease_ttl: 0 } });
    return copyEntry(entry);
  }

  /** Disables a mount and drops its data. Returns false when nothing was mounted there. */
  disable(path: string, auth: boolean): boolean {
    const key = trimSlashes(path);
    const table = this.table(auth);
    const mounted = table.get(key);
    if (!mounted) return false;
    table.delete(key);
    mounted.area.unmount?.();
    return true;
  }

  list(auth: boolean): MountEntry[] {
    return [...this.table(auth).values()].map((m) => copyEntry(m.entry));
  }

  /** `sys/mounts[/:path]` (auth false) and `sys/auth[/:path]` (auth true). `subpath` is the mount path or ''. */
  handleSysEndpoint(req: DevRequest, subpath: string, auth: boolean): DevResponse {
    if (subpath === '') {
      if (req.method !== 'GET') throw unsupportedOperation();
      const listing: Record<string, unknown> = {};
      for (const mounted of this.table(auth).values()) listing[`${mounted.entry.path}/`] = mountView(mounted);
      // Deployed servers return the listing both at the top level and under `data`.
      return { status: 200, body: { ...listing, ...okEnvelope(listing).body as Record<string, unknown> } };
    }
    const tuned = this.tuneTarget(subpath, auth);
    if (tuned) return this.handleTune(req, tuned);
    switch (req.method) {
      case 'GET': {
        const mounted = this.table(auth).get(subpath);
        if (!mounted) throw notFound();
        return okEnvelope(mountView(mounted));
      }
      case 'POST':
      case 'PUT': {
        const type = req.body.type;
        if (type === undefined || type === '') throw badRequest('"type" is required');
        if (typeof type !== 'string') throw badRequest('"type" must be a string');
        this.enable({ path: subpath, type, description: req.body.description, options: req.body.options, auth });
        return noContent();
      }
      case 'DELETE':
        this.disable(subpath, auth);
        return noContent();
      default:
        throw unsupportedOperation();
    }
  }

  /** `<path>/tune` of an existing mount (the tune endpoint wins over a new mount named `.../tune`, as deployed). */
  private tuneTarget(subpath: string, auth: boolean): MountedArea | undefined {
    if (!subpath.endsWith('/tune')) return undefined;
    return this.table(auth).get(subpath.slice(0, -'/tune'.length));
  }

  /** Reads or changes a mount's tunable settings: its description, lease TTLs and options. */
  private handleTune(req: DevRequest, mounted: MountedArea): DevResponse {
    if (req.method === 'GET') return okEnvelope(tuneView(mounted));
    if (req.method !== 'POST' && req.method !== 'PUT') throw unsupportedOperation();
    const { description, options, default_lease_ttl: defaultTtl, max_lease_ttl: maxTtl } = req.body;
    if (description !== undefined && description !== null && typeof description !== 'string') {
      throw badRequest('"description" must be a string');
    }
    const nextOptions = { ...mounted.entry.options, ...parseOptions(options) };
    if (mounted.entry.type === 'kv' && mounted.entry.options.version === '2' && nextOptions.version !== '2') {
      throw badRequest('cannot downgrade a KV mount from version 2');
    }
    const nextConfig = { ...mounted.config };
    if (defaultTtl !== undefined) nextConfig.default_lease_ttl = parseDurationSeconds(defaultTtl, 'default_lease_ttl');
    if (maxTtl !== undefined) nextConfig.max_lease_ttl = parseDurationSeconds(maxTtl, 'max_lease_ttl');
    if (nextConfig.max_lease_ttl > 0 && nextConfig.default_lease_ttl > nextConfig.max_lease_ttl) {
      throw badRequest('default_lease_ttl cannot be greater than max_lease_ttl');
    }
    if (typeof description === 'string') mounted.entry.description = description;
    mounted.entry.options = nextOptions;
    mounted.config = nextConfig;
    return noContent();
  }

  private table(auth: boolean): Map<string, MountedArea> {
    return auth ? this.auths : this.secrets;
  }
}

function mountView(mounted: MountedArea): Record<string, unknown> {
  const { entry } = mounted;
  return {
    type: entry.type,
    accessor: entry.accessor,
    description: entry.description,
    options: { ...entry.options },
    config: { ...mounted.config, force_no_cache: false },
    local: false,
    seal_wrap: false,
    external_entropy_access: false,
    uuid: mounted.uuid,
  };
}

function tuneView(mounted: MountedArea): Record<string, unknown> {
  return {
    description: mounted.entry.description,
    default_lease_ttl: mounted.config.default_lease_ttl,
    max_lease_ttl: mounted.config.max_lease_ttl,
    force_no_cache: false,
    options: { ...mounted.entry.options },
  };
}

function validatePath(raw: string, auth: boolean): string {
  const path = trimSlashes(raw);
  if (path === '') throw badRequest('mount path must not be empty');
  const segments = path.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..')) {
    throw badRequest(`invalid mount path "${raw}": empty, "." and ".." segments are not allowed`);
  }
  const reserved = auth ? RESERVED_AUTH_PATHS : RESERVED_SECRETS_PATHS;
  if (reserved.includes(segments[0])) {
    throw new ServiceError(400, [`path is already in use at ${auth ? 'auth/' : ''}${segments[0]}/`]);
  }
  return path;
}

/** Mount options are a map of strings; numbers and booleans are accepted and kept as text (`2` -> `"2"`). */
function parseOptions(raw: unknown): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('"options" must be an object of strings');
  const options: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof value === 'string') options[key] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') options[key] = String(value);
    else throw badRequest(`"options.${key}" must be a string, got ${JSON.stringify(value)}`);
  }
  return options;
}

function copyEntry(entry: MountEntry): MountEntry {
  return { ...entry, options: { ...entry.options } };
}

function trimSlashes(path: string): string {
  return path.replace(/^\/+|\/+$/g, '');
}
