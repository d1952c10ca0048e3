/**
 * Where a stack's drift history (src/engine/drift/history.ts) is kept: with the state, by the state's backend
 * kind. A local state's history is a file beside the state file (drift-history-file.ts); a PostgreSQL state's
 * is a row of its own table in the state's schema (drift-history-postgres.ts), shared by every machine and
 * scheduled job of the team. Neither touches the state itself nor takes the state's lock.
 *
 * The store knows the document only as JSON: what it means, and whether it is damaged, is the drift stage's.
 */
import type { Result } from '../errors';

export interface DriftHistoryStore {
  /** The history's place, printable (`file PATH`, `table SCHEMA.drift_history of URL`, the password masked). */
  readonly location: string;
  /** The stored document (`undefined`: none yet); a file that is not JSON is an error naming it. */
  read(): Promise<Result<unknown>>;
  /**
   * Reads the document and stores what `change` makes of it, as one step no other update can come between (a
   * check recorded at the same time is recorded after this one, never lost). `change` failing stores nothing.
   */
  update<T>(change: (stored: unknown) => Result<{ document: unknown; value: T }>): Promise<Result<T>>;
  close(): Promise<void>;
}
