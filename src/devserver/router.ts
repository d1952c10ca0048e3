import { ClientGoneError, HttpProtocolError } from './http/request';
import type { BodyAccess, HttpRequestHead, HttpResponse } from './http/server';
import { parseJsonBody } from './json-body';
import type { FaultInjector } from './faults';
import type { InFlightGauge } from './in-flight';
import type { MountRegistry } from './mounts';
import { okEnvelope, permissionDenied, ServiceError, unsupportedOperation, unsupportedPath } from './respond';
import type { InMemoryTokenStore } from './tokens';
import type { AreaHandler, DevRequest, DevResponse, TokenInfo } from './types';

/** One handled request, as tests see it in `DevServer.requestLog`. */
export interface RequestLogEntry {
  method: string;
  /** The path after `/v1/`, without the query string. */
  path: string;
  /** The query string without `?` ('' when none). */
  query: string;
  status: number;
  /**
   * The names of the body's top-level fields, sorted (`[]` when there was no body or it was not read). The log
   * never keeps a body or any value from one: bodies carry passwords, client secrets and keys.
   */
  fields: string[];
}

export interface RouterDeps {
  mounts: MountRegistry;
  tokens: InMemoryTokenStore;
  sync: AreaHandler;
  faults: FaultInjector;
  /** Counts the requests being worked on (absent: not counted). */
  inFlight?: InFlightGauge;
  now: () => number;
  log: (entry: RequestLogEntry) => void;
}

const TOKEN_HEADER = 'x-service-token';
const MERGE_PATCH = 'application/merge-patch+json';

/**
 * Turns wire requests into area calls: `/v1/` paths, `LIST` (and `GET ?list=true`), JSON bodies, injected
 * faults, token checks, and routing to sys endpoints, auth mounts, sync and secrets mounts.
 */
export class Router {
  constructor(private readonly deps: RouterDeps) {}

  /** Answers one request; `readBody` is called only once the caller is authenticated (or logging in). */
  async handle(http: HttpRequestHead, readBody: (access?: BodyAccess) => Promise<Buffer>): Promise<HttpResponse> {
    const arrivedAt = performance.now();
    const entry: RequestLogEntry = { method: http.method.toUpperCase(), path: '', query: '', status: 0, fields: [] };
    this.deps.inFlight?.enter();
    try {
      let response: DevResponse;
      try {
        response = await this.route(http, readBody, entry);
      } catch (error) {
        // Nobody is left to answer; the HTTP layer drops the connection.
        if (error instanceof ClientGoneError) throw error;
        response = errorResponse(error);
      }
      await this.deps.faults.delayFrom(arrivedAt);
      entry.status = response.status;
      this.deps.log(entry);
      return response;
    } finally {
      this.deps.inFlight?.leave();
    }
  }

