/**
 * Objects read by a refresh, waiting for their diff. Each answer that arrives frees a slot and sends the next
 * request; diffing it right there made the answers that came with it wait for that CPU work before their next
 * requests went out (about 1 ms more per round trip at 1 ms from the service). Batched, they are diffed in the
 * event loop's check phase, after the I/O callbacks of the answers that arrived together.
 */
import type { LiveObject, RefreshRequest } from '../refresh/refresh-request';

/**
 * Objects read, diffed together in the event loop's check phase (after the I/O callbacks of answers that arrived
 * together, each of which sent its next request), or when flushed.
 */
export class DiffBatch {
  #pending: Array<[RefreshRequest, LiveObject]> = [];
  #scheduled: NodeJS.Immediate | undefined;
  /** What a diff in the check phase threw: thrown again by the caller's `flush`, as an inline diff would have. */
  #failure: { error: unknown } | undefined;

  constructor(private readonly diff: (request: RefreshRequest, object: LiveObject) => void) {}

  add(request: RefreshRequest, object: LiveObject): void {
    this.#pending.push([request, object]);
    this.#scheduled ??= setImmediate(() => {
      try {
        this.#run();
      } catch (error) {
        this.#failure ??= { error };
      }
    });
  }

  /** Diffs what is pending now; throws what any diff threw. */
  flush(): void {
    this.#run();
    if (this.#failure) throw this.#failure.error;
  }

  #run(): void {
    if (this.#scheduled) clearImmediate(this.#scheduled);
    this.#scheduled = undefined;
    const pending = this.#pending;
    this.#pending = [];
    for (const [request, object] of pending) this.diff(request, object);
  }
}
