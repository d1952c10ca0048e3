/** The drift check as JSON (`secretform drift --format json`): format 1.0, as docs/drift.md describes it. */
import { driftTotals, runStatus, stackStatus, type StackDriftOutcome } from './drift-view';

export const DRIFT_JSON_VERSION = '1.0';

export function renderDriftJson(outcomes: readonly StackDriftOutcome[], checkedAt: string): string {
  const totals = driftTotals(outcomes);
  const document = {
    format_version: DRIFT_JSON_VERSION,
    checked_at: checkedAt,
    status: runStatus(outcomes),
    stacks: outcomes.map((outcome) => {
      if (!('check' in outcome)) return { stack: outcome.stack, status: 'error', error: outcome.error };
      const { check } = outcome;
      return {
        stack: check.stack,
        status: stackStatus(outcome),
        recorded: check.recorded,
        history: check.historyLocation,
        ...(check.historyProblem ? { history_problem: check.historyProblem.message } : {}),
        drifted: check.drifted.map((object) => ({
          address: object.entry.address,
          type: object.entry.type,
          kind: object.entry.kind,
          fields: object.entry.fields.map((field) => field.field).sort(),
          status: object.status,
          since: object.since,
          checks: object.checks,
          episodes: object.episodes,
          acknowledgement: object.acknowledgement === null
            ? null
            : { by: object.acknowledgement.by, at: object.acknowledgement.at, reason: object.acknowledgement.reason, until: object.acknowledgement.until ?? null, expired: object.acknowledgement.expired },
        })),
        pending: check.pending.map((change) => ({ address: change.address, type: change.type, action: change.action, fields: change.fields })),
        resolved: check.resolved.map((object) => ({ address: object.address, type: object.type, kind: object.kind, since: object.since, resolved_at: object.resolved_at, checks: object.checks, episodes: object.episodes })),
      };
    }),
    summary: totals,
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
