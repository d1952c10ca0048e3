import { promises as fs, rmdirSync } from 'node:fs';
import { dirname } from 'node:path';
import lockfile from 'proper-lockfile';
import { EngineError, fail, ok, type Result } from '../errors';
import { onProcessExit } from '../exit-cleanup';

export type ReleaseLock = () => Promise<void>;

/**
 * Takes the lock of a state file (a `<state>.lock` directory, refreshed while held and considered stale when its
 * holder died), so two commands that write one state cannot run at once.
 */
export async function lockState(statePath: string): Promise<Result<ReleaseLock>> {
  try {
    await fs.mkdir(dirname(statePath), { recursive: true });
    const release = await lockfile.lock(statePath, {
      realpath: false,
      lockfilePath: `${statePath}.lock`,
      stale: 15_000,
      update: 5_000,
      retries: 0,
    });
    // A process that exits while holding the lock (second Ctrl-C, crash) still removes it.
    const lockDir = `${statePath}.lock`;
    const forget = onProcessExit(() => rmdirSync(lockDir));
    return ok(async () => {
      await release().catch(() => undefined);
      forget();
    });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ELOCKED') {
      return fail(
        new EngineError(
          'state_locked',
          `state ${statePath} is locked by another secretform command; wait for it to finish ` +
            `(a lock left by a crashed process expires after 15 s, or remove ${statePath}.lock)`,
        ),
      );
    }
    return fail(new EngineError('state_io', `cannot lock state ${statePath}: ${(err as Error).message}`));
  }
}
