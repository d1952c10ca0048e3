/**
 * `drift ack` and `drift unack`: acknowledgements are recorded in the stack's history, against the drift as the
 * last recorded check saw it (kind and field digests), so they need no request to the service. An address that
 * is not drifted at that check (unknown, or in sync) is refused, naming it; so is unack of one not acknowledged.
 */
import { EngineError, fail, ok, type Result } from '../errors';
import { openDriftHistoryStore } from '../state/open-drift-history-store';
import type { StateLocation } from '../state/state-location';
import { parseHistory, type Acknowledgement, type DriftHistory } from './history';

export interface AcknowledgeRequest {
  stack: string;
  stateLocation: StateLocation;
  addresses: readonly string[];
  by: string;
  reason: string;
  /** ISO time it lapses; absent: until the drift changes. */
  until?: string;
  now?: Date;
}

export async function acknowledgeDrift(request: AcknowledgeRequest): Promise<Result<Acknowledgement[]>> {
  const at = (request.now ?? new Date()).toISOString();
  return changeHistory(request.stateLocation, request.stack, (history, where) => {
    const made: Acknowledgement[] = [];
    const acknowledgements = { ...history.acknowledgements };
    const notDrifted: string[] = [];
    for (const address of request.addresses) {
      const open = history.episodes.find((episode) => episode.address === address && episode.resolved_at === undefined);
      if (open === undefined) {
        notDrifted.push(address);
        continue;
      }
      const acknowledgement: Acknowledgement = { by: request.by, at, reason: request.reason, ...(request.until !== undefined ? { until: request.until } : {}), kind: open.kind, fields: open.fields };
      acknowledgements[address] = acknowledgement;
      made.push(acknowledgement);
    }
    if (notDrifted.length > 0) {
      return fail(new EngineError('drift_not_drifted', `${notDrifted.join(', ')}: not drifted at the last recorded drift check of stack ${request.stack} (${where}), so there is nothing to acknowledge; nothing was recorded. Run \`secretform drift --stack ${request.stack}\` to record a check, and acknowledge only objects it lists as drifted`));
    }
    return ok({ history: { ...history, acknowledgements }, value: made });
  });
}

export async function unacknowledgeDrift(request: Omit<AcknowledgeRequest, 'by' | 'reason' | 'until' | 'now'>): Promise<Result<string[]>> {
  return changeHistory(request.stateLocation, request.stack, (history, where) => {
    const missing = request.addresses.filter((address) => history.acknowledgements[address] === undefined);
    if (missing.length > 0) {
      return fail(new EngineError('drift_not_drifted', `${missing.join(', ')}: no acknowledgement in the drift history of stack ${request.stack} (${where}); nothing was changed. \`secretform drift history --stack ${request.stack}\` lists the acknowledgements`));
    }
    const acknowledgements = { ...history.acknowledgements };
    for (const address of request.addresses) delete acknowledgements[address];
    return ok({ history: { ...history, acknowledgements }, value: [...request.addresses] });
  });
}

/** The stack's history, read only (`drift history`). */
export async function readDriftHistory(stateLocation: StateLocation, stack: string): Promise<Result<{ history: DriftHistory; location: string }>> {
  const store = openDriftHistoryStore(stateLocation, stack);
  try {
    const stored = await store.read();
    if (!stored.ok) return stored;
    const history = parseHistory(stored.value, stack, store.location);
    return history.ok ? ok({ history: history.value, location: store.location }) : history;
  } finally {
    await store.close();
  }
}

async function changeHistory<T>(
  stateLocation: StateLocation,
  stack: string,
  change: (history: DriftHistory, where: string) => Result<{ history: DriftHistory; value: T }>,
): Promise<Result<T>> {
  const store = openDriftHistoryStore(stateLocation, stack);
  try {
    return await store.update((stored) => {
      const history = parseHistory(stored, stack, store.location);
      if (!history.ok) return history;
      const changed = change(history.value, store.location);
      return changed.ok ? ok({ document: changed.value.history, value: changed.value.value }) : changed;
    });
  } finally {
    await store.close();
  }
}
