/**
 * `secretform drift` for one stack: the refresh-only check (refresh-only-check.ts), its statuses against the
 * stack's history (statuses.ts), and the check recorded in that history (unless `record` is false). A history
 * that cannot be read (damaged, unreachable) costs the statuses, not the check: the drift is still reported,
 * with the problem, and nothing is written to that history. One written by a newer secretform fails the check.
 */
import type { EngineOptions } from '../setup/engine-options';
import { EngineError, fail, ok, type Result } from '../errors';
import type { DriftEntry } from '../plan/plan';
import { openDriftHistoryStore } from '../state/open-drift-history-store';
import { parseHistory, type CheckRecord, type DriftHistory } from './history';
import type { PendingChange } from './pending';
import { refreshOnlyCheck } from './refresh-only-check';
import { classify, type AcknowledgementView, type DriftStatus, type ResolvedDrift } from './statuses';

export interface DriftedObject {
  entry: DriftEntry;
  /** null: the history could not be read (see `historyProblem`). */
  status: DriftStatus | null;
  since: string | null;
  checks: number | null;
  episodes: number | null;
  acknowledgement: AcknowledgementView | null;
}

export interface StackDriftCheck {
  stack: string;
  checkedAt: string;
  drifted: DriftedObject[];
  pending: PendingChange[];
  resolved: ResolvedDrift[];
  /** The recent checks, this one included when recorded (the dashboard's chart); empty without a history. */
  checks: CheckRecord[];
  /** Whether this check was recorded in the history. */
  recorded: boolean;
  /** Where the history is. */
  historyLocation: string;
  /** Why there are no statuses: the history could not be read. */
  historyProblem?: EngineError;
  /** The plan's notes (e.g. a slow fingerprint scheme). */
  warnings: readonly string[];
}

export interface DriftCheckOptions {
  /** Record the check in the history (`--no-record`: false; statuses are still computed). */
  record: boolean;
  now?: Date;
}

export async function checkStackDrift(options: EngineOptions, check: DriftCheckOptions): Promise<Result<StackDriftCheck>> {
  const checked = await refreshOnlyCheck(options);
  if (!checked.ok) return checked;
  const { stack, plan, pending, fingerprintKey, stateLocation } = checked.value;
  const now = check.now ?? new Date();
  const store = openDriftHistoryStore(stateLocation, stack);
  const classifyIn = (stored: unknown) => {
    const history = parseHistory(stored, stack, store.location);
    return history.ok ? ok({ history: history.value, classification: classify(history.value, plan.drift, fingerprintKey, now) }) : history;
  };
  let outcome: Result<{ history: DriftHistory; classification: ReturnType<typeof classify> }>;
  try {
    if (check.record) {
      outcome = await store.update((stored) => {
        const classified = classifyIn(stored);
        return classified.ok ? ok({ document: classified.value.classification.next, value: classified.value }) : classified;
      });
    } else {
      const stored = await store.read();
      outcome = stored.ok ? classifyIn(stored.value) : stored;
    }
  } finally {
    await store.close();
  }
  const base = { stack, checkedAt: now.toISOString(), pending, historyLocation: store.location, warnings: plan.warnings };
  if (!outcome.ok) {
    if (outcome.error.code === 'drift_history_newer') return fail(outcome.error);
    const drifted = plan.drift.map((entry) => ({ entry, status: null, since: null, checks: null, episodes: null, acknowledgement: null }));
    return ok({ ...base, drifted, resolved: [], checks: [], recorded: false, historyProblem: outcome.error });
  }
  const { classification, history } = outcome.value;
  return ok({
    ...base,
    drifted: classification.drifted,
    resolved: classification.resolved,
    checks: check.record ? classification.next.checks : history.checks,
    recorded: check.record,
  });
}
