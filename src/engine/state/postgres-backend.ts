/**
 * State in PostgreSQL, for teams: one row per resource (a write changes only the rows of what an operation
 * changed), a row per stack with its lineage and serial (checked by the same statement that writes, so a write
 * based on an older state is refused), the last versions as snapshots, and the lock as an advisory lock held by
 * the stack's connection: the server releases it when that connection ends, however the command ended. The
 * connection is one of the process's shared few to the database (postgres-connections.ts).
 * The tables are created on first use in the URL's schema. `pg` is loaded only when a PostgreSQL URL is used.
 */
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from 'pg';
import { maskPassword } from './postgres-client';
import { pinStateConnection, unpinStateConnection, type SharedStateConnection } from './postgres-connections';
import { createUnderDdlLock } from './postgres-ddl';
import { EngineError, fail, ok, type EngineErrorCode, type Result } from '../errors';
import type { FingerprintKeySource, KeyCreate, KeyLoad } from './fingerprint-key-source';
import { HISTORY_VERSIONS, type AppliedRecord, type HeldLock, type LockHolder, type LockRequest, type StateBackend, type StateChange, type StateRef, type StateVersionInfo } from './backend';
import { lockedError } from './lock-messages';
import { conflictError } from './state-conflict';
import { emptyState, resourceStateSchema, wellFormedEntryInAnyOrder, type ResourceState, type StateFile } from './state-file';
import type { PostgresLocation } from './state-location';
import { setOwn } from '../../own-keys';

const POLL_MS = 200;

export class PostgresStateBackend implements StateBackend {
  readonly location: string;
  /** The shared connection this stack is pinned to, from its first statement until `close`. */
  #connection: SharedStateConnection | undefined;
  #lock: HeldLock | undefined;
  #dirty = false;
  readonly #t: { states: string; resources: string; versions: string; locks: string; keys: string; services: string; digests: string };
  readonly #lockKeys: [string, string];
  /** The lock's keys as one text: what the shared connection notes as held by this process. */
  readonly #lockName: string;

  constructor(
    private readonly where: PostgresLocation,
    private readonly stack: string,
  ) {
    this.location = where.display;
    const schema = `"${where.schema}"`;
    this.#t = { states: `${schema}.states`, resources: `${schema}.resources`, versions: `${schema}.versions`, locks: `${schema}.locks`, keys: `${schema}.fingerprint_keys`, services: `${schema}.services`, digests: `${schema}.applied_digests` };
    this.#lockKeys = [`secretform:${where.schema}`, stack];
    this.#lockName = JSON.stringify(this.#lockKeys);
  }

