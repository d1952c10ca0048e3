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
  | 'invalid_response'; // a body that is not JSON or not the expected shape

export interface ServiceClientErrorDetails {
  code: ServiceClientErrorCode;
  method: string;
  /** The request path as sent, e.g. `/v1/ldap/config`. */
  path: string;
  /** HTTP status, when a response arrived. */
  status?: number;
  /** The server's `errors` messages, as sent. */
  errors?: string[];
  /** Requests sent for this call, retries included. */
  attempts?: number;
  /** The low-level error code (ECONNREFUSED, UND_ERR_SOCKET, CERT_HAS_EXPIRED, ...), when there was one. */
  cause?: string;
}

export class ServiceClientError extends Error {
  readonly code: ServiceClientErrorCode;
  readonly method: string;
  readonly path: string;
  readonly status?: number;
  readonly errors: string[];
  readonly attempts: number;
  readonly causeCode?: string;

  constructor(details: ServiceClientErrorDetails, message: string) {
    super(message);
    this.name = 'ServiceClientError';
    this.code = details.code;
    this.method = details.method;
    this.path = details.path;
    this.status = details.status;
    this.errors = details.errors ?? [];
    this.attempts = details.attempts ?? 1;
    this.causeCode = details.cause;
  }
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
export function statusError(method: string, path: string, status: number, errors: string[], attempts = 1): ServiceClientError {
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
  };
  return new ServiceClientError({ code, method, path, status, errors, attempts }, `${head} ${hints[code]}`);
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
    { code: 'connection', method, path, attempts, cause },
    `${method} ${path} could not reach the service at ${address} (${cause})${retriesNote(attempts)}: ${hint}.`,
  );
}

export function tlsError(method: string, path: string, address: string, cause: string, detail: string): ServiceClientError {
  return new ServiceClientError(
    { code: 'tls', method, path, cause },
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

export function invalidResponseError(method: string, path: string, status: number, detail: string): ServiceClientError {
  return new ServiceClientError(
    { code: 'invalid_response', method, path, status },
    `${method} ${path} returned HTTP ${status} with ${detail}. Check that SERVICE_ADDR points at the secrets service and not at a proxy or another server.`,
  );
}
