/**
 * Releases what a command still holds when the process ends without running its `finally` blocks: an error
 * that escapes, a second Ctrl-C (process.exit), a closed stdout (EPIPE, an uncaught error). Only synchronous
 * work can run then, so each holder registers a synchronous release; one listener serves them all. A process
 * killed outright (SIGKILL) runs nothing: its local lock is taken over at once by the next command because the
 * holder is dead, and a PostgreSQL lock dies with its connection.
 */
type SyncRelease = () => void;

const pending = new Set<SyncRelease>();
let listening = false;

function releaseAll(): void {
  for (const release of [...pending]) {
    pending.delete(release);
    try {
      release();
    } catch {
      // Exiting anyway: the next command takes over a dead holder's lock.
    }
  }
}

/** Registers `release` to run if the process exits first; returns the function that unregisters it. */
export function releaseOnExit(release: SyncRelease): () => void {
  if (!listening) {
    listening = true;
    process.on('exit', releaseAll);
  }
  pending.add(release);
  return () => {
    pending.delete(release);
  };
}
