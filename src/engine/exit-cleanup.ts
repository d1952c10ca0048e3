/**
 * Work that must happen however the process ends (a second Ctrl-C calls process.exit, an uncaught error ends
 * it): removing a lock this process holds. Node's 'exit' event runs synchronous code on every such exit. (The
 * lock library's own exit hook is not enough: it is lost when a newer copy of its exit-hook package, loaded
 * first by another dependency, takes over process.exit.)
 */
const cleanups = new Set<() => void>();
let installed = false;

/** Runs `cleanup` (synchronously) when the process exits; the returned function cancels it. */
export function onProcessExit(cleanup: () => void): () => void {
  if (!installed) {
    process.on('exit', runCleanups);
    installed = true;
  }
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}

function runCleanups(): void {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // Exiting anyway: nothing better to do than try the next one.
    }
  }
  cleanups.clear();
}
