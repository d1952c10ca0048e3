import { DEFAULT_PORT } from './default-port';
import { createCloudArea } from './cloud';
import { systemClock, type Clock } from './clock';
import { Directory, DirectoryError } from './directory/directory';
import { FaultInjector, validateFaultOptions, type FaultControl } from './faults';
import { HttpServer } from './http/server';
import { InFlightGauge } from './in-flight';
import { createKvArea, KvStore } from './kv';
import { createLdapArea } from './ldap';
import { MountRegistry } from './mounts';
import { ServiceError } from './respond';
import { Router, type RequestLogEntry } from './router';
import { DEFAULT_SEED, defaultsBeneath, parseSeed, seedDirectoryEntries, seedPasswordPolicies, SeedError, type Seed } from './seed';
import { createSyncArea } from './sync';
import { InMemoryTokenStore } from './tokens';
import { createUserpassArea } from './userpass';
import type { AreaHandler, ServerContext } from './types';

export interface DevServerOptions {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 picks a free port. Default 8200. */
  port?: number;
  /** Default `root`. */
  rootToken?: string;
  /** Default DEFAULT_SEED (a KV v2 mount at `secret` and a directory under dc=example,dc=org). */
  seed?: Seed;
  /**
   * true: `seed` is added to DEFAULT_SEED (its own mounts and directory entries win over defaults with the same
   * path or dn) unless it says `replaceDefaults: true`; what the dev-server command's `--seed` does. Default
   * false: `seed` replaces the defaults.
   */
  seedAddsToDefaults?: boolean;
  /** Names the seed in errors, e.g. `seed file ./seed.json`. Default `seed`. */
  seedSource?: string;
  /** Default: the system clock. Use a ManualClock to move time in tests. */
  clock?: Clock;
  latencyMs?: number;
  failureRate?: number;
  failureStatus?: number;
  /** Largest accepted request body; default 4 MiB (DEFAULT_MAX_REQUEST_BYTES). Larger bodies get 413. */
  maxRequestBytes?: number;
  /** The request line and headers must arrive within this many ms, or 408 and the connection closes. Default 10 s. */
  headersTimeoutMs?: number;
  /** A request body must arrive within this many ms once it is read, or 408 and the connection closes. Default 30 s. */
  bodyTimeoutMs?: number;
  /** Largest login body (read before any token is known); default 64 KiB. Larger bodies get 413. */
  maxUnauthenticatedBodyBytes?: number;
  /** Bytes all login bodies being read at once may hold together; default 16 MiB. Over it: 503. */
  unauthenticatedBodyBudgetBytes?: number;
  /** How many of the latest requests `requestLog` keeps; default 10,000 (the bench replays more). */
  requestLogCap?: number;
}

export interface DevServer {
  /** `http://HOST:PORT` */
  url: string;
  port: number;
  rootToken: string;
  close(): Promise<void>;
  /** Handled requests, oldest first (the latest 10,000): method, path, query, status, body field names; never a body. */
  requestLog: RequestLogEntry[];
  /** How many requests were handled since start (not capped like requestLog). */
  readonly requestCount: number;
  directory: Directory;
  /** The area's `inspect()` of the secrets mount at `path`, or of the auth mount at `auth/<path>`. */
  inspectMount(path: string): unknown;
  inspectSync(): unknown;
  faults: FaultControl;
  /**
   * Requests being worked on now (arrival to answer, latency included) and the most at once since the start or
   * `resetMax()`: the request budget of a client, measured at the server.
   */
  inFlight: { readonly current: number; readonly max: number; resetMax(): void };
}

export { DEFAULT_PORT };
const REQUEST_LOG_CAP = 10_000;

