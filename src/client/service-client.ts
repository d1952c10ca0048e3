import { setTimeout as sleepFor } from 'node:timers/promises';
import { Pool } from 'undici';
import type { ClientConfig, ClientConfigError } from './config';
import { loadClientConfig } from './config';
import {
  ServiceClientError,
  connectionError,
  invalidResponseError,
  statusError,
  timeoutError,
  tlsError,
} from './errors';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, decideRetry } from './retry';
import {
  type JsonObject,
  type ShapeResult,
  errorsOf,
  listFromBody,
  objectFromBody,
  parseJsonText,
  payloadOf,
  warningsOf,
} from './response-shapes';

export const DEFAULT_TIMEOUT_MS = 30_000;
/** Matches the engine's default --parallelism (10): one connection per request in flight. */
export const DEFAULT_MAX_CONNECTIONS = 10;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 30_000;

export interface ServiceClientOptions {
  retry?: Partial<RetryPolicy>;
  /** Whole-request limit (connect, send, headers and body), per attempt. */
  timeoutMs?: number;
  /** Connections kept open to the service; size it to the number of requests run in parallel. */
  maxConnections?: number;
  /** How long an idle connection stays open for reuse (the server's Keep-Alive hint may shorten it). */
  keepAliveTimeoutMs?: number;
  /** Injected in unit tests to avoid real waits. */
  sleep?: (ms: number) => Promise<void>;
  /** [0, 1), for the backoff jitter. */
  random?: () => number;
  now?: () => number;
}

export type QueryValue = string | number | boolean;
export type Query = Record<string, QueryValue | undefined>;

export interface RequestOptions {
  /** Sent as JSON. */
  body?: unknown;
  query?: Query;
  /**
   * The write may be repeated safely (a "set" of a configuration or role). Only then are POST and PATCH
   * retried after a response was possibly processed. Never mark rotate-root, check-out or creds.
   */
  idempotent?: boolean;
  contentType?: string;
}

export interface WriteOptions {
  idempotent?: boolean;
  query?: Query;
}

export interface ServiceSuccess {
  ok: true;
  status: number;
  /** The envelope's `data`, or the whole body when there is no envelope; `undefined` for an empty body (204). */
  data: unknown;
  /** The parsed body as received. */
  raw: unknown;
  warnings: string[];
}
export interface ServiceFailure {
  ok: false;
  error: ServiceClientError;
}
export type ServiceResult = ServiceSuccess | ServiceFailure;

export type ReadResult<T> = { ok: true; value: T; warnings: string[] } | ServiceFailure;

export interface ClientStats {
  /** Requests put on the wire, retries included. */
  requests: number;
  /** Of those, the ones that repeated an earlier failed attempt. */
  retries: number;
}

const TLS_ERROR_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'HOSTNAME_MISMATCH',
]);

function isTlsErrorCode(code: string): boolean {
  return TLS_ERROR_CODES.has(code) || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_');
}

type Attempt =
  | { kind: 'response'; status: number; retryAfter?: string; text: string }
  | { kind: 'timeout' }
  | { kind: 'error'; code: string; message: string };

/**
 * The HTTP client for the service. One undici Pool per client keeps connections alive and reuses them;
 * every call returns a result value, never throws for an HTTP or network failure. Paths are relative to
 * `/v1/` and given unencoded (each segment is percent-encoded here; `/` separates segments).
 */
export class ServiceClient {
  readonly address: string;
  readonly #config: ClientConfig;
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;
  readonly #now: () => number;
  readonly #stats: ClientStats = { requests: 0, retries: 0 };

