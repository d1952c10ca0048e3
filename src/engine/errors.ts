/**
 * An error the engine reports to its caller: a stable code, a message that says what and how to fix it, and
 * what it is about (`subject`) when that is known: the stack, the address. The message never names the subject
 * itself: `describeEngineError` (src/report/engine-error.ts) puts the two together, in one place.
 */
export class EngineError extends Error {
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    readonly subject: ErrorSubject = {},
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

/**
 * What an error is about. Set once, where it is known: by the code that fails for that stack or address, or
 * where a stack's failure becomes the run's (`inStack`). (Not `stack`: an Error's `stack` is its trace.)
 */
export interface ErrorSubject {
  readonly stack?: string;
  readonly address?: string;
}

/**
 * The error as the failure of stack `stack`: an error that names its stack already keeps it, so that a stack is
 * named once however many places hand the failure on.
 */
export function inStack(error: EngineError, stack: string): EngineError {
  if (error.subject.stack !== undefined) return error;
  return new EngineError(error.code, error.message, { ...error.subject, stack });
}

export type EngineErrorCode =
  | 'state_corrupt'
  | 'state_locked'
  | 'state_io'
  | 'state_stack_mismatch'
  /** The run's connection names another service than the one the stack's state was applied to: nothing is sent. */
  | 'service_mismatch'
  /** A write based on a state that is no longer the current one (another command wrote it since). */
  | 'state_conflict'
  /** `--state` / SECRETFORM_STATE cannot be used (unknown URL scheme, bad schema name, unreachable database). */
  | 'state_config'
  | 'desired_invalid'
  /** An address that is not in the desired state or the state file. */
  | 'address_unknown'
  /** An import id that does not fit the type, or names an object that does not exist. */
  | 'import_invalid'
  | 'secret_unresolved'
  /** SERVICE_ADDR / SERVICE_CACERT / ... cannot be used. */
  | 'service_config'
  | 'service_error'
  /** A failure that concerns the whole run (wrong token, service unreachable, TLS): reported once, the run stopped. */
  | 'service_unusable'
  | 'interrupted'
  /** A saved plan file that cannot be read, written or understood. */
  | 'plan_file'
  /** A saved plan whose state or live objects changed since it was made: it is not applied. */
  | 'plan_stale'
  /** The plan would delete or replace an object protected with `protect` (docs/guardrails.md): nothing is written. */
  | 'protected'
  /** A saved plan whose MAC is missing or does not match (changed after it was written): it is not applied. */
  | 'plan_tampered'
  /** A saved plan whose changes are already recorded in the state: applying it again is refused. */
  | 'plan_already_applied'

  /** A policy's check threw or returned something that is not a list of violations. */
  | 'policy_error'
  /** A mandatory policy failed: apply refuses before any write. */
  | 'policy_failed'
  /** An operation (`secretform action`) the type does not offer, or an option it does not take. */
  | 'operation_unsupported'
  /** A library check-out found no account available. */
  | 'no_account_available'
  /** A stack's drift history that cannot be read as one (damaged): named, never overwritten. */
  | 'drift_history_corrupt'
  /** A drift history written by a newer secretform: refused rather than rewritten by this one. */
  | 'drift_history_newer'
  /** `drift ack`/`unack` of an address that is unknown, not drifted now, or not acknowledged. */
  | 'drift_not_drifted'
  /** `--fail-on` could not be decided: the statuses it needs come from a history that cannot be read. */
  | 'drift_statuses_unavailable';

export type Result<T, E = EngineError> = { ok: true; value: T } | { ok: false; error: E };

export const ok = <T>(value: T): Result<T, never> => ({ ok: true, value });
export const fail = <E>(error: E): Result<never, E> => ({ ok: false, error });
