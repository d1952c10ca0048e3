/**
 * undici's Pool and its `request` method, loaded from their own modules. undici's entry point also loads
 * fetch, WebSocket, cookies, caches and mock agents: about 90 ms of every CLI run on a 2-core machine (6% of a
 * plan of 1,000 resources), where the client needs the Pool alone (about 22 ms). These are the same class and
 * function `require('undici')` exposes (`Object.assign(Dispatcher.prototype, api)` in its index);
 * test/unit/client-undici-pool.test.ts checks that, so an undici upgrade that moves them fails a test, not a user.
 */
import type { Dispatcher, Pool as UndiciPool } from 'undici';
import PoolClass from 'undici/lib/dispatcher/pool';
import { request as dispatcherRequest } from 'undici/lib/api';

// Typed by undici's entry point, so the emitted declarations name no undici-internal module (a user's tsc has no
// types for those: the ambient ones in undici-modules.d.ts are ours and are not shipped).
export const Pool: typeof UndiciPool = PoolClass;
export type Pool = UndiciPool;

/** `pool.request(options)` of undici's full entry point. */
export function poolRequest(pool: Pool, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return dispatcherRequest.call(pool, options);
}
