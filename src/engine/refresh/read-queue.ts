/**
 * The reads of a run: at most `parallelism` at a time, in the order asked, and each distinct read sent once, its
 * answer shared by every resource that asks for it (the mount listing serves every mount). A plan may start it
 * before its state is read (see read-ahead.ts): the refresh then finds the answers already on their way.
 *
 * The waiting reads are a plain array rather than p-limit's queue: a plan of 10,000 objects asks for every read
 * at once, and p-limit spends a closure, a promise and a microtask per queued call before the first one is sent
 * (about 20 ms of the plan's start at 10,000, measured; docs/performance.md).
 */
import type { ServiceClient, ServiceResult } from '../../client';
import type { ApiCall } from '../../resources/types';

interface WaitingRead {
  call: ApiCall;
  resolve: (result: ServiceResult) => void;
  reject: (error: unknown) => void;
}

export class ReadQueue {
  readonly #parallelism: number;
  readonly #reads = new Map<string, Promise<ServiceResult>>();
  #waiting: Array<WaitingRead | undefined> = [];
  /** The index of the next waiting read to send. */
  #next = 0;
  #inFlight = 0;

  constructor(
    private readonly client: ServiceClient,
    parallelism: number,
  ) {
    this.#parallelism = Math.max(1, parallelism);
  }

  read(call: ApiCall): Promise<ServiceResult> {
    const key = callKey(call);
    let pending = this.#reads.get(key);
    if (!pending) {
      pending = new Promise<ServiceResult>((resolve, reject) => this.#waiting.push({ call, resolve, reject }));
      this.#reads.set(key, pending);
      this.#sendWhatFits();
    }
    return pending;
  }

  #sendWhatFits(): void {
    while (this.#inFlight < this.#parallelism && this.#next < this.#waiting.length) {
      const read = this.#waiting[this.#next]!;
      // Sent reads are not kept: only the answers (in #reads) are shared.
      this.#waiting[this.#next++] = undefined;
      if (this.#next === this.#waiting.length) {
        this.#waiting = [];
        this.#next = 0;
      }
      this.#inFlight++;
      // Never rejects: its outcome goes to the read's own promise.
      void this.#send(read);
    }
  }

  async #send({ call, resolve, reject }: WaitingRead): Promise<void> {
    try {
      resolve(await this.client.request(call.method, call.path, { query: call.query }));
    } catch (error) {
      reject(error);
    } finally {
      this.#inFlight--;
      this.#sendWhatFits();
    }
  }
}

function callKey(call: ApiCall): string {
  if (call.query === undefined) return `${call.method} ${call.path} []`;
  const query = Object.entries(call.query).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${call.method} ${call.path} ${JSON.stringify(query)}`;
}
