/**
 * Errors of the service client. Each has a stable `code` for programs and a message for people that says
 * what went wrong and how to fix it. Neither ever holds the token or a request body.
 */
export type ServiceClientErrorCode =
  | 'bad_request' // 400: the server rejected the values sent
  | 'permission_denied' // 401/403: missing, invalid or insufficient token
  | 'not_found' // 404 where absence is an error (writes, deletes, plain requests)
  | 'method_not_allowed' // 405
  | 'unsupported_media_type' // 415
  | 'rate_limited' // 429 after all retries
  | 'server_error' // 500, 501 and other 5xx that are not availability problems
  | 'unavailable' // 502, 503, 504 after all retries
  | 'http_error' // any other status >= 400
  | 'connection' // refused, reset, closed, DNS failure
  | 'tls' // certificate verification or handshake failure
  | 'timeout' // no complete response within the request timeout
  | 'invalid_response' // a body that is not JSON or not the expected shape
  | 'response_too_large' // a body larger than the client reads (see DEFAULT_MAX_RESPONSE_BYTES)
  | 'redirect' // a 3xx that is not followed (see redirects.ts), a redirect loop or too many hops
  | 'invalid_path' // a path the client refuses to send (dot or empty segment, control character)
  | 'method_refused' // a method the client was made to refuse (a read-only client: only GET and LIST)
  | 'not_tls' // SERVICE_ADDR says https, but the server answered in plain HTTP
  | 'client_certificate_required' // the server asked for a client certificate and none was configured
  | 'deadline'; // the run's deadline (--timeout) passed, or a wait the server asked for would end after it

/**
 * Failures that concern the whole run rather than one request: every other request would fail the same way,
 * so a run stops at the first one and reports it once.
 */
export type RunFailureCause =
  | 'authentication' // the token is wrong, expired or revoked (or missing)
  | 'unreachable' // connection refused, reset or closed, name not resolved
  | 'certificate' // the server's certificate cannot be verified, or the TLS handshake failed
  | 'client_certificate_required'
  | 'not_tls'
  | 'redirected' // a redirect the client does not follow: SERVICE_ADDR points at a standby node or a proxy
  | 'not_answering' // connections open but no request of the run was ever answered in time
  | 'deadline'; // the run's deadline passed: no request may be sent or retried any more

export interface ServiceClientErrorDetails {
  code: ServiceClientErrorCode;
  method: string;
  /** The request path as sent, e.g. `/v1/ldap/config`. */
  path: string;
  /** HTTP status, when a response arrived. */
  status?: number;
  /** The server's `errors` messages, as sent. */
  errors?: string[];
  /** The body was the service's own error answer, a JSON object with an `errors` array (see `ServiceClientError`). */
  serviceErrorBody?: boolean;
  /** Requests sent for this call, retries included. */
  attempts?: number;
  /** The low-level error code (ECONNREFUSED, UND_ERR_SOCKET, CERT_HAS_EXPIRED, ...), when there was one. */
  cause?: string;
  /** The redirect target, as the server sent it (Location header). */
  location?: string;
  runFailure?: RunFailureCause;
}

export class ServiceClientError extends Error {
  readonly code: ServiceClientErrorCode;
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  errors: string[];
  /**
   * The body was the service's own error answer (a JSON object with an `errors` array, `{"errors":[]}` for a
   * missing item). A 404 without it (a proxy's HTML page, another server's JSON) says nothing about the path.
   */
  readonly serviceErrorBody: boolean;
  readonly attempts: number;
  readonly causeCode?: string;
  readonly location?: string;
  /** Set when this failure concerns the whole run (see RunFailureCause). */
  runFailure?: RunFailureCause;
  /** The run failure's headline in the words of the client's settings (see `renameSettings`), when they differ. */
  headline?: string;

  constructor(details: ServiceClientErrorDetails, message: string) {
    // A value that says what the service answered, returned far more often than thrown (every 404 of a refresh
    // is one): its stack trace would only show the client's own frames, and capturing it cost about 20 us each.
    const stackTraceLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = stackTraceLimit;
    this.name = 'ServiceClientError';
    this.code = details.code;
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.errors = details.errors ?? [];
    this.serviceErrorBody = details.serviceErrorBody ?? false;
    this.attempts = details.attempts ?? 1;
    this.causeCode = details.cause;
    this.location = details.location;
    this.runFailure = details.runFailure;
  }
}

const RUN_FAILURE_HEADLINES: Record<RunFailureCause, string> = {
  authentication: 'the service refused the token: SERVICE_TOKEN is probably wrong, expired or revoked',
  unreachable: 'the service is down or unreachable at SERVICE_ADDR',
  certificate: 'the TLS connection to the service failed: a certificate problem',
  client_certificate_required:
    'the service requires a client certificate: set SERVICE_CLIENT_CERT and SERVICE_CLIENT_KEY to your certificate and key (PEM files)',
  not_tls: 'SERVICE_ADDR uses https, but the server speaks plain HTTP: use an http:// address or enable TLS on the server',
  redirected:
    'the server at SERVICE_ADDR redirects requests to where this client does not follow (another node, a proxy, or a method-changing redirect): point SERVICE_ADDR at the service itself',
  not_answering:
    'the server at SERVICE_ADDR accepts connections but does not answer requests in time: it is hung or overloaded, or SERVICE_ADDR points at something that is not the service',
  deadline:
    'the run reached its deadline (--timeout) before its requests were done: raise --timeout, or lower --parallelism if the server at SERVICE_ADDR is rate-limiting the run',
};

