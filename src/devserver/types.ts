// The contracts between the dev server's HTTP core and the emulated areas (engines, auth methods, sync).
// The dev server is an independent implementation of the service: nothing under src/devserver imports from
// the client side of the project (resources/, client/, engine/, constructs/, report/, cli/).

/** A parsed request, as an area handler sees it. */
export interface DevRequest {
  /** Upper-case HTTP method. `GET ?list=true` arrives here as `LIST` (and `list` is removed from `query`). */
  method: string;
  /** Path after `/v1/`, without the query string, without leading or trailing slashes. */
  path: string;
  /** True when the request path ended with `/` (hierarchical list prefixes). */
  trailingSlash: boolean;
  query: URLSearchParams;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** The parsed JSON body (an object; `{}` when the body was empty). */
  body: Record<string, unknown>;
  /** The caller, authenticated by the core. `undefined` only for unauthenticated paths (userpass login). */
  token?: TokenInfo;
  /** Address of the client socket (for `token_bound_cidrs`). */
  remoteAddress: string;
}

export interface DevResponse {
  status: number;
  /** Serialized as JSON; omitted for 204. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** A token known to the server: the root token given at start, or one issued by a login. */
export interface TokenInfo {
  id: string;
  accessor: string;
  policies: string[];
  /** The root token may do everything; login tokens cannot change configuration. */
  root: boolean;
  entityId: string;
  displayName: string;
  /** Epoch ms after which the token is no longer valid; undefined = never. */
  expiresAt?: number;
  /** Remaining uses; undefined or 0 = unlimited. */
  numUsesLeft?: number;
  /** CIDRs the token may be used from (from `token_bound_cidrs`). */
  boundCidrs?: string[];
  tokenType: 'service' | 'batch';
  metadata: Record<string, string>;
}

export interface IssueTokenInput {
  policies: string[];
  displayName: string;
  entityId?: string;
  ttlSeconds: number;
  numUses?: number;
  boundCidrs?: string[];
  tokenType: 'service' | 'batch';
  metadata: Record<string, string>;
}

export interface TokenStore {
  issue(input: IssueTokenInput): TokenInfo;
  lookup(id: string): TokenInfo | undefined;
}

/** One enabled secrets engine or auth method. */
export interface MountEntry {
  /** Without slashes, e.g. `secret`, `ldap`, `team/ldap`. For auth methods, the path under `auth/`. */
  path: string;
  type: 'kv' | 'cloud' | 'ldap' | 'userpass';
  accessor: string;
  description: string;
  options: Record<string, string>;
  /** true for `sys/auth` mounts (routed under `auth/<path>`). */
  auth: boolean;
}

export interface MountTable {
  /** The secrets-engine mount at exactly this path (no slashes), if any. */
  secretsMount(path: string): MountEntry | undefined;
  authMount(path: string): MountEntry | undefined;
  byAccessor(accessor: string): MountEntry | undefined;
}

/** Read access to KV version 2 secrets, for secret sync. */
export interface KvAccess {
  /** Latest live version's data, or undefined when absent, deleted, or the mount is not KV v2. */
  read(mountPath: string, secretName: string): Record<string, unknown> | undefined;
}

/** What other parts of the server can learn of KV changes (sync re-pushes associated secrets). */
export interface KvEvents {
  onWrite(listener: (mountPath: string, secretName: string) => void): void;
  onDelete(listener: (mountPath: string, secretName: string) => void): void;
}

/** A named password policy (seeded; there is no endpoint for them in the document). */
export interface PasswordPolicy {
  length: number;
  /** Characters to draw from. */
  charset: string;
}

export interface ServerContext {
  /** Epoch milliseconds. Injectable, so tests can move time forward without waiting. */
  now: () => number;
  mounts: MountTable;
  tokens: TokenStore;
  kv: KvAccess;
  kvEvents: KvEvents;
  directory: import('./directory/directory').Directory;
  passwordPolicies: Map<string, PasswordPolicy>;
}

/**
 * An emulated area bound to one mount (cloud, ldap, userpass, kv) or to `sys/sync`.
 * `subpath` is relative to the mount, without leading or trailing slashes ('' for the mount root).
 * Handlers throw `ServiceError` (see respond.ts) for error responses.
 */
export interface AreaHandler {
  handle(req: DevRequest, subpath: string): DevResponse | Promise<DevResponse>;
  /** Called before every request with the current time: time-based transitions happen here, lazily. */
  tick?(now: number): void;
  /** The mount is being disabled: release what the area holds outside itself (e.g. directory entries). */
  unmount?(): void;
  /**
   * Whether a non-root (login) token may make this call. Login tokens cannot change configuration: without
   * this method they may only GET and LIST; areas allow their "use" operations here (creds, check-out, ...).
   */
  allowsNonRoot?(method: string, subpath: string): boolean;
  /** In-process view of the area's state for tests (e.g. the cloud engine's current root secret). */
  inspect?(): unknown;
}

export type AreaFactory = (mount: MountEntry, ctx: ServerContext) => AreaHandler;
