import {
  DEFAULT_RETRY_POLICY,
  backoffDelayMs,
  decideRetry,
  isRepeatable,
  isRetryableStatus,
  parseRetryAfterMs,
  type RetryPolicy,
} from '../../src/client/retry';

const policy: RetryPolicy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 30_000 };
const NOW = Date.parse('2025-01-01T00:00:00Z');
const half = () => 0.5;

describe('parseRetryAfterMs', () => {
  it('reads delay-seconds', () => {
    expect(parseRetryAfterMs('3', NOW)).toBe(3000);
    expect(parseRetryAfterMs(' 0 ', NOW)).toBe(0);
  });

  it('reads an HTTP date relative to now', () => {
    expect(parseRetryAfterMs('Wed, 01 Jan 2025 00:00:07 GMT', NOW)).toBe(7000);
  });

  it('treats a date in the past as no wait', () => {
    expect(parseRetryAfterMs('Tue, 31 Dec 2024 23:59:00 GMT', NOW)).toBe(0);
  });

  it('ignores absent, empty and unparsable values', () => {
    expect(parseRetryAfterMs(undefined, NOW)).toBeUndefined();
    expect(parseRetryAfterMs('', NOW)).toBeUndefined();
    expect(parseRetryAfterMs('-5', NOW)).toBeUndefined();
    expect(parseRetryAfterMs('1.5', NOW)).toBeUndefined();
    expect(parseRetryAfterMs('soon', NOW)).toBeUndefined();
  });
});

describe('backoffDelayMs (full jitter)', () => {
  it('stays within [0, base * 2^(retry-1)] and is capped by maxDelayMs', () => {
    const ceilings = [100, 200, 400, 800, 1000, 1000];
    ceilings.forEach((ceiling, index) => {
      expect(backoffDelayMs(index + 1, policy, () => 0)).toBe(0);
      expect(backoffDelayMs(index + 1, policy, () => 0.999999)).toBe(ceiling - 1);
      expect(backoffDelayMs(index + 1, policy, half)).toBe(ceiling / 2);
    });
  });

  it('spreads delays over the whole range with a real random source', () => {
    const delays = Array.from({ length: 2000 }, () => backoffDelayMs(3, policy, Math.random));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...delays)).toBeLessThan(400);
    // Full jitter, not "equal jitter": a good share of delays fall below half the ceiling.
    expect(delays.filter((delay) => delay < 200).length).toBeGreaterThan(700);
    expect(delays.filter((delay) => delay >= 200).length).toBeGreaterThan(700);
  });
});

describe('which requests are repeated', () => {
  it('repeats GET, LIST and DELETE always, POST and PATCH only when marked idempotent', () => {
    for (const method of ['GET', 'LIST', 'DELETE', 'get']) expect(isRepeatable(method, false)).toBe(true);
    expect(isRepeatable('POST', false)).toBe(false);
    expect(isRepeatable('PATCH', false)).toBe(false);
    expect(isRepeatable('POST', true)).toBe(true);
    expect(isRepeatable('PATCH', true)).toBe(true);
  });

  it('retries 429, 502, 503, 504 and never 500 (engines report validation errors as 500) or 4xx', () => {
    for (const status of [429, 502, 503, 504]) expect(isRetryableStatus(status)).toBe(true);
    for (const status of [400, 403, 404, 405, 415, 500, 501]) expect(isRetryableStatus(status)).toBe(false);
  });
});

