/**
 * How many stacks of a plan work on one server at once. Every stack of a set would otherwise start together: with
 * 25 stacks of 1,000 objects on a server, each gets a 25th of the server's budget, all of them finish near the end,
 * and the run holds every stack's state, reads and answers at once (a plan of 100 x 1,000 objects on 4 servers
 * peaked at 0.9-1.2 GB, against 0.66-0.72 GB taken a few at a time, with 15-30% less CPU). A server takes stacks in the run's order while the objects of the stacks it works on
 * stay within its share (`capacity`, objects); a stack larger than that runs alone. One stack's reads fill the
 * server's budget (its read queue sends up to --parallelism at once), and the next stacks' reads keep it full
 * while a stack diffs and ends; a finished stack's answers are let go before later stacks read theirs.
 * Small stacks all run at once, as before.
 */

/** Objects per request slot of a server that its stacks at work may hold: 3 stacks of 1,000 at --parallelism 10. */
export const OBJECTS_PER_SLOT = 300;

export class ServerShares {
  readonly #used = new Map<string, number>();
  /** Stacks waiting for their server's share, in the order they asked (the run's order). */
  readonly #waiting = new Map<string, Array<{ objects: number; start: () => void }>>();

  constructor(readonly capacity: number) {}

  /** Resolves once `objects` more fit the server's share (or it works on nothing): the stack may start. */
  enter(server: string, objects: number): Promise<void> {
    const waiting = this.#waiting.get(server) ?? [];
    if (waiting.length === 0 && this.#fits(server, objects)) {
      this.#used.set(server, (this.#used.get(server) ?? 0) + objects);
      return Promise.resolve();
    }
    return new Promise((start) => {
      waiting.push({ objects, start });
      this.#waiting.set(server, waiting);
    });
  }

  /** A stack that entered with `objects` has ended: the stacks waiting for the server start while they fit. */
  leave(server: string, objects: number): void {
    this.#used.set(server, (this.#used.get(server) ?? 0) - objects);
    const waiting = this.#waiting.get(server) ?? [];
    while (waiting.length > 0 && this.#fits(server, waiting[0].objects)) {
      const next = waiting.shift()!;
      this.#used.set(server, (this.#used.get(server) ?? 0) + next.objects);
      next.start();
    }
  }

  #fits(server: string, objects: number): boolean {
    const used = this.#used.get(server) ?? 0;
    return used === 0 || used + objects <= this.capacity;
  }
}
