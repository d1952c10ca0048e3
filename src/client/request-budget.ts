/**
 * The request budget of a run: at most `limit` requests in flight to one service address, however many stacks
 * (each with its own client) talk to it. Without it, 25 independent stacks on one server at --parallelism 10
 * send 250 requests at once, which is how a team meets the service's rate limit (429) in the middle of an apply.
 *
 * A slot is held only while a request is on the wire: a request waiting to retry (a Retry-After, a backoff)
 * gives its slot back, so the other stacks' requests go on meanwhile.
 *
 * Written here rather than with p-limit (a dependency): p-limit wraps each call in a closure, a promise and a
 * microtask even when a slot is free, and every request of a run passes through here (a plan of 10,000 objects
 * 1 ms away spends about 0.1 ms of the client's own time per read). A free slot costs a comparison here.
 */

export class RequestBudget {
  #inFlight = 0;
  #maxInFlight = 0;
  /** Requests waiting for a slot, first come first served; `#head` is the next to go. */
  #waiting: Array<(() => void) | undefined> = [];
  #head = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`a request budget needs a whole number of at least 1, got ${String(limit)}`);
  }

  /** Takes a slot: undefined when one was free (taken now), else a promise settled once a slot is handed over. */
  take(): Promise<void> | undefined {
    if (this.#inFlight < this.limit) {
      this.#inFlight++;
      if (this.#inFlight > this.#maxInFlight) this.#maxInFlight = this.#inFlight;
      return undefined;
    }
    return new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  /** Gives a slot back: to the request waiting longest, else to the budget. */
  give(): void {
    if (this.#head < this.#waiting.length) {
      const next = this.#waiting[this.#head]!;
      this.#waiting[this.#head++] = undefined;
      if (this.#head === this.#waiting.length) {
        this.#waiting = [];
        this.#head = 0;
      }
      // The slot passes on as it is: the count of requests in flight does not change.
      next();
      return;
    }
    this.#inFlight--;
  }

  /** The most requests this budget ever had in flight at once. */
  maxInFlight(): number {
    return this.#maxInFlight;
  }
}

/**
 * One budget per service address for a whole run: every client of the run asks here for the budget of its
 * address, so the stacks on one server share its `limit` requests.
 */
export class RequestBudgets {
  readonly #byServer = new Map<string, RequestBudget>();

  constructor(readonly limit: number) {
    // Checked now, not at the first request: a bad limit is the caller's mistake.
    new RequestBudget(limit);
  }

  /** The budget of the server at `address` (scheme, host and port: a path prefix is the same server). */
  for(address: string): RequestBudget {
    const server = serverOf(address);
    let budget = this.#byServer.get(server);
    if (!budget) {
      budget = new RequestBudget(this.limit);
      this.#byServer.set(server, budget);
    }
    return budget;
  }

  /** By server (its origin), the most requests in flight at once: what a test or bench checks against the limit. */
  maxInFlight(): Map<string, number> {
    return new Map([...this.#byServer].map(([server, budget]) => [server, budget.maxInFlight()]));
  }
}

/** The server an address names: its origin, lower case, the scheme's default port left out (the URL parser's own normalisation). */
export function serverOf(address: string): string {
  return new URL(address).origin;
}
