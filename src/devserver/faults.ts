import type { DevResponse } from './types';

export interface FaultOptions {
  /**
   * Time from a request's arrival to its answer: the network and the service together. The server's own work
   * counts within it (a request that took 3 ms to handle waits 7 more of 10), so a client's floor of
   * requests x latency / parallelism is what an ideal client would really see.
   */
  latencyMs?: number;
  /** Share of requests (0..1) answered with `failureStatus` before any handler runs. */
  failureRate?: number;
  /** Status of injected failures (default 503). */
  failureStatus?: number;
  /** Source of randomness for failureRate (tests may make it deterministic). */
  random?: () => number;
}

/** The test-facing control: queue deterministic failures. */
export interface FaultControl {
  /** The next `count` requests fail with `status` (with `Retry-After` when given, or 1 s for 429/503). */
  failNext(count: number, status: number, retryAfterSeconds?: number): void;
  /**
   * Every request from now on fails with `status` (after those `failNext` queued), until `stopFailing`: a server
   * that rate-limits for ever (429 with `Retry-After`), to test that a client gives up at its deadline.
   */
  failEvery(status: number, retryAfterSeconds?: number): void;
  /** Ends `failEvery` and drops the failures `failNext` queued. */
  stopFailing(): void;
  /**
   * Answers wait (after their latency) until the returned function is called: a test holds two servers to see
   * that two clients have requests in flight at the same time, whatever the machine's load does to their starts.
   */
  hold(): () => void;
}

interface QueuedFailure {
  status: number;
  retryAfterSeconds?: number;
}

/**
 * Injected latency and failures, so clients' retries and timeouts can be tested against the dev server.
 * A failure is decided before the request reaches a handler: a failed request changes nothing.
 */
export class FaultInjector implements FaultControl {
  private readonly latencyMs: number;
  private readonly failureRate: number;
  private readonly failureStatus: number;
  private readonly random: () => number;
  private queued: QueuedFailure[] = [];
  private always: QueuedFailure | undefined;
  private held: Promise<void> | undefined;

  constructor(options: FaultOptions = {}) {
    this.latencyMs = options.latencyMs ?? 0;
    this.failureRate = options.failureRate ?? 0;
    this.failureStatus = options.failureStatus ?? 503;
    this.random = options.random ?? Math.random;
    validateFaultOptions({ latencyMs: this.latencyMs, failureRate: this.failureRate, failureStatus: this.failureStatus });
  }

  failNext(count: number, status: number, retryAfterSeconds?: number): void {
    if (!Number.isInteger(count) || count < 0) throw new Error(`failNext: count must be an integer >= 0, got ${count}`);
    checkFailureStatus(status, 'failNext: status');
    checkRetryAfter(retryAfterSeconds, 'failNext');
    for (let i = 0; i < count; i += 1) this.queued.push({ status, retryAfterSeconds });
  }

  failEvery(status: number, retryAfterSeconds?: number): void {
    checkFailureStatus(status, 'failEvery: status');
    checkRetryAfter(retryAfterSeconds, 'failEvery');
    this.always = { status, retryAfterSeconds };
  }

  stopFailing(): void {
    this.always = undefined;
    this.queued = [];
  }

  hold(): () => void {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.held = held;
    return () => {
      if (this.held === held) this.held = undefined;
      release();
    };
  }

  /** The injected failure for this request, if any. */
  nextFailure(): DevResponse | undefined {
    const queued = this.queued.shift() ?? this.always;
    if (queued) return failureResponse(queued.status, queued.retryAfterSeconds);
    if (this.failureRate > 0 && this.random() < this.failureRate) return failureResponse(this.failureStatus);
    return undefined;
  }

  /** Waits until the configured latency has passed since `arrivedAt` (a `performance.now()` time). */
  async delayFrom(arrivedAt: number): Promise<void> {
    const remaining = arrivedAt + this.latencyMs - performance.now();
    if (remaining > 0) await new Promise((resolve) => setTimeout(resolve, remaining));
    if (this.held !== undefined) await this.held;
  }
}

function failureResponse(status: number, retryAfterSeconds?: number): DevResponse {
  const retryAfter = retryAfterSeconds ?? (status === 429 || status === 503 ? 1 : undefined);
  return {
    status,
    body: { errors: ['injected failure'] },
    headers: retryAfter === undefined ? {} : { 'Retry-After': String(retryAfter) },
  };
}

function checkRetryAfter(retryAfterSeconds: number | undefined, what: string): void {
  if (retryAfterSeconds !== undefined && (!Number.isInteger(retryAfterSeconds) || retryAfterSeconds < 0)) {
    throw new Error(`${what}: retryAfterSeconds must be an integer >= 0, got ${retryAfterSeconds}`);
  }
}

function checkFailureStatus(status: number, what: string): void {
  if (!Number.isInteger(status) || status < 400 || status > 599) {
    throw new Error(`${what} must be an HTTP error status 400..599, got ${status}`);
  }
}

/** Throws an error naming the option when a value is out of range. */
export function validateFaultOptions(options: { latencyMs?: number; failureRate?: number; failureStatus?: number }): void {
  const { latencyMs, failureRate, failureStatus } = options;
  if (latencyMs !== undefined && (!Number.isFinite(latencyMs) || latencyMs < 0)) {
    throw new Error(`latencyMs must be a number >= 0, got ${latencyMs}`);
  }
  if (failureRate !== undefined && (!Number.isFinite(failureRate) || failureRate < 0 || failureRate > 1)) {
    throw new Error(`failureRate must be a number between 0 and 1, got ${failureRate}`);
  }
  if (failureStatus !== undefined) checkFailureStatus(failureStatus, 'failureStatus');
}
