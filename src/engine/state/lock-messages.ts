/** The words every backend uses for a lock someone else holds. */
import { EngineError } from '../errors';
import type { LockHolder } from './backend';

export function describeHolder(holder: LockHolder): string {
  const since = holder.started_at ? `, since ${holder.started_at}` : '';
  return `${holder.command} (pid ${holder.pid} on host ${holder.host}${since})`;
}

/** `what` is locked; `removeHint` says how to remove the lock by hand when force-unlock is not at hand. */
export function lockedError(what: string, holder: LockHolder | undefined, waitedMs: number, removeHint: string): EngineError {
  const who = holder ? `by ${describeHolder(holder)}` : 'by another secretform command';
  const waited = waitedMs > 0 ? `; waited ${formatMs(waitedMs)}` : '';
  return new EngineError(
    'state_locked',
    `${what} is locked ${who}${waited}. Wait for it to finish (pass --lock-timeout 5m to wait), or, if that command ` +
      `is no longer running, remove the lock with \`secretform force-unlock\` (or ${removeHint})`,
  );
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`;
}