describe('decideRetry', () => {
  const ask = (overrides: Partial<Parameters<typeof decideRetry>[0]>) =>
    decideRetry({ method: 'GET', idempotent: false, attempts: 1, outcome: { kind: 'status', status: 503 }, ...overrides }, policy, NOW, half);

  it('retries a 503 on GET with the jittered backoff of the attempt number', () => {
    expect(ask({})).toEqual({ retry: true, delayMs: 50 });
    expect(ask({ attempts: 3 })).toEqual({ retry: true, delayMs: 200 });
  });

  it('waits exactly the Retry-After seconds instead of the backoff', () => {
    expect(ask({ outcome: { kind: 'status', status: 429, retryAfter: '2' } })).toEqual({ retry: true, delayMs: 2000 });
    expect(ask({ outcome: { kind: 'status', status: 503, retryAfter: 'Wed, 01 Jan 2025 00:00:04 GMT' } })).toEqual({ retry: true, delayMs: 4000 });
  });

  it('gives up when Retry-After asks for more than maxRetryAfterMs', () => {
    expect(ask({ outcome: { kind: 'status', status: 429, retryAfter: '120' } })).toEqual({
      retry: false,
      reason: 'retry_after_too_long',
      retryAfterMs: 120_000,
    });
  });

  it('stops after maxAttempts', () => {
    expect(ask({ attempts: 4 }).retry).toBe(true);
    expect(ask({ attempts: 5 })).toEqual({ retry: false, reason: 'attempts_exhausted' });
  });

  it('does not retry a 500 or a 400', () => {
    expect(ask({ outcome: { kind: 'status', status: 500 } })).toEqual({ retry: false, reason: 'not_retryable' });
    expect(ask({ outcome: { kind: 'status', status: 400 } })).toEqual({ retry: false, reason: 'not_retryable' });
  });

  it('does not retry a POST that is not marked idempotent, and retries it when marked', () => {
    expect(ask({ method: 'POST' })).toEqual({ retry: false, reason: 'not_repeatable' });
    expect(ask({ method: 'POST', idempotent: true }).retry).toBe(true);
    expect(ask({ method: 'PATCH', outcome: { kind: 'error', code: 'ECONNRESET' } })).toEqual({ retry: false, reason: 'not_repeatable' });
  });

  it('retries connection resets, closed sockets and refused connections on repeatable requests', () => {
    for (const code of ['ECONNRESET', 'ECONNREFUSED', 'UND_ERR_SOCKET', 'EPIPE']) {
      expect(ask({ method: 'DELETE', outcome: { kind: 'error', code } })).toEqual({ retry: true, delayMs: 50 });
    }
  });

  it('retries a refused connection even for a non-idempotent POST, since nothing was sent', () => {
    expect(ask({ method: 'POST', outcome: { kind: 'error', code: 'ECONNREFUSED' } }).retry).toBe(true);
    expect(ask({ method: 'POST', outcome: { kind: 'error', code: 'UND_ERR_SOCKET' } }).retry).toBe(false);
  });

  it('does not retry DNS failures or unknown errors', () => {
    expect(ask({ outcome: { kind: 'error', code: 'ENOTFOUND' } })).toEqual({ retry: false, reason: 'not_retryable' });
  });

  it('defaults to 5 attempts', () => {
    expect(DEFAULT_RETRY_POLICY.maxAttempts).toBe(5);
  });
});

describe('decideRetry within a run deadline (untilDeadlineMs)', () => {
  const ask = (status: number, retryAfter: string | undefined, attempts: number, untilDeadlineMs: number | undefined) =>
    decideRetry({ method: 'GET', idempotent: false, attempts, outcome: { kind: 'status', status, retryAfter }, untilDeadlineMs }, policy, NOW, half);

  it('retries a 429 with Retry-After as often as asked while the wait ends before the deadline', () => {
    expect(ask(429, '2', 50, 60_000)).toEqual({ retry: true, delayMs: 2000 });
    expect(ask(503, '1', 50, 60_000)).toEqual({ retry: true, delayMs: 1000 });
  });

  it('past maxAttempts, waits at least the backoff ceiling when the server asks for (next to) no wait', () => {
    expect(ask(429, '0', 4, 60_000)).toEqual({ retry: true, delayMs: 0 });
    expect(ask(429, '0', 5, 60_000)).toEqual({ retry: true, delayMs: 1000 });
    expect(ask(429, '0', 3, 60_000)).toEqual({ retry: true, delayMs: 0 });
    expect(ask(429, '5', 9, 60_000)).toEqual({ retry: true, delayMs: 5000 });
  });

  it('stops at the deadline: a wait that would end after it is not made', () => {
    expect(ask(429, '2', 1, 1500)).toEqual({ retry: false, reason: 'past_deadline', retryAfterMs: 2000 });
    expect(ask(502, undefined, 1, 10)).toEqual({ retry: false, reason: 'past_deadline' });
  });

  it('still counts attempts for what is not the server asking to wait, and without a deadline', () => {
    expect(ask(503, undefined, 5, 60_000)).toEqual({ retry: false, reason: 'attempts_exhausted' });
    expect(ask(502, '1', 5, 60_000)).toEqual({ retry: false, reason: 'attempts_exhausted' });
    expect(ask(429, '1', 5, undefined)).toEqual({ retry: false, reason: 'attempts_exhausted' });
    expect(ask(429, undefined, 5, 60_000)).toEqual({ retry: false, reason: 'attempts_exhausted' });
  });

  it('keeps the cap on a Retry-After longer than the client waits', () => {
    expect(ask(429, '120', 1, 600_000)).toEqual({ retry: false, reason: 'retry_after_too_long', retryAfterMs: 120_000 });
  });
});
