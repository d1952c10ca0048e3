import type { Dispatcher } from 'undici';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { poolRequest, type Pool } from './undici-pool';
import { newPool, type PoolSettings, type SharedPools } from './shared-pools';
import type { ClientConfig, ClientConfigError } from './config';
import { loadClientConfig } from './config';
import {
  ServiceClientError,
  clientCertificateError,
  connectionError,
  deadlineError,
  invalidPathError,
  methodRefusedError,
  invalidResponseError,
  notTlsError,
  redirectError,
  responseTooLargeError,
  statusError,
  timeoutError,
  tlsError,
  renameSettings,
  runFailureHeadline,
} from './errors';
import { decideRedirect } from './redirects';
import { checkedPathProblem, encodeSegments, isPlainPath } from './request-path';
import { SecretScrubber } from './secret-scrubber';
import { RequestDeadlines } from './request-deadlines';
import { isClientCertificateAlert, probeClientCertificateRequired } from './tls-probe';
import { DEFAULT_RETRY_POLICY, type RetryPolicy, decideRetry, isAskedToWait } from './retry';
import type { RequestBudget } from './request-budget';
import type { RunDeadline } from './run-deadline';
import {
  type JsonObject,
  type ShapeResult,
  errorsOf,
  isJsonObject,
  listFromBody,
  objectFromBody,
  parseJsonText,
  payloadOf,
  warningsOf,
} from './response-shapes';

export const DEFAULT_TIMEOUT_MS = 30_000;
/** Matches the engine's default --parallelism (10): one connection per request in flight. */
export const DEFAULT_MAX_CONNECTIONS = 10;
/** Attempts of one request that ends in a connect timeout before the server ever answered (each waits 10 s). */
const CONNECT_TIMEOUT_ATTEMPTS_BEFORE_ANY_ANSWER = 2;
/** Request timeouts in a row, with no response in between, after which the server is taken as hung. */
const TIMEOUTS_IN_A_ROW_FOR_RUN_FAILURE = 3;
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 30_000;
/**
 * The largest response body the client reads. The service's largest answers are listings (names of roles,
 * users, mounts, associations): 32 MiB holds half a million 64-character names, far beyond any deployment, while
 * a run that reads ten such bodies at once (the default parallelism) stays well under a gigabyte.
 */
export const DEFAULT_MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export interface ServiceClientOptions {
  retry?: Partial<RetryPolicy>;
  /** Whole-request limit (connect, send, headers and body), per attempt. */
  timeoutMs?: number;
  /** Limit for opening a connection, TLS handshake included (undici's default: 10 s). */
  connectTimeoutMs?: number;
  /** Connections kept open to the service; size it to the number of requests run in parallel. */
  maxConnections?: number;
  /** How long an idle connection stays open for reuse (the server's Keep-Alive hint may shorten it). */
  keepAliveTimeoutMs?: number;
  /** Injected in unit tests to avoid real waits. */
  sleep?: (ms: number) => Promise<void>;
  /** [0, 1), for the backoff jitter. */
  random?: () => number;
  now?: () => number;
  /**
   * After a failure that concerns the whole run (wrong token, service unreachable, TLS; see RunFailureCause),
   * send nothing more: every later call fails at once with that same error. Requests in flight finish.
   * The engine sets it for a run; a long-lived client in other code would not want it.
   */
  stopAfterRunFailure?: boolean;
  /** Secret values to remove from any server text this client returns (the token is always removed). */
  secrets?: Iterable<string>;
  /** Response bodies larger than this fail the request, and reading stops there (default DEFAULT_MAX_RESPONSE_BYTES). */
  maxResponseBytes?: number;
  /**
   * The only methods this client sends (upper case), e.g. `['GET', 'LIST']` for a read-only run: any other is
   * refused inside the process, before anything is sent (`method_refused`). Default: every method.
   */
  allowedMethods?: readonly string[];
  /**
   * The requests in flight this client may have, shared with the run's other clients of the same server
   * (request-budget.ts); default: a budget of `maxConnections` of its own (its pool's connections bound it anyway).
   */
  budget?: RequestBudget;
  /**
   * The run's deadline (run-deadline.ts): no request is sent or retried after it, and a 429 (or 503 with a
   * Retry-After) is retried after the time asked as often as the server asks within it. Default: none, and
   * `retry.maxAttempts` bounds every retry.
   */
  deadline?: RunDeadline;
  /**
   * The run's connection pools (shared-pools.ts): this client takes its server's pool from there, shared with
   * the run's other clients of the same server and settings, and gives it back on `close`. Default: pools of
   * its own.
   */
  pools?: SharedPools;
}

