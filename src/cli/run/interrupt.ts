/**
 * Ctrl-C (SIGINT) or a termination request (SIGTERM, e.g. a cancelled CI job) during apply or destroy. The first
 * one aborts the engine's signal: nothing new starts, operations in flight finish and state is saved, so the
 * command ends with a consistent state and exit code 1. A second one means "now": the process exits at once with
 * 128 + the signal number (130 for SIGINT, 143 for SIGTERM), as shells report an interrupted command; a lock it
 * holds is removed on the way out (see engine/state/exit-release.ts). A closed output (EPIPE, see output-guard.ts)
 * counts as a first interrupt.
 */
import type { CliIo } from './io';
import type { OutputGuard } from './output-guard';

export const IMMEDIATE_EXIT_CODE = 130;

type StopSignal = 'SIGINT' | 'SIGTERM';
const IMMEDIATE_EXIT_CODES: Record<StopSignal, number> = { SIGINT: IMMEDIATE_EXIT_CODE, SIGTERM: 143 };

/** The part of `process` this needs; tests pass an EventEmitter and a fake exit. */
export interface SignalSource {
  on(event: StopSignal, listener: () => void): unknown;
  off(event: StopSignal, listener: () => void): unknown;
}

export interface InterruptWatch {
  /** Aborted when the first SIGINT or SIGTERM arrives. */
  readonly signal: AbortSignal;
  /** Stops listening (restores the default Ctrl-C behaviour). */
  dispose(): void;
}

export function watchInterrupts(
  io: CliIo,
  source: SignalSource = process,
  exit: (code: number) => void = (code) => process.exit(code),
  output?: OutputGuard,
): InterruptWatch {
  const controller = new AbortController();
  // Nobody reads the output any more: stop as at a first Ctrl-C, without a message nobody would see.
  const stopWatchingOutput = output?.onClosed(() => controller.abort()) ?? (() => undefined);
  const onSignal = (name: StopSignal) => () => {
    if (controller.signal.aborted) {
      io.stderr.write('\nSecond interrupt: exiting now. Operations in flight may not be recorded in state; run `secretform plan` to see where things stand.\n');
      exit(IMMEDIATE_EXIT_CODES[name]);
      return;
    }
    io.stderr.write(`\nInterrupt received (${name}): stopping after the operations in flight finish; state will be saved. Press Ctrl-C again to exit at once.\n`);
    controller.abort();
  };
  const listeners = { SIGINT: onSignal('SIGINT'), SIGTERM: onSignal('SIGTERM') };
  source.on('SIGINT', listeners.SIGINT);
  source.on('SIGTERM', listeners.SIGTERM);
  return {
    signal: controller.signal,
    dispose: () => {
      stopWatchingOutput();
      source.off('SIGINT', listeners.SIGINT);
      source.off('SIGTERM', listeners.SIGTERM);
    },
  };
}
