/**
 * The lock of a local state file: `<state>.lock` next to the real file (symlinks resolved, so `--state s.json` and
 * `--state alias.json` pointing at it share one lock), created exclusively, holding who took it (pid, host, start
 * time, command). A lock whose holder is a process of this host that no longer runs (gone, or a zombie killed but
 * not yet reaped by its parent) is taken over at once, so a killed command never blocks the next one. A holder on another host (a shared directory) cannot be checked: the next
 * command waits up to its --lock-timeout, and `secretform force-unlock` removes the lock.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, promises as fs, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EngineError, fail, ok, type Result } from '../errors';
import type { HeldLock, LockHolder, LockRequest } from './backend';
import { releaseOnExit } from './exit-release';
import { describeHolder, lockedError } from './lock-messages';

const POLL_MS = 100;
const LEGACY_STALE_MS = 15_000;

interface LocalHolder extends LockHolder {
  /** Linux: the holder's start time in clock ticks since boot, so a reused pid is not taken for the holder. */
  proc_start?: string;
}

/** The lock file of a state file: next to the file the path really names, whatever symlinks lead there. */
export function lockPathOf(statePath: string): string {
  return `${realStatePath(statePath)}.lock`;
}

const MAX_SYMLINK_HOPS = 32;

/**
 * The state file's real path: fs.realpath of the file, or (a file not written yet) of its directory joined with
 * the name, following a dangling symlink to where its target will be.
 */
function realStatePath(statePath: string): string {
  let current = resolve(statePath);
  for (let hop = 0; hop < MAX_SYMLINK_HOPS; hop += 1) {
    try {
      return realpathSync(current);
    } catch {
      // Not there yet: a dangling symlink names where the file will be; else the directory is what is real.
    }
    let target: string | undefined;
    try {
      target = readlinkSync(current);
    } catch {
      target = undefined;
    }
    if (target === undefined) {
      try {
        return join(realpathSync(dirname(current)), basename(current));
      } catch {
        return current;
      }
    }
    current = resolve(dirname(current), target);
  }
  return current;
}

/** Takes the lock of a state file, waiting up to `timeoutMs` for a live holder. */
export async function lockStateFile(statePath: string, request: LockRequest): Promise<Result<HeldLock>> {
  try {
    await fs.mkdir(dirname(statePath), { recursive: true });
  } catch (err) {
    return fail(new EngineError('state_io', `cannot create the directory of state ${statePath}: ${(err as Error).message}`));
  }
  // After the directory exists, so its real path is known.
  const lockPath = lockPathOf(statePath);
  const holder: LocalHolder = {
    id: randomUUID(),
    pid: process.pid,
    host: hostname(),
    started_at: new Date().toISOString(),
    command: request.command,
    proc_start: processStart(process.pid),
  };
  const deadline = Date.now() + request.timeoutMs;
  for (;;) {
    const taken = tryCreate(lockPath, holder);
    if (taken === 'taken') return ok(heldLock(lockPath, holder));
    if (taken instanceof Error) return fail(new EngineError('state_io', `cannot lock state ${statePath}: ${taken.message}`));
    const current = readHolder(lockPath);
    if (current === 'gone') continue;
    if (isStaleLegacyLock(lockPath)) {
      rmSync(lockPath, { recursive: true, force: true });
      continue;
    }
    if (current !== 'unreadable' && isDeadHere(current)) {
      takeOver(lockPath, current);
      continue;
    }
    if (Date.now() >= deadline) {
      return fail(lockedError(`state ${statePath}`, current === 'unreadable' ? undefined : current, request.timeoutMs, `remove ${lockPath}`));
    }
    await sleep(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
  }
}

/** The holder of a state file's lock, if any. */
export function readLockHolder(statePath: string): LockHolder | undefined {
  const current = readHolder(lockPathOf(statePath));
  if (current === 'gone') return undefined;
  if (current === 'unreadable') return { id: '', pid: 0, host: 'unknown', started_at: '', command: 'unknown (unreadable lock file)' };
  return current;
}

/** Removes a state file's lock whoever holds it. */
export function forceUnlockStateFile(statePath: string): LockHolder | undefined {
  const holder = readLockHolder(statePath);
  // recursive: also the lock directory of secretform versions before holder-recording locks.
  rmSync(lockPathOf(statePath), { recursive: true, force: true });
  return holder;
}

export { describeHolder };

function tryCreate(lockPath: string, holder: LocalHolder): 'taken' | 'exists' | Error {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o600);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'EISDIR') return 'exists';
    return err as Error;
  }
  try {
    writeSync(fd, `${JSON.stringify(holder)}\n`);
  } finally {
    closeSync(fd);
  }
  return 'taken';
}

