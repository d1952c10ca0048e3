/**
 * The connections of this process to one state database, shared by the stacks of a run (their state backends
 * and their drift histories): at most MAX_STATE_CONNECTIONS per database however many stacks run at once.
 * Before, every stack opened its own, so an apply of 100 stacks opened 100 sessions and met the server's
 * `max_connections` (PostgreSQL's default is 100, a small managed instance allows fewer) in the middle of the apply.
 *
 * A stack is pinned to one connection while its backend is open: its advisory lock lives in that session (the
 * server releases it when the session ends, however the command ended). Up to the bound each stack gets a
 * connection of its own, as before; past it, stacks share the least used one. Sharing never makes a stack wait
 * for another's lock: the locks are per stack (one session may hold several), taken with `pg_try_advisory_lock`
 * and polled outside the connection. Stacks on one connection take turns for their statements only: each unit
 * of work (a statement, or a transaction such as a state read) runs alone on it (`exclusive`), so no stack's
 * statement lands inside another's transaction.
 */
import type { Client } from 'pg';
import { newPostgresClient } from './postgres-client';
import type { PostgresLocation } from './state-location';

/** Connections to one database at once, for the whole process (every stack of the run). */
export const MAX_STATE_CONNECTIONS = 10;

export class SharedStateConnection {
  /** Stacks pinned to this connection (their backends are open). */
  users = 0;
  /** Lost (an error or its end): no stack is pinned to it any more; those pinned see their next statement fail. */
  broken = false;
  /** Schemas whose tables this connection has seen created (checked once per schema, not once per stack). */
  readonly schemasReady = new Set<string>();
  /** Schemas whose `drift_history` table this connection has seen created (drift-history-postgres.ts). */
  readonly driftHistoryReady = new Set<string>();
  /**
   * Advisory locks held through this session by a backend of this process. The server grants a session a lock
   * it already holds, so two backends of one stack on this connection must be kept apart here.
   */
  readonly heldLocks = new Set<string>();
  readonly opened: Promise<Client>;
  #tail: Promise<unknown> = Promise.resolve();

  constructor(where: PostgresLocation, onLost: (connection: SharedStateConnection) => void) {
    this.opened = (async () => {
      const client = await newPostgresClient(where, 'secretform');
      const lost = (): void => {
        this.broken = true;
        onLost(this);
      };
      client.on('error', lost);
      client.on('end', lost);
      try {
        await client.connect();
      } catch (error) {
        lost();
        await client.end().catch(() => undefined);
        throw error;
      }
      return client;
    })();
    // A failed open is reported to whoever awaits `opened`; this only keeps it from counting as unhandled.
    this.opened.catch(() => undefined);
  }

  /** Runs `work` alone on the connection: the units of work of the stacks pinned to it run one after the other. */
  exclusive<T>(work: (client: Client) => Promise<T>): Promise<T> {
    const run = this.#tail.then(async () => work(await this.opened));
    this.#tail = run.catch(() => undefined);
    return run;
  }
}

const pools = new Map<string, SharedStateConnection[]>();

/** A connection of the database at `where` for one stack: a new one below the bound, else the least used. */
export function pinStateConnection(where: PostgresLocation): SharedStateConnection {
  const key = databaseKey(where);
  const pool = pools.get(key) ?? [];
  pools.set(key, pool);
  let chosen: SharedStateConnection | undefined;
  if (pool.length < MAX_STATE_CONNECTIONS) {
    chosen = new SharedStateConnection(where, (lost) => forget(key, lost));
    pool.push(chosen);
  } else {
    for (const connection of pool) if (chosen === undefined || connection.users < chosen.users) chosen = connection;
  }
  chosen!.users++;
  return chosen!;
}

/** The stack's backend is closed: its connection ends when no stack is pinned to it any more. */
export async function unpinStateConnection(where: PostgresLocation, connection: SharedStateConnection): Promise<void> {
  connection.users--;
  if (connection.users > 0) return;
  forget(databaseKey(where), connection);
  const client = await connection.opened.catch(() => undefined);
  await client?.end().catch(() => undefined);
}

/** Open connections of this process to the database at `where`: what a test checks against the bound. */
export function openStateConnections(where: PostgresLocation): number {
  return pools.get(databaseKey(where))?.length ?? 0;
}

function forget(key: string, connection: SharedStateConnection): void {
  const pool = pools.get(key);
  if (pool === undefined) return;
  const at = pool.indexOf(connection);
  if (at !== -1) pool.splice(at, 1);
  if (pool.length === 0) pools.delete(key);
}

/** One server, role and database (the schema is per statement, so stacks of several schemas share connections). */
function databaseKey(where: PostgresLocation): string {
  return JSON.stringify([where.host, where.port, where.user, where.password ?? '', where.database, where.ssl]);
}
