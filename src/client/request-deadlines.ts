/**
 * The time limit of every request in flight, watched by one timer per client. A timer and an AbortController per
 * request cost about 5 us of each request (undici listens on the signal twice, and an AbortSignal is an
 * EventTarget): a tenth of the client's own time per read when a plan reads 10,000 objects from a server 1 ms away.
 * Every request of a client has the same limit, so deadlines come in the order the requests started: the timer
 * waits for the oldest, and a request that ends is simply forgotten.
 */
import { EventEmitter } from 'node:events';
import { performance } from 'node:perf_hooks';

/** The signal undici takes (an EventEmitter with `aborted` and `reason`): aborts the request with `reason`. */
export class Deadline extends EventEmitter {
  aborted = false;
  reason: Error | undefined;

  constructor(
    readonly at: number,
    private readonly timeoutReason: Error,
  ) {
    super();
  }

  expire(): void {
    this.aborted = true;
    this.reason = this.timeoutReason;
    this.emit('abort');
  }
}

export class RequestDeadlines {
  /** In start order, which is deadline order (one limit, a monotonic clock). */
  readonly #inFlight = new Set<Deadline>();
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly limitMs: number) {}

  /** The signal of a request starting now; `end` it when the request is done, whatever the outcome. */
  start(reason: Error): Deadline {
    const deadline = new Deadline(performance.now() + this.limitMs, reason);
    this.#inFlight.add(deadline);
    this.#timer ??= setTimeout(() => this.#expireDue(), this.limitMs);
    return deadline;
  }

  end(deadline: Deadline): void {
    this.#inFlight.delete(deadline);
    if (this.#inFlight.size === 0 && this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #expireDue(): void {
    this.#timer = undefined;
    const now = performance.now();
    for (const deadline of this.#inFlight) {
      if (deadline.at > now) {
        this.#timer = setTimeout(() => this.#expireDue(), deadline.at - now);
        return;
      }
      this.#inFlight.delete(deadline);
      deadline.expire();
    }
  }
}