function readHolder(lockPath: string): LocalHolder | 'gone' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(lockPath, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'gone' : 'unreadable';
  }
  try {
    const parsed = JSON.parse(text) as LocalHolder;
    if (typeof parsed.pid === 'number' && typeof parsed.host === 'string' && typeof parsed.id === 'string') return parsed;
  } catch {
    // An empty or torn lock file: its writer died between creating and writing it, or is writing it now.
  }
  return 'unreadable';
}

/** A holder on this host whose process is gone (or whose pid now belongs to a process started later). */
function isDeadHere(holder: LocalHolder): boolean {
  if (holder.host !== hostname()) return false;
  if (holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
  // A zombie answers signal 0 but runs no more code: it can never release the lock.
  if (processState(holder.pid) === 'Z') return true;
  return holder.proc_start !== undefined && processStart(holder.pid) !== undefined && processStart(holder.pid) !== holder.proc_start;
}

/**
 * Moves the dead holder's lock aside (a rename succeeds for one taker only) and checks that what was moved is
 * that dead lock; if another command took the lock in between, its lock is put back.
 */
function takeOver(lockPath: string, dead: LocalHolder): void {
  const aside = `${lockPath}.${process.pid}.${randomUUID()}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return;
  }
  const moved = readHolder(aside);
  if (moved !== 'gone' && moved !== 'unreadable' && moved.id !== dead.id) {
    try {
      renameSync(aside, lockPath);
    } catch {
      // Nothing better to do: the other holder's release finds its lock gone, which is harmless.
    }
    return;
  }
  try {
    unlinkSync(aside);
  } catch {
    // Already gone.
  }
}

function heldLock(lockPath: string, holder: LocalHolder): HeldLock {
  let released = false;
  const releaseSync = (): void => {
    if (released) return;
    released = true;
    const current = readHolder(lockPath);
    // Never remove a lock someone else took after a force-unlock.
    if (current === 'gone' || current === 'unreadable' || current.id !== holder.id) return;
    try {
      unlinkSync(lockPath);
    } catch {
      // Already removed.
    }
  };
  const unregister = releaseOnExit(releaseSync);
  return {
    holder,
    release: () => {
      unregister();
      releaseSync();
      return Promise.resolve();
    },
  };
}

/**
 * Earlier versions locked with a `<state>.lock` directory refreshed every 5 s, stale after 15 s: one left by such a
 * version that is no longer refreshed is taken over as that version would have.
 */
function isStaleLegacyLock(lockPath: string): boolean {
  try {
    const stat = statSync(lockPath);
    return stat.isDirectory() && Date.now() - stat.mtimeMs > LEGACY_STALE_MS;
  } catch {
    return false;
  }
}

/** Linux `/proc/PID/stat` fields after the command name (the name may hold spaces and parentheses). */
function procStatFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** The holder's start time in clock ticks since boot (field 22). */
function processStart(pid: number): string | undefined {
  return procStatFields(pid)?.[19];
}

/** The process state (field 3): `R`, `S`, `D`, ... and `Z` for a zombie. */
function processState(pid: number): string | undefined {
  return procStatFields(pid)?.[0];
}
