/**
 * The one interface every place that keeps state implements (a local file with its journal, a PostgreSQL
 * database). A command reads the state, takes the lock before it changes anything, writes only what each
 * operation changed (so keeping state costs the same per operation whatever the size of the state), and ends
 * with a checkpoint that records the state as a version of its history.
 *
 * Every write names the state it is based on (lineage and serial): a backend refuses a write based on any other
 * state, so two commands can never silently overwrite each other's changes. A saved plan records the same pair
 * to check that the state it was made from is still the current one.
 */
import type { Result } from '../errors';
import type { FingerprintKeySource } from './fingerprint-key-source';
import type { AppliedDigest, ResourceState, StateFile } from './state-file';

/** Which state a write is based on. */
export interface StateRef {
  lineage: string;
  serial: number;
}

/** One resource recorded (entry) or forgotten (undefined). */
export interface StateChange {
  address: string;
  entry: ResourceState | undefined;
}

/** Who holds a lock: shown when another command has to wait for it or remove it. */
export interface LockHolder {
  /** A random id of this hold, so a release never removes someone else's lock. */
  id: string;
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  started_at: string;
  /** e.g. `secretform apply` (never a flag value: a URL there could hold a password). */
  command: string;
}

export interface LockRequest {
  /** What the holder is doing, e.g. `secretform apply`. */
  command: string;
  /** How long to wait for a live holder (0: fail at once). */
  timeoutMs: number;
}

export interface HeldLock {
  readonly holder: LockHolder;
  /** Idempotent: the second call does nothing. */
  release(): Promise<void>;
}

/** One entry of the history: a state as it stood at the end of a command. */
export interface StateVersionInfo {
  serial: number;
  lineage: string;
  /** ISO time. */
  created_at: string;
  command: string;
  resources: number;
}

export interface StateBackend {
  /** Where the state lives, printable (a password in a URL is masked). */
  readonly location: string;
  /** The current state (an empty one, with a new lineage, when nothing was ever written). */
  read(): Promise<Result<StateFile>>;
  /** Takes the stack's lock, waiting up to `timeoutMs` for a live holder; the error names the holder. */
  lock(request: LockRequest): Promise<Result<HeldLock>>;
  /** Who holds the lock now, if anyone. */
  lockHolder(): Promise<Result<LockHolder | undefined>>;
  /** Removes the lock whoever holds it (the holder is returned; undefined when there was none). */
  forceUnlock(): Promise<Result<LockHolder | undefined>>;
  /**
   * Records the changes of one or more operations on top of `base` and returns the new serial (base + 1), and,
   * when `service` is given, the service the stack is now applied to (`StateFile.service`). With `appliedDigest`,
   * the write is the last of an apply that carried out the whole desired state: the digest is recorded with the
   * new serial (`StateFile.applied_digest`). Refused (`state_conflict`) when the stored state is not `base`.
   * Needs the lock.
   */
  write(base: StateRef, changes: StateChange[], service?: string, appliedDigest?: string): Promise<Result<number>>;
  /**
   * Replaces the whole state (restore, push, edits of the state commands): based on `base` (checked as in
   * `write`), or on whatever is stored when `base` is undefined (push --force). The recorded service is
   * `next.service`, else the one already recorded. Needs the lock.
   */
  replace(base: StateRef | undefined, next: { lineage: string; resources: Record<string, ResourceState>; service?: string }, command: string): Promise<Result<StateFile>>;
  /** Ends a command's writes: the state as it now stands becomes a version of the history. Needs the lock. */
  checkpoint(command: string): Promise<Result<void>>;
  /** The kept versions, newest first. */
  history(): Promise<Result<StateVersionInfo[]>>;
  /** One kept version's state. */
  version(serial: number): Promise<Result<StateFile>>;
  /** Closes connections; the lock (if still held) is released. */
  close(): Promise<void>;
  /**
   * A place of the backend's own for the stack's fingerprint key, apart from the state rows (so reading or
   * exporting the state never gives the key); absent when the backend has none (the local file).
   */
  fingerprintKeySource?(): FingerprintKeySource;
}

/** One stack's state as change detection sees it (state/applied-records.ts): no resource entry, no lock. */
export interface AppliedRecord {
  /** The state's serial: an applied digest describes the state only while its serial is this one. */
  serial: number;
  /** The service the state was applied to (absent in a state written by an older version). */
  service?: string;
  /** The digest the last complete apply recorded (absent: none was ever recorded). */
  appliedDigest?: AppliedDigest;
}

/** How many versions a backend keeps. */
export const HISTORY_VERSIONS = 20;