/** One sentence naming the likely cause of a run-level failure, for the single report of a stopped run. */
export function runFailureHeadline(cause: RunFailureCause): string {
  return RUN_FAILURE_HEADLINES[cause];
}

/** The whole report of a run-level failure: the likely cause, then the request that showed it. */
export function runFailureMessage(error: ServiceClientError): string {
  const headline = error.runFailure === undefined ? 'the service failed' : error.headline ?? runFailureHeadline(error.runFailure);
  return `stopped: ${headline}. No further requests were sent. ${error.message}`;
}

/**
 * A message's names of the SERVICE_* settings replaced by what the settings really are (a ServiceConnection's
 * token variable and props), so that the fix it suggests is the one to make.
 */
export function renameSettings(text: string, names: Readonly<Record<string, string>> | undefined): string {
  if (names === undefined) return text;
  return text.replace(/SERVICE_SKIP_VERIFY=true|SERVICE_[A-Z_]+/g, (name) => names[name] ?? name);
}

export function codeForStatus(status: number): ServiceClientErrorCode {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
    case 403:
      return 'permission_denied';
    case 404:
      return 'not_found';
    case 405:
      return 'method_not_allowed';
    case 415:
      return 'unsupported_media_type';
    case 429:
      return 'rate_limited';
    case 502:
    case 503:
    case 504:
      return 'unavailable';
    default:
      return status >= 500 ? 'server_error' : 'http_error';
  }
}

/**
 * Engines wrap plain errors as "1 error occurred:\n\t* <msg>\n\n"; show the messages, not the wrapping.
 */
export function readableServerMessages(errors: string[]): string[] {
  return errors.flatMap((text) => {
    const items = [...text.matchAll(/^\s*\*\s+(.+)$/gm)].map((match) => match[1].trim());
    return items.length > 0 ? items : [text.trim()];
  }).filter((text) => text !== '');
}

const retriesNote = (attempts: number): string => (attempts > 1 ? ` (after ${attempts} attempts)` : '');

/** An HTTP error status. The message states the server's words and the fix that usually applies. */
export function statusError(method: string, path: string, status: number, errors: string[], attempts = 1, serviceErrorBody = false): ServiceClientError {
  const code = codeForStatus(status);
  const said = readableServerMessages(errors);
  const serverSays = said.length > 0 ? `: ${said.join('; ')}` : '';
  const head = `${method} ${path} failed with HTTP ${status}${serverSays}${retriesNote(attempts)}.`;
  const hints: Record<ServiceClientErrorCode, string> = {
    bad_request: 'The server rejected the request; correct the values named in the message.',
    permission_denied:
      'Check SERVICE_TOKEN: it must be set, valid and not expired, and its policies must allow this operation on this path.',
    not_found:
      'Nothing exists at this path; check the mount path and the name (a path without any mount answers "no handler for route").',
    method_not_allowed: `The path does not support ${method}; check that the path names the right kind of object.`,
    unsupported_media_type: 'The server wants a different Content-Type (PATCH needs application/merge-patch+json).',
    rate_limited: 'The server is rate-limiting requests; lower --parallelism or try again later.',
    server_error:
      'The server reported an internal error. Engines also report validation errors this way, so check the values sent; it was not retried because it would fail the same way.',
    unavailable: 'The service is unavailable (sealed, in standby, or behind a failing proxy); check its health and try again.',
    http_error: 'The server refused the request.',
    connection: '',
    tls: '',
    timeout: '',
    invalid_response: '',
    response_too_large: '',
    redirect: '',
    invalid_path: '',
    method_refused: '',
    not_tls: '',
    client_certificate_required: '',
    deadline: '',
  };
  return new ServiceClientError({ code, method, path, status, errors, serviceErrorBody, attempts }, `${head} ${hints[code]}`);
}

const CONNECTION_HINTS: Record<string, string> = {
  ECONNREFUSED: 'nothing is listening there; check SERVICE_ADDR and that the service is running',
  ENOTFOUND: 'the host name does not resolve; check SERVICE_ADDR',
  EAI_AGAIN: 'the host name could not be resolved right now; check DNS and SERVICE_ADDR',
  ECONNRESET: 'the connection was reset; check the service and any proxy in between',
  UND_ERR_SOCKET: 'the server closed the connection; check the service and any proxy in between',
  UND_ERR_CONNECT_TIMEOUT: 'the connection could not be opened in time; check SERVICE_ADDR and the network',
  EPIPE: 'the connection was closed while sending; check the service and any proxy in between',
};

