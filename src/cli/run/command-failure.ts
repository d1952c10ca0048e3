/**
 * The one shape of a command's failure: a `CommandFailure` value (a code, the message, what it is about, the exit
 * code), returned up to the command's entry and printed in one place, `endCommand` (main.ts calls it once the
 * command returned). Flag parsers throw a `UsageError`; the command's parse step turns it into a failure
 * (`attempt`). Words a run prints about its outcome (a report, each stack's result) are the views'; a
 * command that printed its outcome ends with that outcome's exit code instead.
 */
import { EngineError, type EngineErrorCode, type ErrorSubject } from '../../engine/errors';
import { describeEngineError } from '../../report/engine-error';
import { writeError, type CliIo } from './io';
import { UsageError } from './usage-error';

/** What kind of failure: the engine error's code, or the CLI's own (a flag, a refused prompt, anything else). */
export type FailureCode = EngineErrorCode | 'usage' | 'cancelled' | 'failed';

export class CommandFailure {
  constructor(
    readonly code: FailureCode,
    /** What went wrong and how to fix it, without its subject (`describeEngineError` adds that). */
    readonly message: string,
    readonly subject: ErrorSubject = {},
    readonly exitCode = 1,
    /** What the line starts with: `Error`, or the command's name for dev-server and synth, which always said so. */
    readonly lead = 'Error',
  ) {}
}

/** How a command ends: the exit code it chose once it said everything itself, or a failure to report. */
export type CommandEnd = number | CommandFailure;

/** Any error as the command's failure: an engine error keeps its code and subject, a flag's error is `usage`. */
export function commandFailure(error: unknown): CommandFailure {
  if (error instanceof CommandFailure) return error;
  if (error instanceof EngineError) return new CommandFailure(error.code, error.message, error.subject);
  if (error instanceof UsageError) return new CommandFailure('usage', error.message);
  return new CommandFailure('failed', error instanceof Error ? error.message : String(error));
}

export function usageFailure(message: string): CommandFailure {
  return new CommandFailure('usage', message);
}

/** The failure as that of stack `stack`, in a run of several: named once (a failure that names its stack keeps it). */
export function failureInStack(failure: CommandFailure, stack: string): CommandFailure {
  if (failure.subject.stack !== undefined) return failure;
  return new CommandFailure(failure.code, failure.message, { ...failure.subject, stack }, failure.exitCode, failure.lead);
}

/**
 * A step that throws (a command's flag checks, a synth, a file write): its value, or what it threw (a UsageError,
 * a pack that cannot load, an app that failed) as the command's failure.
 */
export async function attempt<T>(step: () => T | Promise<T>): Promise<T | CommandFailure> {
  try {
    return await step();
  } catch (error) {
    return commandFailure(error);
  }
}

/** Reports how the command ended: a failure as `Error: <subject>: <message>` on stderr. Returns the exit code. */
export function endCommand(io: Pick<CliIo, 'stderr'>, end: CommandEnd): number {
  if (typeof end === 'number') return end;
  if (end.lead === 'Error') writeError(io, describeEngineError(end));
  else io.stderr.write(`${end.lead}: ${describeEngineError(end)}\n`);
  return end.exitCode;
}
