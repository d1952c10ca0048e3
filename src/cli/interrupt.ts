/**
 * Ctrl-C during apply or destroy. The first SIGINT aborts the engine's signal: nothing new starts, operations in
 * flight finish and state is saved, so the command ends with a consistent state and exit code 1. A second SIGINT
 * means "now": the process exits at once with 130 (128 + SIGINT), as shells report an interrupted command.
 */
import type { CliIo } from './io';

export const IMMEDIATE_EXIT_CODE = 130;

/** The part of `process` this needs; tests pass an EventEmitter and a fake exit. */
export interface SignalSource {
  on(event: 'SIGINT', listener: () => void): unknown;
  off(event: 'SIGINT', listener: () => void): unknown;
}

export interface InterruptWatch {
  readonly signal: AbortSignal;
  /** Whether a SIGINT arrived. */
  readonly interrupted: boolean;
  /** Stops listening (restores the default Ctrl-C behaviour). */
  dispose(): void;
}

export function watchInterrupts(
  io: CliIo,
  source: SignalSource = process,
  exit: (code: number) => void = (code) => process.exit(code),
): InterruptWatch {
  const controller = new AbortController();
  const onSigint = () => {
    if (controller.signal.aborted) {
      io.stderr.write('\nSecond interrupt: exiting now. Operations in flight may not be recorded in state; run `secretform plan` to see where things stand.\n');
      exit(IMMEDIATE_EXIT_CODE);
      return;
    }
    io.stderr.write('\nInterrupt received: stopping after the operations in flight finish; state will be saved. Press Ctrl-C again to exit at once.\n');
    controller.abort();
  };
  source.on('SIGINT', onSigint);
  return {
    signal: controller.signal,
    get interrupted() {
      return controller.signal.aborted;
    },
    dispose: () => {
      source.off('SIGINT', onSigint);
    },
  };
}
