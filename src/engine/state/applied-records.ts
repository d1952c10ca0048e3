/**
 * What change detection reads of each stack's state (`secretform stacks`, `--changed` on plan and apply): the
 * state's serial, the service it was applied to and the digest its last complete apply recorded. Read without
 * the lock and without the resource entries: on PostgreSQL one query for every stack of the app
 * (`PostgresStateBackend.appliedRecords`), from local files one read per stack's file (with its journal, as
 * any read).
 */
import { ok, type Result } from '../errors';
import { openStateBackend } from './open-backend';
import { PostgresStateBackend } from './postgres-backend';
import type { AppliedRecord } from './backend';
import type { StateLocation } from './state-location';

/**
 * The applied records of `stacks`, by stack; a stack whose state was never written is left out. `locationOf`
 * gives each stack's state location: a PostgreSQL URL is one database for every stack, read in one query.
 */
export async function readAppliedRecords(stacks: readonly string[], locationOf: (stack: string) => StateLocation): Promise<Result<Map<string, AppliedRecord>>> {
  const records = new Map<string, AppliedRecord>();
  const byDatabase = new Map<string, { location: StateLocation; stacks: string[] }>();
  for (const stack of stacks) {
    const location = locationOf(stack);
    if (location.kind === 'postgres') {
      // Stacks of one URL share their tables: grouped, they are read together.
      const group = byDatabase.get(location.display) ?? { location, stacks: [] };
      group.stacks.push(stack);
      byDatabase.set(location.display, group);
      continue;
    }
    const backend = openStateBackend(location, stack);
    try {
      const read = await backend.read();
      if (!read.ok) return read;
      const state = read.value;
      if (state.serial === 0) continue;
      records.set(stack, { serial: state.serial, ...(state.service === undefined ? {} : { service: state.service }), ...(state.applied_digest === undefined ? {} : { appliedDigest: state.applied_digest }) });
    } finally {
      await backend.close();
    }
  }
  for (const { location, stacks: grouped } of byDatabase.values()) {
    if (location.kind !== 'postgres') continue;
    const backend = new PostgresStateBackend(location, grouped[0]);
    try {
      const read = await backend.appliedRecords(grouped);
      if (!read.ok) return read;
      for (const [stack, record] of read.value) records.set(stack, record);
    } finally {
      await backend.close();
    }
  }
  return ok(records);
}
