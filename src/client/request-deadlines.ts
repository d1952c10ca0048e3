/**
 * The time limit of every request in flight, watched by one timer per client. A timer and an AbortController per
 * request cost about 5 us of each request (an AbortSignal is an EventTarget): a tenth of the client's own time per
 * read when a plan reads 10,000 objects from a server 1 ms away.
 * Every request of a client has the same limit, so deadlines come in the order the requests started: the timer
 * waits for the oldest, and a request that ends is simply forgotten.
 */
import { performance } from 'node:perf_hooks';

type Listener = () => void;

/**
 * The signal undici takes: `aborted`, `reason`, and `on`/`once`/`removeListener` of the 'abort' event, which
 * aborts the request with `reason`. Not an EventEmitter: undici adds one listener per request and removes it when
 * the answer is read, and an EventEmitter's setup and `once` wrapper were most of what a deadline cost.
 */
export class Deadline {
  aborted = false;
  reason: Error | undefined;
  /** The listener undici adds; any further ones in `#more` (none in practice). */
  #listener: Listener | undefined;
  #more: Listener[] | undefined;

  constructor(
    readonly at: number,
    private readonly timeoutReason: Error,
  ) {}

  on(event: string, listener: Listener): this {
    if (event !== 'abort') return this;
    if (this.#listener === undefined) this.#listener = listener;
    else (this.#more ??= []).push(listener);
    return this;
  }

  /** The same as `on`: 'abort' happens once. */
  once(event: string, listener: Listener): this {
    return this.on(event, listener);
  }

  removeListener(event: string, listener: Listener): this {
    if (event !== 'abort') return this;
    if (this.#listener === listener) this.#listener = undefined;
    else if (this.#more !== undefined) this.#more = this.#more.filter((other) => other !== listener);
    return this;
  }

  off(event: string, listener: Listener): this {
    return this.removeListener(event, listener);
  }

  expire(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = this.timeoutReason;
    const listeners = [this.#listener, ...(this.#more ?? [])];
    this.#listener = undefined;
    this.#more = undefined;
    for (const listener of listeners) listener?.();
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
