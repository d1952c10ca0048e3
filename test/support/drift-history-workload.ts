/**
 * A long drift history made fast: checks recorded through a real history store (a file beside a local state, or
 * PostgreSQL's table) by the drift stage's own functions (parse, classify, store), as `secretform drift` records
 * them, with the refresh left out; or, for a fast start, classified in memory and stored once. Used by the
 * bounded-history test and by `npm run bench -- --drift`.
 *
 * The drift of each check: `percent` of the stack's objects, half of them the same objects at every check (drift
 * nobody fixes: open episodes that grow their `checks`), half a window that moves on at every check (drift that
 * comes and is resolved by the next check: resolved episodes and episode counts of ever more objects).
 */
import type { DriftEntry } from '../../src/engine/plan/plan';
import type { DriftHistoryStore } from '../../src/engine/state/drift-history-store';
import type { FingerprintKey } from '../../src/engine/state/fingerprint';
import { ok } from '../../src/engine/errors';
import { emptyHistory, parseHistory, type DriftHistory } from '../../src/engine/drift/history';
import { classify } from '../../src/engine/drift/statuses';

export interface WorkloadObject {
  address: string;
  type: string;
}

/** `count` objects of a stack named like a real one's (`STACK/user-N`, userpass users). */
export function workloadObjects(stack: string, count: number): WorkloadObject[] {
  return Array.from({ length: count }, (_, i) => ({ address: `${stack}/user-${i}`, type: 'userpass_user' }));
}

/** The drift seen at check number `check` (0, 1, ...): see the top of this file. */
export function driftAt(check: number, objects: readonly WorkloadObject[], percent: number): DriftEntry[] {
  const drifting = Math.max(2, Math.round((objects.length * percent) / 100));
  const steady = Math.floor(drifting / 2);
  const moving = drifting - steady;
  const chosen: WorkloadObject[] = objects.slice(0, steady);
  const window = objects.length - steady;
  for (let i = 0; i < moving; i++) chosen.push(objects[steady + ((check * moving + i) % window)]);
  return chosen.map((object) => ({
    address: object.address,
    type: object.type,
    id: object.address,
    kind: 'changed',
    before: { token_ttl: 3600 },
    after: { token_ttl: 7200 },
    fields: [{ field: 'token_ttl', applied: 3600, live: 7200 }],
  }));
}

/** The history after checks 0 .. `count - 1`, classified in memory one after the other (no store): a fast start. */
export function historyAfter(stack: string, objects: readonly WorkloadObject[], options: { count: number; percent: number; key: FingerprintKey; start: Date }): DriftHistory {
  let history = emptyHistory(stack);
  for (let check = 0; check < options.count; check++) {
    history = classify(history, driftAt(check, objects, options.percent), options.key, dayOf(options.start, check)).next;
  }
  return history;
}

function dayOf(start: Date, check: number): Date {
  return new Date(start.getTime() + check * 86_400_000);
}

/**
 * Records checks `from` .. `from + count - 1` in `store`, a day apart from `start`: each one update of the store
 * (read, parse, classify, write), as a recorded drift check makes it. Fails on a history that does not parse.
 */
export async function recordChecks(store: DriftHistoryStore, stack: string, objects: readonly WorkloadObject[], options: { from: number; count: number; percent: number; key: FingerprintKey; start: Date }): Promise<void> {
  for (let check = options.from; check < options.from + options.count; check++) {
    const now = dayOf(options.start, check);
    const drift = driftAt(check, objects, options.percent);
    const recorded = await store.update((stored) => {
      const history = parseHistory(stored, stack, store.location);
      return history.ok ? ok({ document: classify(history.value, drift, options.key, now).next, value: undefined }) : history;
    });
    if (!recorded.ok) throw new Error(`check ${check} was not recorded: ${recorded.error.message}`);
  }
}
