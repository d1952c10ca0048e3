/**
 * A PostgreSQL state's drift history: one row per stack in `drift_history`, a table of the state's schema
 * (created on first use, as the state's tables are). An update is one transaction that first takes a
 * transaction-scoped advisory lock of the stack's history (not the state's lock), then reads, then writes: checks
 * that run at once are recorded one after the other, none lost. The lock is tried, and a busy one tried again
 * after a pause outside the transaction, so a wait never holds the connection other stacks share. `pg` is loaded only when this is used.
 *
 * Its statements run on the process's shared connections to the database (postgres-connections.ts), as the state
 * backend's do: a drift check of many stacks used to open one more connection per stack for its history, past the
 * run's bound, and met a role's `CONNECTION LIMIT` (the history then went unrecorded). Each read or update is one
 * unit of work on the shared connection, so no other stack's statement lands inside its transaction.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'pg';
import { maskPassword } from './postgres-client';
import { pinStateConnection, unpinStateConnection, type SharedStateConnection } from './postgres-connections';
import { createUnderDdlLock } from './postgres-ddl';
import { EngineError, fail, ok, type Result } from '../errors';
import type { DriftHistoryStore } from './drift-history-store';
import type { PostgresLocation } from './state-location';

/** What a try returns when another update of the stack's history holds its lock. */
const BUSY: unique symbol = Symbol('drift history busy');

/** The wait between tries of a busy history: its updates are a read and a write, a few milliseconds each. */
const HISTORY_POLL_MS = 20;

export class PostgresDriftHistoryStore implements DriftHistoryStore {
  readonly location: string;
  readonly #table: string;
  /** The shared connection this store is pinned to, from its first statement until `close`. */
  #connection: SharedStateConnection | undefined;

  constructor(
    private readonly where: PostgresLocation,
    private readonly stack: string,
  ) {
    this.#table = `"${where.schema}".drift_history`;
    this.location = `table ${where.schema}.drift_history of ${where.display}`;
  }

  async read(): Promise<Result<unknown>> {
    return this.#run('cannot read the drift history', async (client) => {
      const rows = await client.query<{ document: unknown }>(`SELECT document FROM ${this.#table} WHERE stack = $1`, [this.stack]);
      return ok(rows.rows[0]?.document);
    });
  }

  async update<T>(change: (stored: unknown) => Result<{ document: unknown; value: T }>): Promise<Result<T>> {
    for (;;) {
      const tried = await this.#run<T | typeof BUSY>('cannot record in the drift history', async (client) => {
        await client.query('BEGIN');
        try {
          // Tried, not waited for: a wait inside this unit of work would hold the shared connection, and every
          // other stack's statements on it, until the stack's other update ends. The wait is outside, below.
          const lock = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock(hashtext($1), hashtext($2)) AS locked', [`secretform:drift:${this.where.schema}`, this.stack]);
          if (!lock.rows[0].locked) {
            await client.query('ROLLBACK');
            return ok(BUSY);
          }
          const rows = await client.query<{ document: unknown }>(`SELECT document FROM ${this.#table} WHERE stack = $1`, [this.stack]);
          const changed = change(rows.rows[0]?.document);
          if (!changed.ok) {
            await client.query('ROLLBACK');
            return changed;
          }
          await client.query(
            `INSERT INTO ${this.#table} (stack, document, updated_at) VALUES ($1, $2, now())
             ON CONFLICT (stack) DO UPDATE SET document = EXCLUDED.document, updated_at = now()`,
            [this.stack, JSON.stringify(changed.value.document)],
          );
          await client.query('COMMIT');
          return ok(changed.value.value);
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        }
      });
      if (!tried.ok) return tried;
      if (tried.value !== BUSY) return ok(tried.value);
      await sleep(HISTORY_POLL_MS);
    }
  }

  async close(): Promise<void> {
    const connection = this.#connection;
    this.#connection = undefined;
    // Ended when no other user of the process is pinned to it.
    if (connection !== undefined) await unpinStateConnection(this.where, connection);
  }

  /** Runs `work` alone on the store's connection (pinned, and the table created, on first use). */
  async #run<T>(what: string, work: (client: Client) => Promise<Result<T>>): Promise<Result<T>> {
    const connection = await this.#connect();
    if (!connection.ok) return connection;
    try {
      return await connection.value.exclusive(work);
    } catch (error) {
      return fail(new EngineError('state_io', `${what} ${this.location}: ${this.#mask((error as Error).message)}`));
    }
  }

  /** The pinned connection, with the table checked once per connection and schema; a failure unpins it. */
  async #connect(): Promise<Result<SharedStateConnection>> {
    this.#connection ??= pinStateConnection(this.where);
    const connection = this.#connection;
    try {
      await connection.opened;
      if (!connection.driftHistoryReady.has(this.where.schema)) {
        await connection.exclusive((client) => this.#createTable(client));
        connection.driftHistoryReady.add(this.where.schema);
      }
    } catch (error) {
      // Not kept: the next call pins again (and reports its own error).
      await this.close();
      return fail(new EngineError('state_config', `cannot open the drift history ${this.location}: ${this.#mask((error as Error).message)}`));
    }
    return ok(connection);
  }

  async #createTable(client: Client): Promise<void> {
    const present = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [this.#table]);
    if (present.rows[0].present) return;
    await createUnderDdlLock(client, `
      CREATE SCHEMA IF NOT EXISTS "${this.where.schema}";
      CREATE TABLE IF NOT EXISTS ${this.#table} (
        stack text PRIMARY KEY, document jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());`);
  }

  #mask(message: string): string {
    return maskPassword(this.where, message);
  }
}