/** Starts the dev server: an in-memory emulation of the service on a real HTTP port. */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const host = options.host ?? '127.0.0.1';
  const port = options.port ?? DEFAULT_PORT;
  const rootToken = options.rootToken ?? 'root';
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port must be an integer 0..65535, got ${port}`);
  if (typeof rootToken !== 'string' || rootToken.trim() === '') throw new Error('rootToken must be a non-empty string');
  if (options.maxRequestBytes !== undefined && (!Number.isInteger(options.maxRequestBytes) || options.maxRequestBytes < 0)) {
    throw new Error(`maxRequestBytes must be an integer >= 0, got ${options.maxRequestBytes}`);
  }
  for (const name of ['headersTimeoutMs', 'bodyTimeoutMs', 'maxUnauthenticatedBodyBytes', 'unauthenticatedBodyBudgetBytes', 'requestLogCap'] as const) {
    const value = options[name];
    if (value !== undefined && (!Number.isInteger(value) || value <= 0)) throw new Error(`${name} must be an integer > 0, got ${value}`);
  }
  validateFaultOptions(options);
  const seedSource = options.seedSource ?? 'seed';
  const seed = parseSeed(options.seed ?? DEFAULT_SEED, seedSource);
  // Applied in order, each naming itself in errors: the defaults beneath (when the seed adds to them), the seed.
  const layers = [
    ...(options.seedAddsToDefaults && options.seed !== undefined ? [{ seed: parseSeed(defaultsBeneath(seed), 'default seed'), source: 'default seed' }] : []),
    { seed, source: seedSource },
  ];
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();

  let directory: Directory;
  try {
    directory = new Directory(layers.flatMap((layer) => seedDirectoryEntries(layer.seed)));
  } catch (error) {
    throw new SeedError(`invalid ${seedSource}: directory: ${(error as Error).message}`);
  }

  const kv = new KvStore();
  const tokens = new InMemoryTokenStore(rootToken, now);
  const mounts = new MountRegistry(
    {
      kv: (mount, ctx) => createKvArea(kv, mount, ctx),
      cloud: createCloudArea,
      ldap: createLdapArea,
      userpass: createUserpassArea,
    },
    () => context,
  );
  const context: ServerContext = {
    now,
    mounts,
    tokens,
    kv,
    kvEvents: kv,
    directory,
    passwordPolicies: new Map(layers.flatMap((layer) => [...seedPasswordPolicies(layer.seed)])),
  };
  const sync = createSyncArea(context);
  for (const layer of layers) await applySeedContent(layer.seed, layer.source, mounts, context);

  const requestLog: RequestLogEntry[] = [];
  const requestLogCap = options.requestLogCap ?? REQUEST_LOG_CAP;
  let requestCount = 0;
  const faults = new FaultInjector({
    latencyMs: options.latencyMs,
    failureRate: options.failureRate,
    failureStatus: options.failureStatus,
  });
  const inFlight = new InFlightGauge();
  const router = new Router({
    mounts,
    tokens,
    sync,
    faults,
    inFlight,
    now,
    log: (entry) => {
      requestCount += 1;
      requestLog.push(entry);
      if (requestLog.length > requestLogCap) requestLog.splice(0, requestLog.length - requestLogCap);
    },
  });
  const http = new HttpServer((head, readBody) => router.handle(head, readBody), {
    maxRequestBytes: options.maxRequestBytes,
    headersTimeoutMs: options.headersTimeoutMs,
    bodyTimeoutMs: options.bodyTimeoutMs,
    maxUnauthenticatedBodyBytes: options.maxUnauthenticatedBodyBytes,
    unauthenticatedBodyBudgetBytes: options.unauthenticatedBodyBudgetBytes,
  });
  const address = await http.listen(port, host);
  const urlHost = host.includes(':') ? `[${host}]` : host;

  let closed: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    rootToken,
    close: () => (closed ??= http.close()),
    requestLog,
    get requestCount() {
      return requestCount;
    },
    directory,
    inspectMount(path: string): unknown {
      const trimmed = path.replace(/^\/+|\/+$/g, '');
      const auth = trimmed.startsWith('auth/');
      const area: AreaHandler | undefined = auth
        ? mounts.area(trimmed.slice('auth/'.length), true)
        : mounts.area(trimmed, false);
      if (!area) throw new Error(`inspectMount: no ${auth ? 'auth method' : 'secrets engine'} is mounted at "${trimmed}/"`);
      return area.inspect?.();
    },
    inspectSync: () => sync.inspect?.(),
    faults,
    inFlight,
  };
}

/** Enables the seed's mounts and writes its KV secrets. Errors name the seed (`source`) and the entry. */
async function applySeedContent(seed: ReturnType<typeof parseSeed>, source: string, mounts: MountRegistry, ctx: ServerContext): Promise<void> {
  for (const [index, mount] of (seed.mounts ?? []).entries()) {
    const auth = mount.auth ?? mount.type === 'userpass';
    try {
      mounts.enable({ path: mount.path, type: mount.type, description: mount.description, options: mount.options, auth });
    } catch (error) {
      throw new SeedError(`invalid ${source}: mounts[${index}] (path ${JSON.stringify(mount.path)}): ${describe(error)}`);
    }
  }
  for (const [index, secret] of (seed.kv ?? []).entries()) {
    const entry = ctx.mounts.secretsMount(secret.mount);
    if (!entry || entry.type !== 'kv' || entry.options.version !== '2') {
      throw new SeedError(`invalid ${source}: kv[${index}] (${secret.mount}/${secret.path}): mount: "${secret.mount}" is not a KV version 2 mount of the seed or the defaults`);
    }
    const area = mounts.area(entry.path, false)!;
    const path = secret.path.replace(/^\/+|\/+$/g, '');
    try {
      await area.handle(
        {
          method: 'POST',
          path: `${entry.path}/data/${path}`,
          trailingSlash: false,
          query: new URLSearchParams(),
          headers: {},
          body: { data: secret.data },
          remoteAddress: '',
        },
        `data/${path}`,
      );
    } catch (error) {
      throw new SeedError(`invalid ${source}: kv[${index}] (${secret.mount}/${secret.path}): ${describe(error)}`);
    }
  }
}

function describe(error: unknown): string {
  if (error instanceof DirectoryError || error instanceof ServiceError) return error.errors.join('; ');
  return error instanceof Error ? error.message : String(error);
}
