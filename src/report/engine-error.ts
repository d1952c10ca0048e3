/**
 * The one place an engine error's subject becomes words: `stack blue: e2e/kv: <message>`. Every report and every
 * command prints an engine error through it, so its stack is named once (never dropped, never twice) whichever
 * way the error travelled.
 */
import type { ErrorSubject } from '../engine/errors';

/** An error with what it is about: an EngineError, or a command's failure carrying one's subject. */
export interface SubjectError {
  readonly message: string;
  readonly subject?: ErrorSubject;
}

export function describeEngineError(error: SubjectError): string {
  const stack = error.subject?.stack;
  const address = error.subject?.address;
  const about = [stack === undefined ? undefined : `stack ${stack}`, address].filter((part) => part !== undefined);
  return [...about, error.message].join(': ');
}
