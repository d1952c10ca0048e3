/**
 * How many requests the server is working on at once (from a request's arrival to its answer, the added latency
 * included), and the most it has seen: what a test or the bench checks a client's request budget against, at
 * the server rather than in the client under test.
 */
export class InFlightGauge {
  #current = 0;
  #max = 0;

  enter(): void {
    this.#current++;
    if (this.#current > this.#max) this.#max = this.#current;
  }

  leave(): void {
    this.#current--;
  }

  /** Requests being worked on now. */
  get current(): number {
    return this.#current;
  }

  /** The most requests worked on at once since the start or the last `resetMax`. */
  get max(): number {
    return this.#max;
  }

  /** Starts a new measure from the requests in flight now. */
  resetMax(): void {
    this.#max = this.#current;
  }
}
