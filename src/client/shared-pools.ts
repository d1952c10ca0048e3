/**
 * The connection pools of a run, one per server and connection settings, shared by every client of the run
 * (one client per stack). Before, each stack's client opened a pool of its own: 25 stacks on one server opened
 * up to 250 connections over the run, each with its TCP (and TLS) handshake and its close, although the run's
 * budget (request-budget.ts) lets only `--parallelism` requests be in flight there at once. A shared pool keeps
 * that many connections open and reuses them from stack to stack.
 *
 * Only clients with the same settings share a pool: the same origin, the same TLS material and verification
 * (stacks may name different CA or client certificates for one address), the same pool size and timeouts. A
 * pool is closed when the last client using it closes.
 */
import { Pool } from './undici-pool';
import type { TlsSettings } from './config';

/** What a pool is made with: clients whose settings are equal share one. */
export interface PoolSettings {
  origin: string;
  connections: number;
  keepAliveTimeoutMs: number;
  connectTimeoutMs?: number;
  tls: TlsSettings;
}

interface SharedPool {
  pool: Pool;
  users: number;
}

export class SharedPools {
  readonly #byKey = new Map<string, SharedPool>();
  readonly #keyOf = new Map<Pool, string>();

  /** A pool for these settings: the one already open, else a new one. Give it back with `release`. */
  acquire(settings: PoolSettings): Pool {
    const key = keyOf(settings);
    let shared = this.#byKey.get(key);
    if (shared === undefined) {
      shared = { pool: newPool(settings), users: 0 };
      this.#byKey.set(key, shared);
      this.#keyOf.set(shared.pool, key);
    }
    shared.users++;
    return shared.pool;
  }

  /** A client is done with `pool`: it is closed (its requests in flight finished) once no client uses it. */
  async release(pool: Pool): Promise<void> {
    const key = this.#keyOf.get(pool);
    const shared = key === undefined ? undefined : this.#byKey.get(key);
    if (shared === undefined || key === undefined) return;
    shared.users--;
    if (shared.users > 0) return;
    this.#byKey.delete(key);
    this.#keyOf.delete(pool);
    await pool.close();
  }

  /** Pools open now: what a test checks. */
  open(): number {
    return this.#byKey.size;
  }
}

/** An undici pool to `origin`, with the TLS settings only for https (undici ignores them over plain TCP anyway). */
export function newPool(settings: PoolSettings): Pool {
  const { origin, tls } = settings;
  return new Pool(origin, {
    connections: settings.connections,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    connect: {
      ...(settings.connectTimeoutMs === undefined ? {} : { timeout: settings.connectTimeoutMs }),
      ...(origin.startsWith('https:') ? { ca: tls.ca, cert: tls.cert, key: tls.key, rejectUnauthorized: tls.rejectUnauthorized } : {}),
    },
  });
}

/** The settings as one text (in memory only, never shown: it holds the client key's PEM when there is one). */
function keyOf(settings: PoolSettings): string {
  const { tls } = settings;
  return JSON.stringify([settings.origin, settings.connections, settings.keepAliveTimeoutMs, settings.connectTimeoutMs ?? null, tls.ca ?? null, tls.cert ?? null, tls.key ?? null, tls.rejectUnauthorized]);
}