/** Denials in a row, with no request ever accepted, after which a plain "permission denied" means a bad token. */
export const DENIALS_BEFORE_AUTHENTICATION_FAILURE = 5;

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
  /** Sent without the service token (userpass login is called without one). */
  anonymous?: boolean;
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

/** What a TLS client reports when the server answered its handshake in plain HTTP. */
const NOT_TLS_ERROR_CODES = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST']);
/** The connection ended without an answer: on https without a client certificate, maybe the server wants one. */
const CLOSED_ERROR_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

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
  | { kind: 'response'; status: number; retryAfter?: string; location?: string; text: string }
  | { kind: 'redirect'; status: number; location?: string; reason: string }
  | { kind: 'timeout' }
  | { kind: 'too_large'; status: number }
  /** The run's deadline passed while the request waited for a slot of its server's budget: it was not sent. */
  | { kind: 'past_deadline' }
  /** `redirectedTo`: the origin that failed, when a followed redirect led away from SERVICE_ADDR's. */
  | { kind: 'error'; code: string; message: string; redirectedTo?: string };

/**
 * The reason a request is aborted with when its time is up. One value for every request: an Error made per
 * request captured a stack trace each time (about 20 us, a fifth of the client's own time per request).
 */
const REQUEST_TIMED_OUT = new Error('request timeout');

/**
 * The HTTP client for the service. One undici Pool per client keeps connections alive and reuses them;
 * every call returns a result value, never throws for an HTTP or network failure. Paths are relative to
 * `/v1/` and given unencoded (each segment is percent-encoded here; `/` separates segments).
 */
export class ServiceClient {
  readonly address: string;
  readonly #config: ClientConfig;
  readonly #url: URL;
  readonly #maxConnections: number;
  readonly #keepAliveTimeoutMs: number;
  /** One pool per origin: SERVICE_ADDR's, and its https form if the server redirects there. */
  readonly #pools = new Map<string, Pool>();
  readonly #basePath: string;
  readonly #scrubber = new SecretScrubber();
  /** The start of a body that is not JSON, as a message may quote it: made once, not a closure per answer. */
  readonly #quotedBodyStart = (start: string): string => this.#scrubber.scrubServerText(start, 60);
  readonly #stopAfterRunFailure: boolean;
  #runFailure: ServiceClientError | undefined;
  #accepted = 0;
  #denied = 0;
  /** HTTP responses of any status received so far: a timeout before the first one concerns the whole run. */
  #answered = 0;
  /** Timeouts since the last response: a server that stopped answering mid-run concerns the whole run too. */
  #timeoutsSinceAnswer = 0;
  #clientCertificateProbe: Promise<string | undefined> | undefined;
  readonly #retry: RetryPolicy;
  readonly #timeoutMs: number;
  readonly #deadlines: RequestDeadlines;
  readonly #maxResponseBytes: number;
  readonly #connectTimeoutMs: number | undefined;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;
  readonly #now: () => number;
  readonly #allowedMethods: readonly string[] | undefined;
  readonly #stats: ClientStats = { requests: 0, retries: 0 };
  readonly #budget: RequestBudget | undefined;
  readonly #deadline: RunDeadline | undefined;
  /** The last answer that asked this client to wait (`HTTP 429 with Retry-After: 1`), for a deadline's message. */
  #lastAskedToWait: string | undefined;
  readonly #sharedPools: SharedPools | undefined;
  /**
   * The headers of a request without a body, with the token and without (anonymous): made once, not per request
   * (undici only reads them). A request with a body gets a copy with its content type.
   */
  readonly #headers: Readonly<Record<string, string>>;
  readonly #anonymousHeaders: Readonly<Record<string, string>> = Object.freeze({ accept: 'application/json', 'user-agent': 'secretform' });
  #closed = false;

