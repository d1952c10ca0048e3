/**
 * The run's deadline (`--timeout`): after it the run sends no request and waits for no retry, and a request that
 * would have to fails as the whole run's failure, naming the server and its last answer that asked to wait. It
 * is what ends a run against a server that answers 429 for ever: a Retry-After is honoured as often as the
 * server asks, as long as the wait ends before the deadline.
 */
export const DEFAULT_RUN_TIMEOUT_MS = 30 * 60_000;

export class RunDeadline {
  #at: number;

  /**
   * @param timeoutMs how long the run may send requests, from now
   * @param label how messages name the setting, e.g. `--timeout 30m`
   */
  constructor(
    readonly timeoutMs: number,
    readonly label: string,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new RangeError(`a run's timeout must be a positive number of milliseconds, got ${String(timeoutMs)}`);
    this.#at = now() + timeoutMs;
  }

  /** Milliseconds left (0 once it has passed). */
  remainingMs(): number {
    return Math.max(0, this.#at - this.now());
  }

  passed(): boolean {
    return this.now() >= this.#at;
  }

  /**
   * Runs `wait` without counting its time against the deadline: a person reading the plan before approving it
   * is not the service being slow.
   */
  async excluding<T>(wait: () => Promise<T>): Promise<T> {
    const started = this.now();
    try {
      return await wait();
    } finally {
      this.#at += this.now() - started;
    }
  }
}
