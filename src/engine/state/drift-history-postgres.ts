/**
 * A PostgreSQL state's drift history: one row per stack in `drift_history`, a table of the state's schema
 * (created on first use, as the state's tables are). An update is one transaction that first takes a
 * transaction-scoped advisory lock of the stack's history (not the state's lock), then reads, then writes: checks
 * that run at once are recorded one after the other, none lost. `pg` is loaded only when this is used.
 */
import type { Client } from 'pg';
import { newPostgresClient } from './postgres-client';
import { EngineError, fail, ok, type Result } from '../errors';
import type { DriftHistoryStore } from './drift-history-store';
import type { PostgresLocation } from './state-location';


export class PostgresDriftHistoryStore implements DriftHistoryStore {
  readonly location: string;
  readonly #table: string;
  #client: Promise<Result<Client>> | undefined;

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
    return this.#run('cannot record in the drift history', async (client) => {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [`secretform:drift:${this.where.schema}`, this.stack]);
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
  }

  async close(): Promise<void> {
    const opened = this.#client;
    this.#client = undefined;
    const client = opened ? await opened : undefined;
    if (client?.ok) await client.value.end().catch(() => undefined);
  }

  async #run<T>(what: string, work: (client: Client) => Promise<Result<T>>): Promise<Result<T>> {
    this.#client ??= this.#open();
    const client = await this.#client;
    if (!client.ok) {
      this.#client = undefined;
      return client;
    }
    try {
      return await work(client.value);
    } catch (error) {
      return fail(new EngineError('state_io', `${what} ${this.location}: ${this.#mask((error as Error).message)}`));
    }
  }

  async #open(): Promise<Result<Client>> {
    const client = await newPostgresClient(this.where, 'secretform drift');
    try {
      await client.connect();
      const present = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [this.#table]);
      if (!present.rows[0].present) {
        // Under the same DDL lock as the state's tables: two first checks do not race to create it.
        await client.query(`BEGIN;
          SELECT pg_advisory_xact_lock(hashtext('secretform:ddl'));
          CREATE SCHEMA IF NOT EXISTS "${this.where.schema}";
          CREATE TABLE IF NOT EXISTS ${this.#table} (
            stack text PRIMARY KEY, document jsonb NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());
          COMMIT;`);
      }
    } catch (error) {
      await client.end().catch(() => undefined);
      return fail(new EngineError('state_config', `cannot open the drift history ${this.location}: ${this.#mask((error as Error).message)}`));
    }
    return ok(client);
  }

  #mask(message: string): string {
    const password = this.where.password;
    return password ? message.split(password).join('***') : message;
  }
}