  constructor(config: ClientConfig, options: ServiceClientOptions = {}) {
    this.#config = config;
    this.address = config.address;
    const url = new URL(config.address);
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    if (!Number.isInteger(this.#retry.maxAttempts) || this.#retry.maxAttempts < 1) {
      throw new RangeError(`retry.maxAttempts must be an integer >= 1, got ${this.#retry.maxAttempts}`);
    }
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#sleep = options.sleep ?? ((ms) => sleepFor(ms));
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? Date.now;
    const tls = url.protocol === 'https:'
      ? { ca: config.tls.ca, cert: config.tls.cert, key: config.tls.key, rejectUnauthorized: config.tls.rejectUnauthorized }
      : {};
    this.#pool = new Pool(url.origin, {
      connections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS,
      connect: tls,
    });
  }

  /** A client from SERVICE_* environment variables; a bad variable comes back as the config error. */
  static fromEnv(
    env: Record<string, string | undefined> = process.env,
    options: ServiceClientOptions = {},
  ): { ok: true; client: ServiceClient } | { ok: false; error: ClientConfigError } {
    const loaded = loadClientConfig(env);
    if (!loaded.ok) return loaded;
    return { ok: true, client: new ServiceClient(loaded.config, options) };
  }

  stats(): ClientStats {
    return { ...this.#stats };
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  get(path: string, query?: Query): Promise<ServiceResult> {
    return this.request('GET', path, { query });
  }

  /** Sends the `LIST` method. A 404 here is the server's "empty"; `readList` turns it into `[]`. */
  list(path: string): Promise<ServiceResult> {
    return this.request('LIST', path);
  }

  post(path: string, body?: unknown, options: WriteOptions = {}): Promise<ServiceResult> {
    return this.request('POST', path, { body, ...options });
  }

  /** JSON merge patch (`application/merge-patch+json`, as `PATCH sys/sync/config` requires). */
  patch(path: string, body: unknown, options: WriteOptions = {}): Promise<ServiceResult> {
    return this.request('PATCH', path, { body, contentType: 'application/merge-patch+json', ...options });
  }

  delete(path: string, query?: Query): Promise<ServiceResult> {
    return this.request('DELETE', path, { query });
  }

  /** The object at `path` (envelope `data` or a top-level object); `undefined` when the server answers 404. */
  async readObject(path: string, query?: Query): Promise<ReadResult<JsonObject | undefined>> {
    const result = await this.get(path, query);
    if (!result.ok) return result.error.status === 404 ? { ok: true, value: undefined, warnings: [] } : result;
    return this.#shaped('GET', path, result, objectFromBody(result.raw));
  }

  /** The names under `path` (a bare array or envelope `data.keys`); `[]` when the server answers 404. */
  async readList(path: string): Promise<ReadResult<string[]>> {
    const result = await this.list(path);
    if (!result.ok) return result.error.status === 404 ? { ok: true, value: [], warnings: [] } : result;
    return this.#shaped('LIST', path, result, listFromBody(result.raw));
  }

  #shaped<T>(method: string, path: string, result: ServiceSuccess, shape: ShapeResult<T>): ReadResult<T> {
    if (!shape.ok) return { ok: false, error: invalidResponseError(method, this.#displayPath(path), result.status, shape.detail) };
    return { ok: true, value: shape.value, warnings: result.warnings };
  }

  /** Any method; retried per the retry policy (see retry.ts). */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<ServiceResult> {
    const upperMethod = method.toUpperCase();
    const displayPath = this.#displayPath(path);
    const wirePath = this.#wirePath(path, options.query);
    const headers: Record<string, string> = { accept: 'application/json', 'user-agent': 'secretform' };
    const token = this.#config.token?.reveal();
    if (token !== undefined) headers['x-service-token'] = token;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = options.contentType ?? 'application/json';
    }

    for (let attempts = 1; ; attempts++) {
      this.#stats.requests++;
      if (attempts > 1) this.#stats.retries++;
      const attempt = await this.#attempt(upperMethod, wirePath, headers, body);

      if (attempt.kind === 'timeout') return { ok: false, error: timeoutError(upperMethod, displayPath, this.#timeoutMs, attempts) };
      if (attempt.kind === 'error' && isTlsErrorCode(attempt.code)) {
        return { ok: false, error: tlsError(upperMethod, displayPath, this.address, attempt.code, attempt.message) };
      }
      if (attempt.kind === 'response' && attempt.status < 400) return this.#success(upperMethod, displayPath, attempt);

      const decision = decideRetry(
        {
          method: upperMethod,
          idempotent: options.idempotent === true,
          attempts,
          outcome: attempt.kind === 'response'
            ? { kind: 'status', status: attempt.status, retryAfter: attempt.retryAfter }
            : { kind: 'error', code: attempt.code },
        },
        this.#retry,
        this.#now(),
        this.#random,
      );
      if (decision.retry) {
        await this.#sleep(decision.delayMs);
        continue;
      }

      if (attempt.kind === 'error') {
        return { ok: false, error: connectionError(upperMethod, displayPath, this.address, attempt.code, attempts) };
      }
      const parsed = parseJsonText(attempt.text);
      const serverErrors = parsed.ok ? errorsOf(parsed.value).map((message) => this.#redact(message)) : [];
      const error = statusError(upperMethod, displayPath, attempt.status, serverErrors, attempts);
      if (decision.reason === 'retry_after_too_long' && decision.retryAfterMs !== undefined) {
        error.message += ` The server asked to wait ${Math.ceil(decision.retryAfterMs / 1000)} s before retrying, longer than the ${this.#retry.maxRetryAfterMs / 1000} s this client waits.`;
      }
      return { ok: false, error };
    }
  }

  #success(method: string, displayPath: string, attempt: Extract<Attempt, { kind: 'response' }>): ServiceResult {
    const parsed = parseJsonText(attempt.text);
    if (!parsed.ok) return { ok: false, error: invalidResponseError(method, displayPath, attempt.status, parsed.detail) };
    return { ok: true, status: attempt.status, data: payloadOf(parsed.value), raw: parsed.value, warnings: warningsOf(parsed.value) };
  }

  async #attempt(method: string, path: string, headers: Record<string, string>, body: string | undefined): Promise<Attempt> {
    const timedOut = new Error('request timeout');
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(timedOut), this.#timeoutMs);
    try {
      const response = await this.#pool.request({ method, path, headers, body, signal: controller.signal });
      // Reading the whole body also hands the connection back to the pool for reuse.
      const text = await response.body.text();
      const retryAfter = response.headers['retry-after'];
      return {
        kind: 'response',
        status: response.statusCode,
        retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
        text,
      };
    } catch (error) {
      if (error === timedOut || controller.signal.aborted) return { kind: 'timeout' };
      const failure = error as NodeJS.ErrnoException;
      return { kind: 'error', code: failure.code ?? failure.name ?? 'UNKNOWN', message: failure.message };
    } finally {
      clearTimeout(timer);
    }
  }

  #displayPath(path: string): string {
    return `${this.#basePath}/v1/${path.replace(/^\/+/, '')}`;
  }

  #wirePath(path: string, query: Query | undefined): string {
    const encoded = path.replace(/^\/+/, '').split('/').map((segment) => encodeURIComponent(segment)).join('/');
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) params.set(name, String(value));
    }
    const search = params.toString();
    return `${this.#basePath}/v1/${encoded}${search === '' ? '' : `?${search}`}`;
  }

  /** Servers do not echo the token, but a proxy or a faulty server might: never pass it on. */
  #redact(message: string): string {
    const token = this.#config.token?.reveal();
    return token === undefined ? message : message.split(token).join('[redacted]');
  }
}
