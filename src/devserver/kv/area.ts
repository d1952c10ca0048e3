import { badRequest, listResponse, noContent, notFound, okEnvelope, ServiceError, unsupportedOperation, unsupportedPath } from '../respond';
import type { AreaHandler, DevRequest, DevResponse, MountEntry, ServerContext } from '../types';
import { DEFAULT_MAX_VERSIONS, type KvMountData, type KvSecret, type KvStore, type KvVersion } from './store';

/**
 * The KV version 2 engine of one mount: `data/`, `metadata/`, `delete/`, `undelete/`, `destroy/`, `config`.
 * A `kv` mount whose `options.version` is not "2" is kept as configured, but its secret paths answer 400:
 * the dev server only emulates version 2.
 */
export function createKvArea(store: KvStore, mount: MountEntry, ctx: ServerContext): AreaHandler {
  const isVersion2 = mount.options.version === '2';
  const data = store.mount(mount.path);
  const engine = new KvEngine(store, mount.path, data, ctx.now);
  return {
    handle(req, subpath) {
      if (!isVersion2) {
        throw badRequest(
          `the dev server emulates KV version 2 only: mount "${mount.path}/" has options.version ${JSON.stringify(mount.options.version ?? null)}; enable it with options {"version": "2"}`,
        );
      }
      return engine.handle(req, subpath);
    },
    unmount() {
      store.dropMount(mount.path);
    },
    inspect() {
      return engine.inspect();
    },
  };
}

class KvEngine {
  constructor(
    private readonly store: KvStore,
    private readonly mountPath: string,
    private readonly data: KvMountData,
    private readonly now: () => number,
  ) {}

  handle(req: DevRequest, subpath: string): DevResponse {
    const slash = subpath.indexOf('/');
    const section = slash < 0 ? subpath : subpath.slice(0, slash);
    const path = slash < 0 ? '' : subpath.slice(slash + 1);
    switch (section) {
      case 'config':
        if (path !== '') throw unsupportedPath();
        return this.config(req);
      case 'data':
        return this.dataPath(req, path);
      case 'metadata':
        return this.metadataPath(req, path);
      case 'delete':
      case 'undelete':
      case 'destroy':
        if (req.method !== 'POST' && req.method !== 'PUT') throw unsupportedOperation();
        return this.versionsOperation(section, requireSecretPath(path), req.body);
      default:
        throw unsupportedPath();
    }
  }

  inspect(): unknown {
    const secrets: Record<string, unknown> = {};
    for (const [name, secret] of this.data.secrets) {
      secrets[name] = {
        currentVersion: secret.currentVersion,
        versions: [...secret.versions.values()].map((v) => ({ ...v, data: v.data && structuredClone(v.data) })),
      };
    }
    return { config: { ...this.data.config }, secrets };
  }

  private config(req: DevRequest): DevResponse {
    if (req.method === 'GET') return okEnvelope(this.configView());
    if (req.method === 'POST' || req.method === 'PUT') {
      const { max_versions, cas_required, delete_version_after } = req.body;
      if (max_versions !== undefined) this.data.config.maxVersions = nonNegativeInteger(max_versions, 'max_versions');
      if (cas_required !== undefined) this.data.config.casRequired = boolean(cas_required, 'cas_required');
      if (delete_version_after !== undefined) {
        if (typeof delete_version_after !== 'string' && typeof delete_version_after !== 'number') {
          throw badRequest('delete_version_after must be a duration');
        }
        this.data.config.deleteVersionAfter = String(delete_version_after);
      }
      return noContent();
    }
    throw unsupportedOperation();
  }

  private configView(): Record<string, unknown> {
    const { maxVersions, casRequired, deleteVersionAfter } = this.data.config;
    return { max_versions: maxVersions, cas_required: casRequired, delete_version_after: deleteVersionAfter };
  }

  private dataPath(req: DevRequest, path: string): DevResponse {
    switch (req.method) {
      case 'GET':
        return this.readData(requireSecretPath(path), req.query.get('version'));
      case 'POST':
      case 'PUT':
        return this.writeData(requireSecretPath(path), req.body);
      case 'PATCH':
        return this.patchData(requireSecretPath(path), req.body);
      case 'DELETE':
        return this.deleteLatest(requireSecretPath(path));
      default:
        throw unsupportedOperation();
    }
  }

