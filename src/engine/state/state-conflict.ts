import { EngineError } from '../errors';
import type { StateRef } from './backend';

/** A write based on a state that is no longer the stored one: refused, so no command's changes are lost. */
export function conflictError(location: string, base: StateRef, stored: StateRef): EngineError {
  const what = stored.lineage !== base.lineage
    ? `it now has lineage ${stored.lineage}, not ${base.lineage} (it was replaced)`
    : `it is now at serial ${stored.serial}, not ${base.serial}`;
  return new EngineError(
    'state_conflict',
    `state ${location} changed since this command read it: ${what}. Another command wrote it; nothing was overwritten. ` +
      'Run the command again to work from the current state',
  );
}
