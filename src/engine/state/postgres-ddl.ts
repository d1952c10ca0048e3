/**
 * Creating a state database's tables on first use, for every part of the state stage that keeps a table there
 * (the state backend's, the drift history's): in one transaction under one transaction-scoped advisory lock, so
 * two first commands do not race to create the same tables. A failure leaves no open transaction behind: other
 * stacks of the process may share the connection (postgres-connections.ts).
 */
import type { Client } from 'pg';

/** Runs `statements` (`CREATE ... IF NOT EXISTS`, separated by `;`) under the DDL lock, all or nothing. */
export async function createUnderDdlLock(client: Client, statements: string): Promise<void> {
  try {
    await client.query(`BEGIN;
      SELECT pg_advisory_xact_lock(hashtext('secretform:ddl'));
      ${statements}
      COMMIT;`);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
