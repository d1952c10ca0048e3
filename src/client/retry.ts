/**
 * When a failed request is sent again, and how long to wait first.
 *
 * - Only requests that are safe to repeat are retried: GET, LIST, DELETE, HEAD, and POST/PATCH writes the
 *   caller marks idempotent (config and role writes are "set" operations; rotate-root, check-out and creds
 *   are not, so they are never marked).
 * - Statuses retried: 429, 502, 503, 504. Plain 500 is NOT retried: several engines report validation
 *   errors as 500 ("1 error occurred: ..."), which would fail the same way every time.
 * - Connection errors retried: reset, refused, socket closed, broken pipe, connect timeout. A refused or
 *   timed-out connect never delivered the request, so it is retried even for writes not marked idempotent.
 * - Request timeouts are not retried: the server may still be working on the request, and repeating a
 *   30 s wait five times hides an outage rather than riding out a blip.
 * - Delay: the server's Retry-After (seconds or HTTP date) when given, otherwise exponential backoff with
 *   full jitter: a uniform random wait in [0, min(maxDelayMs, baseDelayMs * 2^(retry-1))].
 * - A run's deadline (`untilDeadlineMs`, see run-deadline.ts): a 429, or a 503 with Retry-After, is the server
 *   asking to wait, not failing; it is retried after the time asked as often as the server asks, without counting
 *   against maxAttempts, as long as the wait ends before the deadline. No wait of any kind goes past it.
 */

export interface RetryPolicy {
  /** Total attempts including the first; 1 disables retries. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the call fails and the message says what the server asked. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 250,
  maxDelayMs: 10_000,
  maxRetryAfterMs: 60_000,
};

const ALWAYS_REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'LIST', 'DELETE']);
const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);
const RETRYABLE_CONNECTION_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT']);
/** Errors raised before the request left the client: repeating cannot apply a write twice. */
const NOT_DELIVERED_ERRORS = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT']);

export function isRepeatable(method: string, idempotent: boolean): boolean {
  return ALWAYS_REPEATABLE_METHODS.has(method.toUpperCase()) || idempotent;
}

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE_STATUSES.has(status);
}

export function isRetryableConnectionError(code: string): boolean {
  return RETRYABLE_CONNECTION_ERRORS.has(code);
}

/**
 * Milliseconds to wait from a Retry-After header: delay-seconds ("120") or an HTTP date. A date in the past
 * means "now" (0). undefined when absent or unparsable.
 */
export function parseRetryAfterMs(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // Only date forms; Date.parse would also accept things like "5.5" or "1 2".
  if (!/[A-Za-z]{3}/.test(value)) return undefined;
  const dateMs = Date.parse(value);
  if (Number.isNaN(dateMs)) return undefined;
  return Math.max(0, dateMs - nowMs);
}

/** Full jitter. `retryNumber` is 1 for the first retry; `random` returns [0, 1). */
export function backoffDelayMs(retryNumber: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retryNumber - 1));
  return Math.floor(random() * ceiling);
}

export type AttemptOutcome =
  | { kind: 'status'; status: number; retryAfter?: string }
  | { kind: 'error'; code: string };

export interface RetryQuestion {
  method: string;
  idempotent: boolean;
  /** Attempts already made, the failed one included. */
  attempts: number;
  outcome: AttemptOutcome;
  /** Time left before the run's deadline; undefined when the client has none (then maxAttempts bounds every retry). */
  untilDeadlineMs?: number;
}

export type RetryDecision =
  | { retry: true; delayMs: number }
  | { retry: false; reason: 'not_retryable' | 'not_repeatable' | 'attempts_exhausted' | 'retry_after_too_long' | 'past_deadline'; retryAfterMs?: number };

/** A 429, or a 503 that says when to come back: the server is asking the client to wait (a rate limit), not failing. */
export function isAskedToWait(outcome: AttemptOutcome): boolean {
  return outcome.kind === 'status' && (outcome.status === 429 || (outcome.status === 503 && outcome.retryAfter !== undefined));
}

export function decideRetry(
  question: RetryQuestion,
  policy: RetryPolicy,
  nowMs: number,
  random: () => number,
): RetryDecision {
  const { outcome } = question;
  const retryable =
    outcome.kind === 'status' ? isRetryableStatus(outcome.status) : isRetryableConnectionError(outcome.code);
  if (!retryable) return { retry: false, reason: 'not_retryable' };

  const notDelivered = outcome.kind === 'error' && NOT_DELIVERED_ERRORS.has(outcome.code);
  if (!notDelivered && !isRepeatable(question.method, question.idempotent)) return { retry: false, reason: 'not_repeatable' };

  const retryAfterMs = outcome.kind === 'status' ? parseRetryAfterMs(outcome.retryAfter, nowMs) : undefined;
  const { untilDeadlineMs } = question;
  // With a deadline, the server's own "come back in N s" bounds the retries of a rate limit, not a count.
  const askedWithin = untilDeadlineMs !== undefined && retryAfterMs !== undefined && isAskedToWait(outcome);
  if (!askedWithin && question.attempts >= policy.maxAttempts) return { retry: false, reason: 'attempts_exhausted' };

  if (retryAfterMs !== undefined) {
    if (retryAfterMs > policy.maxRetryAfterMs) return { retry: false, reason: 'retry_after_too_long', retryAfterMs };
    // Past maxAttempts, a server that keeps asking for (next to) no wait gets the backoff's ceiling at least: a
    // run is not to hammer a rate-limited server until its deadline.
    const delayMs = askedWithin && question.attempts >= policy.maxAttempts
      ? Math.max(retryAfterMs, Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (question.attempts - 1)))
      : retryAfterMs;
    if (untilDeadlineMs !== undefined && delayMs >= untilDeadlineMs) return { retry: false, reason: 'past_deadline', retryAfterMs };
    return { retry: true, delayMs };
  }
  const delayMs = backoffDelayMs(question.attempts, policy, random);
  if (untilDeadlineMs !== undefined && delayMs >= untilDeadlineMs) return { retry: false, reason: 'past_deadline' };
  return { retry: true, delayMs };
}