  async read(): Promise<Result<StateFile>> {
    return this.#run('state_io', 'cannot read state', async (client) => {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const head = await client.query<{ lineage: string; serial: string }>(`SELECT lineage, serial FROM ${this.#t.states} WHERE stack = $1`, [this.stack]);
        if (head.rows.length === 0) return ok(emptyState(this.stack));
        const recorded = await client.query<{ address: string }>(`SELECT address FROM ${this.#t.services} WHERE stack = $1`, [this.stack]);
        const service = recorded.rows.length === 0 ? {} : { service: recorded.rows[0].address };
        const digests = await client.query<{ digest: string; serial: string }>(`SELECT digest, serial FROM ${this.#t.digests} WHERE stack = $1`, [this.stack]);
        const digest = digests.rows.length === 0 ? {} : { applied_digest: { digest: digests.rows[0].digest, serial: Number(digests.rows[0].serial) } };
        const rows = await client.query<{ address: string; entry: unknown }>(`SELECT address, entry FROM ${this.#t.resources} WHERE stack = $1`, [this.stack]);
        const resources: Record<string, ResourceState> = {};
        for (const row of rows.rows) {
          const wellFormed = wellFormedEntryInAnyOrder(row.entry);
          if (wellFormed) {
            setOwn(resources, row.address, wellFormed);
            continue;
          }
          const parsed = resourceStateSchema().safeParse(row.entry);
          if (!parsed.success) {
            const issue = parsed.error.issues[0];
            return fail(new EngineError('state_corrupt', `state ${this.location}: the row of ${row.address} is damaged at ${issue.path.join('.') || '(root)'}: ${issue.message}`));
          }
          setOwn(resources, row.address, parsed.data);
        }
        return ok({ version: 1 as const, lineage: head.rows[0].lineage, serial: Number(head.rows[0].serial), stack: this.stack, resources, ...service, ...digest });
      } finally {
        await client.query('COMMIT');
      }
    });
  }

  async lock(request: LockRequest): Promise<Result<HeldLock>> {
    if (this.#lock) return fail(new EngineError('state_locked', `state ${this.location} is already locked by this command`));
    const holder: LockHolder = { id: randomUUID(), pid: process.pid, host: hostname(), started_at: new Date().toISOString(), command: request.command };
    const deadline = Date.now() + request.timeoutMs;
    for (;;) {
      // Each try is a unit of work of its own and the wait between tries is outside it: the other stacks on the
      // shared connection go on meanwhile.
      const tried = await this.#run('state_io', 'cannot lock state', async (client, connection) => {
        // Held by another backend of this process through this very session: the server would grant it again.
        const heldHere = connection.heldLocks.has(this.#lockName);
        const locked = !heldHere && (await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS locked', this.#lockKeys)).rows[0].locked;
        if (locked) {
          try {
            await client.query(
              `INSERT INTO ${this.#t.locks} (stack, backend_pid, holder) VALUES ($1, pg_backend_pid(), $2)
               ON CONFLICT (stack) DO UPDATE SET backend_pid = excluded.backend_pid, holder = excluded.holder`,
              [this.stack, JSON.stringify(holder)],
            );
          } catch (error) {
            // Not kept: the session may outlive this stack (other stacks share it), and the lock with it.
            await client.query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', this.#lockKeys).catch(() => undefined);
            throw error;
          }
          connection.heldLocks.add(this.#lockName);
          return ok(true);
        }
        if (Date.now() >= deadline) {
          const current = await this.#holder(client);
          return fail(lockedError(`state ${this.location}`, current?.holder, request.timeoutMs, 'end the holder\'s database session'));
        }
        return ok(false);
      });
      if (!tried.ok) return tried;
      if (tried.value) {
        this.#lock = { holder, release: () => this.#release() };
        return ok(this.#lock);
      }
      await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
    }
  }

  async lockHolder(): Promise<Result<LockHolder | undefined>> {
    return this.#run('state_io', 'cannot read the lock of state', async (client) => ok((await this.#holder(client))?.holder));
  }

  /** Ends the holder's database session: the server then releases its advisory lock (and its writes stop). */
  async forceUnlock(): Promise<Result<LockHolder | undefined>> {
    return this.#run('state_io', 'cannot remove the lock of state', async (client) => {
      const current = await this.#holder(client);
      if (!current) return ok(undefined);
      const ended = await client.query<{ ended: boolean }>('SELECT pg_terminate_backend($1) AS ended', [current.pid]);
      if (!ended.rows[0].ended) {
        return fail(new EngineError('state_locked', `state ${this.location}: could not end the session (pid ${current.pid}) that holds the lock; a database administrator can run SELECT pg_terminate_backend(${current.pid})`));
      }
      await client.query(`DELETE FROM ${this.#t.locks} WHERE stack = $1 AND backend_pid = $2`, [this.stack, current.pid]);
      return ok(current.holder);
    });
  }

  async write(base: StateRef, changes: StateChange[], service?: string, appliedDigest?: string): Promise<Result<number>> {
    if (!this.#lock) return fail(notLocked(this.location, 'write'));
    return this.#run('state_io', 'cannot write state', async (client) => {
      if (base.serial === 0) {
        await client.query(`INSERT INTO ${this.#t.states} (stack, lineage, serial) VALUES ($1, $2, 0) ON CONFLICT (stack) DO NOTHING`, [this.stack, base.lineage]);
      }
      const sets = changes.filter((change) => change.entry).map((change) => ({ address: change.address, entry: change.entry }));
      const deletes = changes.filter((change) => !change.entry).map((change) => change.address);
      // One statement: the serial check, the bump and the rows change together or not at all.
      const written = await client.query<{ serial: string }>(
        `WITH bumped AS (
           UPDATE ${this.#t.states} SET serial = serial + 1, updated_at = now()
           WHERE stack = $1 AND lineage = $2 AND serial = $3 RETURNING serial),
         upserted AS (
           INSERT INTO ${this.#t.resources} (stack, address, entry)
           SELECT $1, x.address, x.entry FROM bumped, jsonb_to_recordset($4::jsonb) AS x(address text, entry jsonb)
           ON CONFLICT (stack, address) DO UPDATE SET entry = excluded.entry RETURNING 1),
         deleted AS (
           DELETE FROM ${this.#t.resources} WHERE stack = $1 AND address = ANY($5::text[]) AND EXISTS (SELECT 1 FROM bumped) RETURNING 1)
         SELECT serial FROM bumped`,
        [this.stack, base.lineage, base.serial, JSON.stringify(sets), deletes],
      );
      if (written.rows.length === 0) return fail(conflictError(this.location, base, await this.#storedRef(client, base)));
      // After the serial check: only the command whose write was taken records where the stack is applied.
      if (service !== undefined) await this.#recordService(client, service);
      const serial = Number(written.rows[0].serial);
      if (appliedDigest !== undefined) await this.#recordDigest(client, appliedDigest, serial);
      this.#dirty = true;
      return ok(serial);
    });
  }

  async replace(base: StateRef | undefined, next: { lineage: string; resources: Record<string, ResourceState>; service?: string }, command: string): Promise<Result<StateFile>> {
    if (!this.#lock) return fail(notLocked(this.location, 'replace'));
    const replaced = await this.#run('state_io', 'cannot write state', async (client) => {
      await client.query('BEGIN');
      try {
        const head = await client.query<{ lineage: string; serial: string }>(`SELECT lineage, serial FROM ${this.#t.states} WHERE stack = $1 FOR UPDATE`, [this.stack]);
        const stored: StateRef = head.rows.length === 0 ? { lineage: base?.lineage ?? next.lineage, serial: 0 } : { lineage: head.rows[0].lineage, serial: Number(head.rows[0].serial) };
        if (base && (stored.serial !== base.serial || (stored.serial > 0 && stored.lineage !== base.lineage))) {
          await client.query('ROLLBACK');
          return fail(conflictError(this.location, base, stored));
        }
        const serial = stored.serial + 1;
        await client.query(
          `INSERT INTO ${this.#t.states} (stack, lineage, serial) VALUES ($1, $2, $3)
           ON CONFLICT (stack) DO UPDATE SET lineage = excluded.lineage, serial = excluded.serial, updated_at = now()`,
          [this.stack, next.lineage, serial],
        );
        await client.query(`DELETE FROM ${this.#t.resources} WHERE stack = $1`, [this.stack]);
        const rows = Object.entries(next.resources).map(([address, entry]) => ({ address, entry }));
        await client.query(
          `INSERT INTO ${this.#t.resources} (stack, address, entry) SELECT $1, x.address, x.entry FROM jsonb_to_recordset($2::jsonb) AS x(address text, entry jsonb)`,
          [this.stack, JSON.stringify(rows)],
        );
        // The service the stack is applied to stays recorded unless the replacement names one.
        if (next.service !== undefined) await this.#recordService(client, next.service);
        const kept = await client.query<{ address: string }>(`SELECT address FROM ${this.#t.services} WHERE stack = $1`, [this.stack]);
        await client.query('COMMIT');
        const service = kept.rows.length === 0 ? {} : { service: kept.rows[0].address };
        return ok({ version: 1 as const, stack: this.stack, lineage: next.lineage, serial, resources: { ...next.resources }, ...service });
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
    if (!replaced.ok) return replaced;
    this.#dirty = true;
    const recorded = await this.checkpoint(command);
    if (!recorded.ok) return recorded;
    return replaced;
  }

  async checkpoint(command: string): Promise<Result<void>> {
    if (!this.#lock) return fail(notLocked(this.location, 'checkpoint'));
    if (!this.#dirty) return ok(undefined);
    return this.#run('state_io', 'cannot record the state version of', async (client) => {
      // The snapshot is built by the server from the rows: nothing travels but the command's name.
      await client.query(
        `INSERT INTO ${this.#t.versions} (stack, serial, lineage, command, resources)
         SELECT s.stack, s.serial, s.lineage, $2,
                COALESCE((SELECT jsonb_object_agg(r.address, r.entry) FROM ${this.#t.resources} r WHERE r.stack = s.stack), '{}'::jsonb)
         FROM ${this.#t.states} s WHERE s.stack = $1
         ON CONFLICT (stack, serial) DO NOTHING`,
        [this.stack, command],
      );
      await client.query(
        `DELETE FROM ${this.#t.versions} WHERE stack = $1 AND serial NOT IN
           (SELECT serial FROM ${this.#t.versions} WHERE stack = $1 ORDER BY serial DESC LIMIT $2)`,
        [this.stack, HISTORY_VERSIONS],
      );
      this.#dirty = false;
      return ok(undefined);
    });
  }

  async history(): Promise<Result<StateVersionInfo[]>> {
    return this.#run('state_io', 'cannot read the history of state', async (client) => {
      const rows = await client.query<{ serial: string; lineage: string; created_at: Date; command: string; resources: string }>(
        `SELECT serial, lineage, created_at, command, (SELECT count(*) FROM jsonb_object_keys(resources)) AS resources
         FROM ${this.#t.versions} WHERE stack = $1 ORDER BY serial DESC`,
        [this.stack],
      );
      return ok(rows.rows.map((row) => ({ serial: Number(row.serial), lineage: row.lineage, created_at: row.created_at.toISOString(), command: row.command, resources: Number(row.resources) })));
    });
  }

  async version(serial: number): Promise<Result<StateFile>> {
    return this.#run('state_io', 'cannot read the history of state', async (client) => {
      const rows = await client.query<{ lineage: string; resources: Record<string, ResourceState> }>(
        `SELECT lineage, resources FROM ${this.#t.versions} WHERE stack = $1 AND serial = $2`,
        [this.stack, serial],
      );
      if (rows.rows.length === 0) {
        return fail(new EngineError('address_unknown', `state ${this.location} keeps no version with serial ${serial}; \`secretform state history\` lists those it keeps`));
      }
      return ok({ version: 1 as const, stack: this.stack, lineage: rows.rows[0].lineage, serial, resources: rows.rows[0].resources });
    });
  }

  async close(): Promise<void> {
    await this.#lock?.release();
    const connection = this.#connection;
    this.#connection = undefined;
    // Ended when no other stack is pinned to it (a connection still opening, once open).
    if (connection !== undefined) await unpinStateConnection(this.where, connection);
  }

  /**
   * The stack's fingerprint key in its own table, `fingerprint_keys`: never part of a state row, a version, or
   * `state pull`, so a role that may read the state tables but not this one cannot test password guesses.
   */
  fingerprintKeySource(): FingerprintKeySource {
    const description = `table ${this.where.schema}.fingerprint_keys of ${this.location}`;
    const load = async (): Promise<KeyLoad> => {
      const read = await this.#run('state_io', 'cannot read the fingerprint key in', async (client) => {
        const rows = await client.query<{ key: Buffer }>(`SELECT key FROM ${this.#t.keys} WHERE stack = $1`, [this.stack]);
        return ok(rows.rows[0]?.key);
      });
      return read.ok ? { ok: true, key: read.value } : { ok: false, reason: read.error.message };
    };
    const create = async (key: Buffer): Promise<KeyCreate> => {
      // The first writer wins: a second first apply reads the key the other stored.
      const stored = await this.#run('state_io', 'cannot store the fingerprint key in', async (client) => {
        await client.query(`INSERT INTO ${this.#t.keys} (stack, key) VALUES ($1, $2) ON CONFLICT (stack) DO NOTHING`, [this.stack, key]);
        const rows = await client.query<{ key: Buffer }>(`SELECT key FROM ${this.#t.keys} WHERE stack = $1`, [this.stack]);
        return ok(rows.rows[0].key);
      });
      return stored.ok ? { ok: true, key: stored.value } : { ok: false, reason: stored.error.message };
    };
    return { description, load, create };
  }

  async #release(): Promise<void> {
    if (!this.#lock) return;
    this.#lock = undefined;
    const connection = this.#connection;
    if (!connection) return;
    try {
      await connection.exclusive(async (client) => {
        await client.query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', this.#lockKeys);
        await client.query(`DELETE FROM ${this.#t.locks} WHERE stack = $1 AND backend_pid = pg_backend_pid()`, [this.stack]);
      });
    } catch {
      // A broken connection: the server released the lock when the session ended.
    } finally {
      connection.heldLocks.delete(this.#lockName);
    }
  }

  /** The session holding the stack's advisory lock (the server's view) and what it recorded about itself. */
  async #holder(client: Client): Promise<{ pid: number; holder: LockHolder } | undefined> {
    const rows = await client.query<{ pid: number; holder: LockHolder | null }>(
      `SELECT l.pid, k.holder FROM pg_locks l
       LEFT JOIN ${this.#t.locks} k ON k.stack = $3 AND k.backend_pid = l.pid
       WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
         AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
         AND l.classid::bigint = (hashtext($1)::bigint + 4294967296) % 4294967296
         AND l.objid::bigint = (hashtext($2)::bigint + 4294967296) % 4294967296`,
      [...this.#lockKeys, this.stack],
    );
    if (rows.rows.length === 0) return undefined;
    const { pid, holder } = rows.rows[0];
    return { pid, holder: holder ?? { id: '', pid: 0, host: 'unknown', started_at: '', command: `a database session (server pid ${pid})` } };
  }

  async #storedRef(client: Client, base: StateRef): Promise<StateRef> {
    const head = await client.query<{ lineage: string; serial: string }>(`SELECT lineage, serial FROM ${this.#t.states} WHERE stack = $1`, [this.stack]);
    return head.rows.length === 0 ? { lineage: base.lineage, serial: 0 } : { lineage: head.rows[0].lineage, serial: Number(head.rows[0].serial) };
  }

  /**
   * Runs `work` alone on the stack's connection (opened and the tables created on first use); errors name the
   * masked URL only.
   */
  async #run<T>(code: EngineErrorCode, what: string, work: (client: Client, connection: SharedStateConnection) => Promise<Result<T>>): Promise<Result<T>> {
    const connection = await this.#connect();
    if (!connection.ok) return connection;
    try {
      return await connection.value.exclusive((client) => work(client, connection.value));
    } catch (error) {
      return fail(new EngineError(code, `${what} ${this.location}: ${this.#mask((error as Error).message)}`));
    }
  }

  /** The stack's connection, pinned at its first statement, with the schema's tables checked once per connection. */
  async #connect(): Promise<Result<SharedStateConnection>> {
    this.#connection ??= pinStateConnection(this.where);
    const connection = this.#connection;
    try {
      await connection.opened;
    } catch (error) {
      // A failed open is not kept: the next call pins again (and reports its own error).
      await this.#unpin(connection);
      return fail(new EngineError('state_config', `cannot connect to the state database ${this.location}: ${this.#mask((error as Error).message)}`));
    }
    if (connection.schemasReady.has(this.where.schema)) return ok(connection);
    try {
      await connection.exclusive((client) => this.#createTables(client));
    } catch (error) {
      await this.#unpin(connection);
      return fail(new EngineError('state_config', `cannot create the state tables in schema "${this.where.schema}" of ${this.location}: ${this.#mask((error as Error).message)}`));
    }
    connection.schemasReady.add(this.where.schema);
    return ok(connection);
  }

  async #unpin(connection: SharedStateConnection): Promise<void> {
    if (this.#connection !== connection) return;
    this.#connection = undefined;
    await unpinStateConnection(this.where, connection);
  }

  /**
   * The digest of the desired state an apply carried out in full, with the serial it left, in a table of its own:
   * an older version never writes it, and its writes move the serial on, so a digest it left behind reads as stale.
   */
  async #recordDigest(client: Client, digest: string, serial: number): Promise<void> {
    await client.query(
      `INSERT INTO ${this.#t.digests} (stack, digest, serial) VALUES ($1, $2, $3) ON CONFLICT (stack) DO UPDATE SET digest = excluded.digest, serial = excluded.serial, updated_at = now()`,
      [this.stack, digest, serial],
    );
  }

  /**
   * What change detection needs of each of `stacks` (`secretform stacks`, `--changed`), in ONE query whatever their
   * number: the state's serial (absent: no state yet), the service it was applied to and the applied digest. No
   * lock is taken and no resource row is read.
   */
  async appliedRecords(stacks: readonly string[]): Promise<Result<Map<string, AppliedRecord>>> {
    return this.#run('state_io', 'cannot read the applied digests of state', async (client) => {
      const rows = await client.query<{ stack: string; serial: string; service: string | null; digest: string | null; digest_serial: string | null }>(
        `SELECT s.stack, s.serial, v.address AS service, d.digest, d.serial AS digest_serial
         FROM ${this.#t.states} s LEFT JOIN ${this.#t.services} v ON v.stack = s.stack LEFT JOIN ${this.#t.digests} d ON d.stack = s.stack
         WHERE s.stack = ANY($1::text[])`,
        [stacks],
      );
      const records = new Map<string, AppliedRecord>();
      for (const row of rows.rows) {
        records.set(row.stack, {
          serial: Number(row.serial),
          ...(row.service === null ? {} : { service: row.service }),
          ...(row.digest === null || row.digest_serial === null ? {} : { appliedDigest: { digest: row.digest, serial: Number(row.digest_serial) } }),
        });
      }
      return ok(records);
    });
  }

  /** The service the stack is applied to, in a table of its own (an older version's statements never touch it). */
  async #recordService(client: Client, service: string): Promise<void> {
    await client.query(
      `INSERT INTO ${this.#t.services} (stack, address) VALUES ($1, $2) ON CONFLICT (stack) DO UPDATE SET address = excluded.address, updated_at = now()`,
      [this.stack, service],
    );
  }

  async #createTables(client: Client): Promise<void> {
    // The newest table: databases made by an older secretform get it (and any other table missing) on first use.
    const present = await client.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [this.#t.digests]);
    if (present.rows[0].present) return;
    const schema = `"${this.where.schema}"`;
    await createUnderDdlLock(client, `
      CREATE SCHEMA IF NOT EXISTS ${schema};
      CREATE TABLE IF NOT EXISTS ${this.#t.states} (
        stack text PRIMARY KEY, lineage text NOT NULL, serial bigint NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE IF NOT EXISTS ${this.#t.resources} (
        stack text NOT NULL REFERENCES ${this.#t.states} (stack) ON DELETE CASCADE, address text NOT NULL, entry jsonb NOT NULL,
        PRIMARY KEY (stack, address));
      CREATE TABLE IF NOT EXISTS ${this.#t.versions} (
        stack text NOT NULL, serial bigint NOT NULL, lineage text NOT NULL, created_at timestamptz NOT NULL DEFAULT now(),
        command text NOT NULL, resources jsonb NOT NULL, PRIMARY KEY (stack, serial));
      CREATE TABLE IF NOT EXISTS ${this.#t.locks} (stack text PRIMARY KEY, backend_pid integer NOT NULL, holder jsonb NOT NULL);
      CREATE TABLE IF NOT EXISTS ${this.#t.keys} (stack text PRIMARY KEY, key bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE IF NOT EXISTS ${this.#t.services} (stack text PRIMARY KEY, address text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());
      CREATE TABLE IF NOT EXISTS ${this.#t.digests} (stack text PRIMARY KEY, digest text NOT NULL, serial bigint NOT NULL, updated_at timestamptz NOT NULL DEFAULT now());`);
  }

  #mask(message: string): string {
    return maskPassword(this.where, message);
  }
}

function notLocked(location: string, what: string): EngineError {
  return new EngineError('state_io', `internal: ${what} of state ${location} without holding its lock`);
}
