/**
 * The reads of a run: at most `parallelism` at a time, and each distinct read sent once, its answer shared by
 * every resource that asks for it (the mount listing serves every mount). A plan may start it before its state is
 * read (see read-ahead.ts): the refresh then finds the answers already on their way.
 */
import pLimit from 'p-limit';
import type { ServiceClient, ServiceResult } from '../../client';
import type { ApiCall } from '../../resources/types';

export class ReadQueue {
  readonly #limit: ReturnType<typeof pLimit>;
  readonly #reads = new Map<string, Promise<ServiceResult>>();

  constructor(
    private readonly client: ServiceClient,
    parallelism: number,
  ) {
    this.#limit = pLimit(Math.max(1, parallelism));
  }

  read(call: ApiCall): Promise<ServiceResult> {
    const key = callKey(call);
    let pending = this.#reads.get(key);
    if (!pending) {
      pending = this.#limit(() => this.client.request(call.method, call.path, { query: call.query }));
      this.#reads.set(key, pending);
    }
    return pending;
  }
}

function callKey(call: ApiCall): string {
  const query = Object.entries(call.query ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `${call.method} ${call.path} ${JSON.stringify(query)}`;
}