  private async route(http: HttpRequestHead, readBody: (access?: BodyAccess) => Promise<Buffer>, entry: RequestLogEntry): Promise<DevResponse> {
    const target = splitTarget(http.target);
    entry.path = target.path;
    entry.query = target.query;

    // Injected failures come first, so a failed request changes nothing.
    const failure = this.deps.faults.nextFailure();
    if (failure) return failure;

    if (!target.underV1) return { status: 404, body: { errors: [] } };
    const path = decodePath(target.path);
    entry.path = path.path;

    let method = http.method.toUpperCase();
    const query = new URLSearchParams(target.query);
    if (method === 'GET' && isTrue(query.get('list'))) {
      method = 'LIST';
    }
    query.delete('list');
    entry.method = method;

    if (method === 'PATCH') {
      const contentType = (http.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (contentType !== MERGE_PATCH) {
        throw new ServiceError(415, ['PATCH requires Content-Type application/merge-patch+json']);
      }
    }

    // The token is checked on the head alone: an unauthenticated request never has its body read.
    const loginPath = this.isLogin(method, path.path);
    const token = loginPath ? undefined : this.authenticate(http);
    // A login's sender is not known yet: its body is read under the small unauthenticated limit and budget.
    const body = parseJsonBody(await readBody(loginPath ? 'unauthenticated' : 'authenticated'));
    entry.fields = Object.keys(body).sort();

    const now = this.deps.now();
    for (const area of [...this.deps.mounts.areas(), this.deps.sync]) area.tick?.(now);

    const req: DevRequest = {
      method,
      path: path.path,
      trailingSlash: path.trailingSlash,
      query,
      headers: { ...http.headers },
      body,
      remoteAddress: http.remoteAddress,
      token,
    };
    return this.dispatch(req);
  }

  private isLogin(method: string, path: string): boolean {
    if ((method !== 'POST' && method !== 'PUT') || !path.startsWith('auth/')) return false;
    const resolved = this.deps.mounts.resolve(path.slice('auth/'.length), true);
    return resolved !== undefined && resolved.entry.type === 'userpass' && resolved.subpath.startsWith('login/');
  }

  private authenticate(http: HttpRequestHead): TokenInfo {
    const check = this.deps.tokens.authenticate(http.headers[TOKEN_HEADER], http.remoteAddress);
    if (check.ok) return check.token;
    if (check.reason === 'invalid') throw new ServiceError(403, ['permission denied', 'invalid token']);
    throw permissionDenied();
  }

  private async dispatch(req: DevRequest): Promise<DevResponse> {
    const { path } = req;
    const token = req.token;
    const nonRoot = token !== undefined && !token.root;

    const sys = matchPrefix(path, 'sys');
    if (sys !== undefined) {
      if (nonRoot) throw permissionDenied();
      const mounts = matchPrefix(sys, 'mounts');
      if (mounts !== undefined) return this.deps.mounts.handleSysEndpoint(req, mounts, false);
      const auths = matchPrefix(sys, 'auth');
      if (auths !== undefined) return this.deps.mounts.handleSysEndpoint(req, auths, true);
      const sync = matchPrefix(sys, 'sync');
      if (sync !== undefined) return this.deps.sync.handle(req, sync);
      throw unsupportedPath();
    }

    const auth = matchPrefix(path, 'auth');
    if (auth !== undefined) {
      const tokenPath = matchPrefix(auth, 'token');
      if (tokenPath !== undefined) return this.tokenEndpoint(req, tokenPath);
      const resolved = this.deps.mounts.resolve(auth, true);
      if (!resolved) throw noHandler(path);
      this.checkNonRoot(req, resolved.area, resolved.subpath);
      return resolved.area.handle(req, resolved.subpath);
    }

    const resolved = this.deps.mounts.resolve(path, false);
    if (!resolved) throw noHandler(path);
    this.checkNonRoot(req, resolved.area, resolved.subpath);
    return resolved.area.handle(req, resolved.subpath);
  }

  /** Login tokens read and list; anything else only where the area allows it. */
  private checkNonRoot(req: DevRequest, area: AreaHandler, subpath: string): void {
    if (req.token === undefined || req.token.root) return;
    if (req.method === 'GET' || req.method === 'LIST') return;
    if (area.allowsNonRoot?.(req.method, subpath)) return;
    throw permissionDenied();
  }

  /** The built-in token method: only `lookup-self`, so clients can check their token. */
  private tokenEndpoint(req: DevRequest, subpath: string): DevResponse {
    if (subpath !== 'lookup-self') throw unsupportedPath();
    if (req.method !== 'GET' && req.method !== 'POST') throw unsupportedOperation();
    const token = req.token!;
    const now = this.deps.now();
    return okEnvelope({
      accessor: token.accessor,
      display_name: token.displayName,
      entity_id: token.entityId,
      expire_time: token.expiresAt === undefined ? null : new Date(token.expiresAt).toISOString(),
      meta: Object.keys(token.metadata).length > 0 ? { ...token.metadata } : null,
      // This request used one; 0 means unlimited.
      num_uses: token.numUsesLeft === undefined ? 0 : token.numUsesLeft - 1,
      policies: [...token.policies],
      ttl: token.expiresAt === undefined ? 0 : Math.max(0, Math.floor((token.expiresAt - now) / 1000)),
      type: token.tokenType,
    });
  }
}

function errorResponse(error: unknown): DevResponse {
  if (error instanceof ServiceError) {
    return { status: error.status, body: { errors: [...error.errors] } };
  }
  if (error instanceof HttpProtocolError) return { status: error.status, body: { errors: [error.message] } };
  const message = error instanceof Error ? error.message : String(error);
  return { status: 500, body: { errors: [`internal error: ${message}`] } };
}

function noHandler(path: string): ServiceError {
  return new ServiceError(404, [`no handler for route "${path}"`]);
}

/** `rest` when `path` is `prefix` ('') or starts with `prefix/`; undefined otherwise. */
function matchPrefix(path: string, prefix: string): string | undefined {
  if (path === prefix) return '';
  if (path.startsWith(`${prefix}/`)) return path.slice(prefix.length + 1);
  return undefined;
}

interface Target {
  underV1: boolean;
  path: string;
  query: string;
}

function splitTarget(raw: string): Target {
  let target = raw;
  // Absolute-form targets (`http://host/v1/...`), as proxies send them.
  const absolute = /^https?:\/\/[^/]*/i.exec(target);
  if (absolute) target = target.slice(absolute[0].length) || '/';
  const questionMark = target.indexOf('?');
  const pathPart = questionMark < 0 ? target : target.slice(0, questionMark);
  const query = questionMark < 0 ? '' : target.slice(questionMark + 1);
  if (pathPart !== '/v1' && !pathPart.startsWith('/v1/')) return { underV1: false, path: pathPart, query };
  return { underV1: true, path: pathPart.slice('/v1'.length), query };
}

function decodePath(raw: string): { path: string; trailingSlash: boolean } {
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new ServiceError(400, [`invalid URL escape in path "${raw}"`]);
  }
  const trailingSlash = decoded.length > 1 && decoded.endsWith('/');
  return { path: decoded.replace(/^\/+|\/+$/g, ''), trailingSlash };
}

function isTrue(value: string | null): boolean {
  return value !== null && ['1', 't', 'true'].includes(value.toLowerCase());
}