export function connectionError(method: string, path: string, address: string, cause: string, attempts = 1): ServiceClientError {
  const hint = CONNECTION_HINTS[cause] ?? 'check SERVICE_ADDR, the network and that the service is running';
  return new ServiceClientError(
    { code: 'connection', method, path, attempts, cause, runFailure: 'unreachable' },
    `${method} ${path} could not reach the service at ${address} (${cause})${retriesNote(attempts)}: ${hint}.`,
  );
}

export function tlsError(method: string, path: string, address: string, cause: string, detail: string): ServiceClientError {
  return new ServiceClientError(
    { code: 'tls', method, path, cause, runFailure: 'certificate' },
    `${method} ${path}: TLS with ${address} failed (${cause}: ${detail}). If the service uses a private CA, set ` +
      `SERVICE_CACERT to its PEM file; if it asks for a client certificate, set SERVICE_CLIENT_CERT and ` +
      `SERVICE_CLIENT_KEY. SERVICE_SKIP_VERIFY=true turns verification off (testing only).`,
  );
}

export function timeoutError(method: string, path: string, timeoutMs: number, attempts = 1): ServiceClientError {
  return new ServiceClientError(
    { code: 'timeout', method, path, attempts, cause: 'timeout' },
    `${method} ${path} got no complete response within ${timeoutMs / 1000} s${retriesNote(attempts)}; the service ` +
      `may be overloaded or unreachable. Check the service, or raise the request timeout.`,
  );
}

/**
 * The run's deadline ends a request: it passed before the request could be sent, or the wait the server asked
 * for (`lastAnswer`, e.g. `HTTP 429 with Retry-After: 1`) would end after it. Names the server and its answer.
 */
export function deadlineError(method: string, path: string, address: string, deadline: string, lastAnswer: string | undefined, attempts: number): ServiceClientError {
  const answered = lastAnswer === undefined ? '' : ` The server at ${address} last answered ${lastAnswer}${retriesNote(attempts)}.`;
  return new ServiceClientError(
    { code: 'deadline', method, path, attempts, cause: 'deadline', runFailure: 'deadline' },
    `${method} ${path} to ${address} was not done before the run's deadline (${deadline}): no request is sent or retried after it.${answered} ` +
      'Raise --timeout (or try again later) if the server is rate-limiting or busy; lower --parallelism to ask less of it at once.',
  );
}

export function invalidResponseError(method: string, path: string, status: number, detail: string): ServiceClientError {
  return new ServiceClientError(
    { code: 'invalid_response', method, path, status },
    `${method} ${path} returned HTTP ${status} with ${detail}. Check that SERVICE_ADDR points at the secrets service and not at a proxy or another server.`,
  );
}

export function responseTooLargeError(method: string, path: string, status: number, maxBytes: number): ServiceClientError {
  return new ServiceClientError(
    { code: 'response_too_large', method, path, status },
    `${method} ${path} was answered (HTTP ${status}) with a body larger than ${formatBytes(maxBytes)}, the most this client reads ` +
      'of one response; reading stopped there. No answer of the secrets service is that large: check that SERVICE_ADDR points at ' +
      'the service and not at another server or a proxy that adds to its answers.',
  );
}

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

export function redirectError(method: string, path: string, status: number, location: string | undefined, reason: string): ServiceClientError {
  const where = location === undefined ? 'without a Location header' : `to ${JSON.stringify(location)}`;
  return new ServiceClientError(
    { code: 'redirect', method, path, status, location, runFailure: 'redirected' },
    `${method} ${path} was answered with HTTP ${status} (redirect ${where}), which is not followed: ${reason}. ` +
      `Nothing was recorded for this request. Point SERVICE_ADDR at the service itself (e.g. the active node, or its https address).`,
  );
}

export function invalidPathError(method: string, path: string, reason: string): ServiceClientError {
  return new ServiceClientError(
    { code: 'invalid_path', method, path },
    `${method} ${JSON.stringify(path)} was not sent: the path ${reason}. Check the names in your code that make up this path.`,
  );
}

export function methodRefusedError(method: string, path: string, allowed: readonly string[]): ServiceClientError {
  return new ServiceClientError(
    { code: 'method_refused', method, path },
    `${method} ${path} was not sent: this run is read-only and sends only ${allowed.join(' and ')} requests. ` +
      `A read-only run (secretform drift) never writes to the service; run plan or apply to change it.`,
  );
}

export function notTlsError(method: string, path: string, address: string, cause: string): ServiceClientError {
  return new ServiceClientError(
    { code: 'not_tls', method, path, cause, runFailure: 'not_tls' },
    `${method} ${path}: ${address} does not speak TLS (${cause}); the server answered in plain HTTP. ` +
      `Use ${address.replace(/^https:/, 'http:')} in SERVICE_ADDR, or enable TLS on the server.`,
  );
}

export function clientCertificateError(method: string, path: string, address: string, cause: string): ServiceClientError {
  return new ServiceClientError(
    { code: 'client_certificate_required', method, path, cause, runFailure: 'client_certificate_required' },
    `${method} ${path}: ${address} requires a client certificate (mutual TLS) and none is configured (${cause}). ` +
      `Set SERVICE_CLIENT_CERT and SERVICE_CLIENT_KEY to the PEM files of a certificate the service trusts.`,
  );
}
