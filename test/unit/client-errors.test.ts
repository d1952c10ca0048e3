import {
  codeForStatus,
  connectionError,
  readableServerMessages,
  statusError,
  timeoutError,
  tlsError,
} from '../../src/client/errors';

describe('client errors', () => {
  it('maps statuses to stable codes', () => {
    const codes = [400, 401, 403, 404, 405, 415, 429, 500, 501, 502, 503, 504, 409].map(codeForStatus);
    expect(codes).toEqual([
      'bad_request', 'permission_denied', 'permission_denied', 'not_found', 'method_not_allowed',
      'unsupported_media_type', 'rate_limited', 'server_error', 'server_error', 'unavailable', 'unavailable',
      'unavailable', 'http_error',
    ]);
  });

  it('unwraps the "1 error occurred" form engines use', () => {
    expect(readableServerMessages(['1 error occurred:\n\t* cannot set both \'password_policy\' and \'length\'\n\n'])).toEqual([
      "cannot set both 'password_policy' and 'length'",
    ]);
    expect(readableServerMessages(['2 errors occurred:\n\t* a\n\t* b\n\n', 'plain'])).toEqual(['a', 'b', 'plain']);
  });

  it('tells to check SERVICE_TOKEN on 403 and keeps method, path, status and server messages', () => {
    const error = statusError('GET', '/v1/ldap/config', 403, ['permission denied']);
    expect(error).toMatchObject({ code: 'permission_denied', status: 403, method: 'GET', path: '/v1/ldap/config', errors: ['permission denied'] });
    expect(error.message).toBe(
      'GET /v1/ldap/config failed with HTTP 403: permission denied. Check SERVICE_TOKEN: it must be set, valid and not expired, and its policies must allow this operation on this path.',
    );
  });

  it('says a 500 was not retried and the values should be checked', () => {
    const error = statusError('POST', '/v1/ldap/config', 500, ["1 error occurred:\n\t* cannot set both 'password_policy' and 'length'\n\n"]);
    expect(error.code).toBe('server_error');
    expect(error.message).toContain("failed with HTTP 500: cannot set both 'password_policy' and 'length'.");
    expect(error.message).toContain('check the values sent');
  });

  it('counts attempts in the message when retries happened', () => {
    const error = statusError('GET', '/v1/x', 503, [], 5);
    expect(error.message).toMatch(/^GET \/v1\/x failed with HTTP 503 \(after 5 attempts\)\. The service is unavailable/);
    expect(error.attempts).toBe(5);
  });

  it('names SERVICE_ADDR for a refused connection, the CA variables for TLS failures, and the limit for timeouts', () => {
    expect(connectionError('GET', '/v1/x', 'http://127.0.0.1:1', 'ECONNREFUSED').message).toBe(
      'GET /v1/x could not reach the service at http://127.0.0.1:1 (ECONNREFUSED): nothing is listening there; check SERVICE_ADDR and that the service is running.',
    );
    const tls = tlsError('GET', '/v1/x', 'https://h', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'unable to verify the first certificate');
    expect(tls.code).toBe('tls');
    expect(tls.message).toContain('set SERVICE_CACERT');
    expect(timeoutError('LIST', '/v1/x', 30_000).message).toContain('within 30 s');
  });
});