  constructor(config: ClientConfig, options: ServiceClientOptions = {}) {
    this.#config = config;
    this.address = config.address;
    const url = new URL(config.address);
    this.#url = url;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    if (!Number.isInteger(this.#retry.maxAttempts) || this.#retry.maxAttempts < 1) {
      throw new RangeError(`retry.maxAttempts must be an integer >= 1, got ${this.#retry.maxAttempts}`);
    }
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#deadlines = new RequestDeadlines(this.#timeoutMs);
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    this.#connectTimeoutMs = options.connectTimeoutMs;
    this.#sleep = options.sleep ?? ((ms) => sleepFor(ms));
    this.#random = options.random ?? Math.random;
    this.#allowedMethods = options.allowedMethods?.map((method) => method.toUpperCase());
    this.#now = options.now ?? Date.now;
    this.#maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
    this.#keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
    this.#stopAfterRunFailure = options.stopAfterRunFailure === true;
    this.#budget = options.budget;
    this.#deadline = options.deadline;
    this.#sharedPools = options.pools;
    const token = config.token?.reveal();
    if (token !== undefined) this.#scrubber.add([token]);
    this.#headers = token === undefined ? this.#anonymousHeaders : Object.freeze({ ...this.#anonymousHeaders, 'x-service-token': token });
    this.#scrubber.add(options.secrets ?? []);
    this.#poolFor(url.origin);
  }

  #poolFor(origin: string): Pool {
    let pool = this.#pools.get(origin);
    if (!pool) {
      const settings: PoolSettings = {
        origin,
        connections: this.#maxConnections,
        keepAliveTimeoutMs: this.#keepAliveTimeoutMs,
        ...(this.#connectTimeoutMs === undefined ? {} : { connectTimeoutMs: this.#connectTimeoutMs }),
        tls: this.#config.tls,
      };
      // A closed client takes no shared pool any more (it would never give it back): its requests fail as closed.
      pool = this.#sharedPools !== undefined && !this.#closed ? this.#sharedPools.acquire(settings) : newPool(settings);
      if (this.#closed) void pool.close();
      this.#pools.set(origin, pool);
    }
    return pool;
  }

  /** Adds secret values to remove from every server text (error messages, warnings) this client returns. */
  addSecrets(values: Iterable<string>): void {
    this.#scrubber.add(values);
  }

  /** The text with the token and every registered secret removed, in any encoding (see secret-scrubber.ts). */
  scrub(text: string): string {
    return this.#scrubber.scrub(text);
  }

  /** Text a server wrote: withheld whole if any decoded form quotes a secret, else scrubbed; length capped. */
  scrubServerText(text: string, maxLength?: number): string {
    return this.#scrubber.scrubServerText(text, maxLength);
  }

  /** The failure that stopped this client (only with `stopAfterRunFailure`). */
  runFailure(): ServiceClientError | undefined {
    return this.#runFailure;
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
    const shared = this.#sharedPools;
    if (shared === undefined) {
      await Promise.all([...this.#pools.values()].map((pool) => pool.close()));
      return;
    }
    // Given back once: a second close must not count this client out of its pools again.
    if (this.#closed) return;
    this.#closed = true;
    await Promise.all([...this.#pools.values()].map((pool) => shared.release(pool)));
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
    if (!shape.ok) {
      const error = invalidResponseError(method, this.displayPath(path), result.status, shape.detail);
      error.message = renameSettings(error.message, this.#config.settingNames);
      return { ok: false, error };
    }
    return { ok: true, value: shape.value, warnings: result.warnings };
  }

  /** Any method; retried per the retry policy (see retry.ts). Redirects: see redirects.ts. */
  async request(method: string, path: string, options: RequestOptions = {}): Promise<ServiceResult> {
    const upperMethod = method.toUpperCase();
    // One test of the path per request: a plain path (nearly all) has nothing to refuse and nothing to encode.
    const plain = isPlainPath(path);
    const problem = plain ? undefined : checkedPathProblem(path);
    if (problem !== undefined) return this.#finish({ ok: false, error: invalidPathError(upperMethod, path, problem) });
    // A read-only client refuses a write here, before the token or a body is even looked at.
    if (this.#allowedMethods !== undefined && !this.#allowedMethods.includes(upperMethod)) {
      return { ok: false, error: methodRefusedError(upperMethod, this.displayPath(path), this.#allowedMethods) };
    }
    if (this.#runFailure) return { ok: false, error: this.#runFailure };
    // The path as errors show it (`this.displayPath(path)`) is made only when one does: most answers have none.
    const wirePath = this.#wirePath(plain ? path : encodeSegments(path), options.query);
    let headers = options.anonymous === true ? this.#anonymousHeaders : this.#headers;
    let body: string | undefined;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers = { ...headers, 'content-type': options.contentType ?? 'application/json' };
    }

    for (let attempts = 1; ; attempts++) {
      // Another call found the run broken while this one waited to retry: stop here too.
      if (attempts > 1 && this.#runFailure) return { ok: false, error: this.#runFailure };
      if (attempts > 1) this.#stats.retries++;
      if (this.#deadline?.passed() === true) return this.#finish({ ok: false, error: this.#pastDeadline(upperMethod, this.displayPath(path), attempts - 1) });
      // The first attempt goes to SERVICE_ADDR's origin as is; only a redirect costs another step (and a URL).
      const first = await this.#attempt(this.#url.origin, upperMethod, wirePath, headers, body);
      const attempt = isRedirect(first) ? await this.#followRedirects(first, upperMethod, wirePath, headers, body) : first;

      if (attempt.kind === 'past_deadline') return this.#finish({ ok: false, error: this.#pastDeadline(upperMethod, this.displayPath(path), attempts - 1) });
      if (attempt.kind === 'redirect') {
        return this.#finish({ ok: false, error: redirectError(upperMethod, this.displayPath(path), attempt.status, attempt.location, attempt.reason) });
      }
      if (attempt.kind === 'too_large') {
        // The same request would get the same answer: not retried. The server did answer, so not a run failure.
        return this.#finish({ ok: false, error: responseTooLargeError(upperMethod, this.displayPath(path), attempt.status, this.#maxResponseBytes) });
      }
      if (attempt.kind === 'timeout') {
        const error = timeoutError(upperMethod, this.displayPath(path), this.#timeoutMs, attempts);
        // A server that has answered nothing yet, or stopped answering, would leave every request of the run
        // waiting as long; one slow request after answers is that request's own failure.
        this.#timeoutsSinceAnswer++;
        if (this.#answered === 0 || this.#timeoutsSinceAnswer >= TIMEOUTS_IN_A_ROW_FOR_RUN_FAILURE) error.runFailure = 'not_answering';
        return this.#finish({ ok: false, error });
      }
      if (attempt.kind === 'error') {
        const classified = await this.#classifyConnectionError(upperMethod, this.displayPath(path), attempt);
        if (classified) return this.#finish({ ok: false, error: classified });
        // Each connect timeout (an https server that never completes the handshake, or no SYN-ACK) has
        // already waited undici's 10 s: with no answer ever seen, one retry is enough to call it unreachable.
        if (attempt.code === 'UND_ERR_CONNECT_TIMEOUT' && this.#answered === 0 && attempts >= CONNECT_TIMEOUT_ATTEMPTS_BEFORE_ANY_ANSWER) {
          return this.#finish({ ok: false, error: connectionError(upperMethod, this.displayPath(path), this.#whereFailed(attempt), attempt.code, attempts) });
        }
      }
      if (attempt.kind === 'response') {
        if (attempt.status !== 401 && attempt.status !== 403) this.#accepted++;
        if (attempt.status >= 200 && attempt.status < 300) return this.#finish(this.#success(upperMethod, path, attempt, body !== undefined));
      }

      const outcome = attempt.kind === 'response'
        ? { kind: 'status' as const, status: attempt.status, retryAfter: attempt.retryAfter }
        : { kind: 'error' as const, code: attempt.code };
      if (isAskedToWait(outcome) && attempt.kind === 'response') {
        // The server's own words about when to come back: a header, never a secret, but capped and scrubbed all the same.
        const retryAfter = attempt.retryAfter === undefined ? '' : ` with Retry-After: ${this.#scrubber.scrubServerText(attempt.retryAfter, 40)}`;
        this.#lastAskedToWait = `HTTP ${attempt.status}${retryAfter}`;
      }
      const decision = decideRetry(
        { method: upperMethod, idempotent: options.idempotent === true, attempts, outcome, untilDeadlineMs: this.#deadline?.remainingMs() },
        this.#retry,
        this.#now(),
        this.#random,
      );
      if (decision.retry) {
        await this.#sleep(decision.delayMs);
        continue;
      }
      if (decision.reason === 'past_deadline') return this.#finish({ ok: false, error: this.#pastDeadline(upperMethod, this.displayPath(path), attempts) });

      if (attempt.kind === 'error') {
        return this.#finish({ ok: false, error: connectionError(upperMethod, this.displayPath(path), this.#whereFailed(attempt), attempt.code, attempts) });
      }
      const parsed = parseJsonText(attempt.text);
      // Only the service's own error strings are shown, each decoded and checked for secrets (secret-scrubber.ts).
      const serverErrors = parsed.ok ? errorsOf(parsed.value).map((text) => this.#scrubber.scrubServerText(text)) : [];
      const serviceErrorBody = parsed.ok && isJsonObject(parsed.value) && Array.isArray(parsed.value.errors);
      const error = statusError(upperMethod, this.displayPath(path), attempt.status, serverErrors, attempts, serviceErrorBody);
      if (decision.reason === 'retry_after_too_long' && decision.retryAfterMs !== undefined) {
        error.message += ` The server asked to wait ${Math.ceil(decision.retryAfterMs / 1000)} s before retrying, longer than the ${this.#retry.maxRetryAfterMs / 1000} s this client waits.`;
      }
      this.#classifyDenial(error);
      return this.#finish({ ok: false, error });
    }
  }

  /**
   * 401, a 403 that says "invalid token", or any 403 without a token, concern the whole run; so does a plain
   * "permission denied" once several requests in a row got one and none was ever accepted (servers that do not
   * say "invalid token"). A denial after accepted requests is about that path's policy: the resource's own error.
   */
  #classifyDenial(error: ServiceClientError): void {
    if (error.code !== 'permission_denied') return;
    this.#denied++;
    const said = error.errors.join(' ').toLowerCase();
    const badToken = error.status === 401 || this.#config.token === undefined || said.includes('invalid token') || said.includes('token expired');
    if (badToken || (this.#accepted === 0 && this.#denied >= DENIALS_BEFORE_AUTHENTICATION_FAILURE)) error.runFailure = 'authentication';
  }

  /** TLS failures, https on a plain-http server, a missing client certificate; undefined for plain connection errors. */
  async #classifyConnectionError(method: string, displayPath: string, attempt: Extract<Attempt, { kind: 'error' }>): Promise<ServiceClientError | undefined> {
    const { code, message } = attempt;
    const where = this.#whereFailed(attempt);
    if (NOT_TLS_ERROR_CODES.has(code) || /wrong version number/i.test(message)) return notTlsError(method, displayPath, where, code);
    if (isClientCertificateAlert(code)) return clientCertificateError(method, displayPath, where, code);
    if (isTlsErrorCode(code)) return tlsError(method, displayPath, where, code, message);
    if (CLOSED_ERROR_CODES.has(code) && this.#url.protocol === 'https:' && this.#config.tls.cert === undefined) {
      this.#clientCertificateProbe ??= probeClientCertificateRequired({
        url: this.#url,
        ca: this.#config.tls.ca,
        rejectUnauthorized: this.#config.tls.rejectUnauthorized,
      });
      const alert = await this.#clientCertificateProbe;
      if (alert !== undefined) return clientCertificateError(method, displayPath, this.address, alert);
    }
    return undefined;
  }

  /** The address a connection failed at: SERVICE_ADDR, or the target a redirect led to (named with where from). */
  #whereFailed(attempt: Extract<Attempt, { kind: 'error' }>): string {
    return attempt.redirectedTo === undefined ? this.address : `${attempt.redirectedTo} (the redirect target of ${this.address})`;
  }

  /** The run's deadline ended this request (after `attempts` sent): the error names the server and its last "wait". */
  #pastDeadline(method: string, displayPath: string, attempts: number): ServiceClientError {
    return deadlineError(method, displayPath, this.address, this.#deadline!.label, this.#lastAskedToWait, attempts);
  }

  /** Scrubs server text out of secrets, and latches a run-level failure. */
  #finish(result: ServiceResult): ServiceResult {
    if (result.ok) {
      // Nearly every answer has no warning: returned as is, without a copy.
      return result.warnings.length === 0 ? result : { ...result, warnings: result.warnings.map((warning) => this.#scrubber.scrubServerText(warning)) };
    }
    const { error } = result;
    const names = this.#config.settingNames;
    error.message = renameSettings(this.scrub(error.message), names);
    if (error.runFailure !== undefined && names !== undefined) error.headline = renameSettings(runFailureHeadline(error.runFailure), names);
    error.errors = error.errors.map((text) => this.scrub(text));
    if (error.runFailure !== undefined && this.#stopAfterRunFailure && this.#runFailure === undefined) this.#runFailure = error;
    return result;
  }

  /** Follows the redirects redirects.ts allows from the first answer, `attempt`; a refused one comes back as `redirect`. */
  async #followRedirects(first: Extract<Attempt, { kind: 'response' }>, method: string, wirePath: string, headers: Readonly<Record<string, string>>, body: string | undefined): Promise<Attempt> {
    let attempt = first;
    let url = new URL(wirePath, this.#url.origin);
    const visited = [url.href];
    for (;;) {
      const location = attempt.location === undefined ? undefined : this.#scrubber.scrubServerText(attempt.location, 200);
      const decision = decideRedirect({ status: attempt.status, location: attempt.location, current: url, visited });
      if (!decision.follow) return { kind: 'redirect', status: attempt.status, location, reason: decision.reason };
      url = decision.url;
      visited.push(url.href);
      const next = await this.#attempt(url.origin, method, `${url.pathname}${url.search}`, headers, body);
      if (next.kind === 'error' && url.origin !== this.#url.origin) return { ...next, redirectedTo: url.origin };
      if (!isRedirect(next)) return next;
      attempt = next;
    }
  }

  /** A body that is not JSON is quoted (scrubbed) only for a request that sent none: a server may echo what it got. */
  #success(method: string, path: string, attempt: Extract<Attempt, { kind: 'response' }>, sentBody: boolean): ServiceResult {
    const parsed = parseJsonText(attempt.text, sentBody ? undefined : this.#quotedBodyStart);
    if (!parsed.ok) return { ok: false, error: invalidResponseError(method, this.displayPath(path), attempt.status, parsed.detail) };
    return { ok: true, status: attempt.status, data: payloadOf(parsed.value), raw: parsed.value, warnings: warningsOf(parsed.value) };
  }

  async #attempt(origin: string, method: string, path: string, headers: Readonly<Record<string, string>>, body: string | undefined): Promise<Attempt> {
    // A slot of the server's budget, held while the request is on the wire; its time limit starts once it has one.
    const waiting = this.#budget?.take();
    if (waiting !== undefined) {
      await waiting;
      if (this.#deadline?.passed() === true) {
        this.#budget!.give();
        return { kind: 'past_deadline' };
      }
    }
    this.#stats.requests++;
    const deadline = this.#deadlines.start(REQUEST_TIMED_OUT);
    try {
      const response = await poolRequest(this.#poolFor(origin), { method, path, headers, body, signal: deadline });
      this.#answered++;
      this.#timeoutsSinceAnswer = 0;
      // Reading the whole body also hands the connection back to the pool for reuse.
      const text = await readBounded(response.body, this.#maxResponseBytes, Number(headerOf(response.headers, 'content-length')));
      if (text === undefined) return { kind: 'too_large', status: response.statusCode };
      return { kind: 'response', status: response.statusCode, retryAfter: headerOf(response.headers, 'retry-after'), location: headerOf(response.headers, 'location'), text };
    } catch (error) {
      if (error === REQUEST_TIMED_OUT || deadline.aborted) return { kind: 'timeout' };
      const failure = error as NodeJS.ErrnoException;
      return { kind: 'error', code: failure.code ?? failure.name ?? 'UNKNOWN', message: failure.message };
    } finally {
      this.#deadlines.end(deadline);
      this.#budget?.give();
    }
  }

  /** The path of a request as reports show it (`<SERVICE_ADDR path>/v1/<path>`), e.g. `/v1/sys/mounts`. */
  displayPath(path: string): string {
    return `${this.#basePath}/v1/${path.replace(/^\/+/, '')}`;
  }

  /** The request target of a path already encoded (`encodeSegments`, or a plain path as it is) and its query. */
  #wirePath(encoded: string, query: Query | undefined): string {
    let search = '';
    if (query !== undefined) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) {
        if (value !== undefined) params.set(name, String(value));
      }
      search = params.toString();
    }
    return `${this.#basePath}/v1/${encoded}${search === '' ? '' : `?${search}`}`;
  }
}

/** A response header's value (the first, when it came several times). */
function headerOf(headers: Dispatcher.ResponseData['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function isRedirect(attempt: Attempt): attempt is Extract<Attempt, { kind: 'response' }> {
  return attempt.kind === 'response' && attempt.status >= 300 && attempt.status < 400;
}

/**
 * The body as text, or undefined when it is larger than `maxBytes` (declared so, or found so while reading): then
 * reading stops and the connection is closed, so memory holds at most `maxBytes` of it.
 */
function readBounded(body: Dispatcher.ResponseData['body'], maxBytes: number, declaredBytes: number): Promise<string | undefined> {
  if (Number.isFinite(declaredBytes) && declaredBytes > maxBytes) return Promise.resolve(stopReading(body));
  // A declared length frames the body (HTTP/1.1 reads no byte past it): within the limit, undici reads it whole,
  // which costs less per response than iterating the stream (and than a function of ours awaiting it).
  if (Number.isFinite(declaredBytes)) return body.text();
  return readChunks(body, maxBytes);
}

/** Stops reading a body that is too large: the connection is closed. */
function stopReading(body: Dispatcher.ResponseData['body']): undefined {
  // The abort that closes the connection is reported on the stream: expected here, nothing to handle.
  body.on('error', () => undefined);
  body.destroy();
  return undefined;
}

/** A body without a declared length, read chunk by chunk up to `maxBytes`. */
async function readChunks(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    if (size > maxBytes) return stopReading(body);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}