  private readData(path: string, versionParam: string | null): DevResponse {
    const secret = this.data.secrets.get(path);
    if (!secret) throw notFound();
    let versionNumber = secret.currentVersion;
    if (versionParam !== null && versionParam !== '' && versionParam !== '0') {
      if (!/^\d+$/.test(versionParam)) throw badRequest(`invalid version "${versionParam}": must be a non-negative integer`);
      versionNumber = Number(versionParam);
    }
    const version = secret.versions.get(versionNumber);
    if (!version || version.deletionTime !== undefined || version.destroyed || version.data === null) throw notFound();
    return okEnvelope({ data: structuredClone(version.data), metadata: this.versionMetadata(secret, version) });
  }

  private writeData(path: string, body: Record<string, unknown>): DevResponse {
    const payload = body.data;
    if (payload === undefined || payload === null) throw badRequest('no data provided');
    if (typeof payload !== 'object' || Array.isArray(payload)) throw badRequest('"data" must be a JSON object');
    const options = body.options;
    if (options !== undefined && options !== null && (typeof options !== 'object' || Array.isArray(options))) {
      throw badRequest('"options" must be a JSON object');
    }
    const cas = (options as Record<string, unknown> | undefined | null)?.cas;
    const existing = this.data.secrets.get(path);
    this.checkCas(existing, cas);
    const version = this.addVersion(path, structuredClone(payload as Record<string, unknown>));
    const secret = this.data.secrets.get(path)!;
    this.store.emitWrite(this.mountPath, path);
    return okEnvelope(this.versionMetadata(secret, version));
  }

  /** JSON merge patch (RFC 7396) of the latest live version's data into a new version. */
  private patchData(path: string, body: Record<string, unknown>): DevResponse {
    const secret = this.data.secrets.get(path);
    const latest = secret?.versions.get(secret.currentVersion);
    if (!secret || !latest || latest.deletionTime !== undefined || latest.destroyed || latest.data === null) {
      throw notFound();
    }
    const patch = body.data;
    if (patch === undefined || patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
      throw badRequest('no data provided');
    }
    const cas = (body.options as Record<string, unknown> | undefined)?.cas;
    this.checkCas(secret, cas);
    const merged = mergePatch(structuredClone(latest.data), patch as Record<string, unknown>);
    const version = this.addVersion(path, merged);
    this.store.emitWrite(this.mountPath, path);
    return okEnvelope(this.versionMetadata(secret, version));
  }

  private checkCas(existing: KvSecret | undefined, cas: unknown): void {
    const casRequired = this.data.config.casRequired || existing?.casRequired === true;
    if (cas === undefined || cas === null) {
      if (casRequired) throw badRequest('check-and-set parameter required for this call');
      return;
    }
    const expected = nonNegativeInteger(cas, 'options.cas');
    const current = existing?.currentVersion ?? 0;
    if (expected !== current) {
      throw badRequest('check-and-set parameter did not match the current version');
    }
  }

  private addVersion(path: string, payload: Record<string, unknown>): KvVersion {
    const now = this.now();
    let secret = this.data.secrets.get(path);
    if (!secret) {
      secret = {
        versions: new Map(),
        currentVersion: 0,
        oldestVersion: 0,
        createdTime: now,
        updatedTime: now,
        maxVersions: 0,
        casRequired: false,
        customMetadata: null,
      };
      this.data.secrets.set(path, secret);
    }
    const version: KvVersion = { version: secret.currentVersion + 1, data: payload, createdTime: now, destroyed: false };
    secret.versions.set(version.version, version);
    secret.currentVersion = version.version;
    secret.updatedTime = now;
    if (secret.oldestVersion === 0) secret.oldestVersion = version.version;
    const keep = secret.maxVersions || this.data.config.maxVersions || DEFAULT_MAX_VERSIONS;
    while (secret.versions.size > keep) {
      secret.versions.delete(secret.oldestVersion);
      secret.oldestVersion += 1;
    }
    return version;
  }

  private deleteLatest(path: string): DevResponse {
    const secret = this.data.secrets.get(path);
    const latest = secret?.versions.get(secret.currentVersion);
    if (latest && latest.deletionTime === undefined && !latest.destroyed) {
      latest.deletionTime = this.now();
      this.store.emitDelete(this.mountPath, path);
    }
    return noContent();
  }

