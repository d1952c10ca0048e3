/**
 * stdout or stderr closed by the reader (`secretform destroy ... | head -3`): writing to it fails with EPIPE, an
 * 'error' event that would otherwise crash the process with a stack trace, possibly in the middle of an apply.
 * Instead the output counts as closed: further writes go nowhere, a running apply or destroy stops as at a
 * first Ctrl-C (nothing new starts, operations in flight finish, state is saved, the lock released), and the
 * command exits with 141 (128 + SIGPIPE, what a shell reports for a writer whose reader went away).
 */
export const OUTPUT_CLOSED_EXIT_CODE = 141;

/** The part of a stream the guard needs (an EventEmitter with `on('error')`). */
export interface GuardedStream {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

export interface OutputGuard {
  /** True once a guarded stream failed. */
  readonly closed: boolean;
  /** Calls `listener` once, when the output closes (at once if it already has); returns a cancel function. */
  onClosed(listener: () => void): () => void;
}

export function guardOutput(streams: readonly GuardedStream[]): OutputGuard {
  let closed = false;
  const listeners = new Set<() => void>();
  const close = () => {
    if (closed) return;
    closed = true;
    for (const listener of [...listeners]) listener();
    listeners.clear();
  };
  // Any write error means the same for a command: its output is gone (EPIPE, or EIO for a vanished terminal).
  for (const stream of streams) stream.on('error', close);
  return {
    get closed() {
      return closed;
    },
    onClosed(listener) {
      if (closed) {
        listener();
        return () => undefined;
      }
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

let processGuard: OutputGuard | undefined;

/** The guard of this process's stdout and stderr (installed once, on first use). */
export function processOutputGuard(): OutputGuard {
  processGuard ??= guardOutput([process.stdout, process.stderr]);
  return processGuard;
}
