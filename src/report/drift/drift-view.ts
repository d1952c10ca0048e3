/**
 * What every drift report shows, worked out once: each stack's status word, the run's totals, and the outcome of
 * a stack that could not be checked. The renderers (text.ts, json.ts, markdown.ts) only lay it out.
 */
import type { StackDriftCheck } from '../../engine/drift/drift-check';

/** A stack's outcome in a run: its check, or why it has none. */
export type StackDriftOutcome = { stack: string; check: StackDriftCheck } | { stack: string; error: string };

/**
 * `new_drift`: something new or changed since the previous check; `known_drift`: drift, all of it seen before or
 * acknowledged; `no_drift`; `drift`: drift whose statuses are unknown (the history could not be read); `error`.
 */
export type StackStatus = 'no_drift' | 'known_drift' | 'new_drift' | 'drift' | 'error';

export const STATUS_WORDS: Readonly<Record<StackStatus, string>> = {
  no_drift: 'no drift',
  known_drift: 'known drift',
  new_drift: 'new drift',
  drift: 'drift (statuses unavailable)',
  error: 'not checked',
};

/** Worst first: what a run's status line says of several stacks. */
const SEVERITY: readonly StackStatus[] = ['error', 'new_drift', 'drift', 'known_drift', 'no_drift'];

export function stackStatus(outcome: StackDriftOutcome): StackStatus {
  if (!('check' in outcome)) return 'error';
  const { drifted } = outcome.check;
  if (drifted.length === 0) return 'no_drift';
  if (drifted.some((object) => object.status === null)) return 'drift';
  return drifted.some((object) => object.status === 'new' || object.status === 'changed') ? 'new_drift' : 'known_drift';
}

export function runStatus(outcomes: readonly StackDriftOutcome[]): StackStatus {
  const statuses = new Set(outcomes.map(stackStatus));
  return SEVERITY.find((status) => statuses.has(status)) ?? 'no_drift';
}

export interface DriftTotals {
  stacks: number;
  drifted: number;
  new: number;
  changed: number;
  known: number;
  acknowledged: number;
  resolved: number;
  pending: number;
  errors: number;
}

export function driftTotals(outcomes: readonly StackDriftOutcome[]): DriftTotals {
  const totals: DriftTotals = { stacks: outcomes.length, drifted: 0, new: 0, changed: 0, known: 0, acknowledged: 0, resolved: 0, pending: 0, errors: 0 };
  for (const outcome of outcomes) {
    if (!('check' in outcome)) {
      totals.errors++;
      continue;
    }
    const { check } = outcome;
    totals.drifted += check.drifted.length;
    for (const object of check.drifted) if (object.status !== null) totals[object.status]++;
    totals.resolved += check.resolved.length;
    totals.pending += check.pending.length;
  }
  return totals;
}

/** `3 drifted (1 new, 0 changed, 1 known, 1 acknowledged), 1 resolved, 2 pending` */
export function totalsPhrase(totals: DriftTotals): string {
  const statuses = `${totals.new} new, ${totals.changed} changed, ${totals.known} known, ${totals.acknowledged} acknowledged`;
  return `${totals.drifted} drifted (${statuses}), ${totals.resolved} resolved, ${totals.pending} pending`;
}

/** The fields a drift entry names (a deletion names none). */
export function driftedFields(check: StackDriftCheck['drifted'][number]): string[] {
  return check.entry.fields.map((field) => field.field);
}