  private versionsOperation(operation: 'delete' | 'undelete' | 'destroy', path: string, body: Record<string, unknown>): DevResponse {
    const versions = body.versions;
    if (!Array.isArray(versions) || versions.length === 0) throw badRequest('no version number provided');
    const numbers = versions.map((v) => nonNegativeInteger(v, 'versions'));
    const secret = this.data.secrets.get(path);
    if (!secret) return noContent();
    const latestWasLive = this.read(path) !== undefined;
    for (const number of numbers) {
      const version = secret.versions.get(number);
      if (!version) continue;
      if (operation === 'delete' && version.deletionTime === undefined && !version.destroyed) version.deletionTime = this.now();
      if (operation === 'undelete' && !version.destroyed) version.deletionTime = undefined;
      if (operation === 'destroy') {
        version.destroyed = true;
        version.data = null;
      }
    }
    const latestIsLive = this.read(path) !== undefined;
    if (latestWasLive && !latestIsLive) this.store.emitDelete(this.mountPath, path);
    if (!latestWasLive && latestIsLive) this.store.emitWrite(this.mountPath, path);
    return noContent();
  }

  private read(path: string): Record<string, unknown> | undefined {
    return this.store.read(this.mountPath, path);
  }

  private metadataPath(req: DevRequest, path: string): DevResponse {
    switch (req.method) {
      case 'LIST':
        return listResponse(this.listKeys(path));
      case 'GET': {
        const secret = this.data.secrets.get(requireSecretPath(path));
        if (!secret) throw notFound();
        return okEnvelope(this.secretMetadata(secret));
      }
      case 'DELETE': {
        const name = requireSecretPath(path);
        const wasLive = this.read(name) !== undefined;
        this.data.secrets.delete(name);
        if (wasLive) this.store.emitDelete(this.mountPath, name);
        return noContent();
      }
      default:
        throw unsupportedOperation();
    }
  }

  /** Direct children of a prefix: secret names, and folders with a trailing `/`. */
  private listKeys(prefix: string): string[] {
    const start = prefix === '' ? '' : `${prefix}/`;
    const keys = new Set<string>();
    for (const name of this.data.secrets.keys()) {
      if (!name.startsWith(start)) continue;
      const rest = name.slice(start.length);
      const slash = rest.indexOf('/');
      keys.add(slash < 0 ? rest : rest.slice(0, slash + 1));
    }
    return [...keys].sort();
  }

  private versionMetadata(secret: KvSecret, version: KvVersion): Record<string, unknown> {
    return {
      created_time: timestamp(version.createdTime),
      custom_metadata: secret.customMetadata,
      deletion_time: version.deletionTime === undefined ? '' : timestamp(version.deletionTime),
      destroyed: version.destroyed,
      version: version.version,
    };
  }

  private secretMetadata(secret: KvSecret): Record<string, unknown> {
    const versions: Record<string, unknown> = {};
    for (const version of secret.versions.values()) {
      versions[String(version.version)] = {
        created_time: timestamp(version.createdTime),
        deletion_time: version.deletionTime === undefined ? '' : timestamp(version.deletionTime),
        destroyed: version.destroyed,
      };
    }
    return {
      cas_required: secret.casRequired,
      created_time: timestamp(secret.createdTime),
      current_version: secret.currentVersion,
      custom_metadata: secret.customMetadata,
      delete_version_after: '0s',
      max_versions: secret.maxVersions,
      oldest_version: secret.oldestVersion,
      updated_time: timestamp(secret.updatedTime),
      versions,
    };
  }
}

function requireSecretPath(path: string): string {
  if (path === '') throw new ServiceError(404, ['unsupported path']);
  return path;
}

function timestamp(ms: number): string {
  return new Date(ms).toISOString();
}

function nonNegativeInteger(value: unknown, field: string): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0) {
    throw badRequest(`"${field}" must be a non-negative integer, got ${JSON.stringify(value)}`);
  }
  return number;
}

function boolean(value: unknown, field: string): boolean {
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw badRequest(`"${field}" must be a boolean, got ${JSON.stringify(value)}`);
}

function mergePatch(target: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete target[key];
    else if (typeof value === 'object' && !Array.isArray(value)) {
      // Own properties only: an inherited one (`constructor`) must never become the merge base.
      const current = Object.prototype.hasOwnProperty.call(target, key) ? target[key] : undefined;
      const base = current && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>) : {};
      target[key] = mergePatch(base, value as Record<string, unknown>);
    } else target[key] = structuredClone(value);
  }
  return target;
}
