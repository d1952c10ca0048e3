import type { Plan, PlanAction } from '../engine/plan/plan';
import { mandatoryFailures } from '../policy/evaluation';

/**
 * The outcome of a plan in one word, for the status line a reviewer reads first and for the per-stack status
 * of a run over several stacks. Ordered from the most to the least alarming: the first that applies wins.
 */
export type PlanOutcome = 'error' | 'policy_failed' | 'destroys' | 'drift' | 'changes' | 'no_changes';

export interface OutcomeLook {
  /** One emoji, shown before the word in markdown. */
  readonly icon: string;
  /** One or two words, shown in every format. */
  readonly word: string;
}

export const OUTCOME_LOOK: Readonly<Record<PlanOutcome, OutcomeLook>> = {
  error: { icon: '❌', word: 'Error' },
  policy_failed: { icon: '⛔', word: 'Policy failed' },
  destroys: { icon: '🗑️', word: 'Destroys' },
  drift: { icon: '⚠️', word: 'Drift' },
  changes: { icon: '📝', word: 'Changes' },
  no_changes: { icon: '✅', word: 'No changes' },
};

/** One icon per planned action, for the markdown table of actions. */
export const ACTION_ICON: Readonly<Record<PlanAction, string>> = {
  create: '➕',
  update: '🔄',
  replace: '♻️',
  delete: '🗑️',
  forget: '⏏️',
  'no-op': '⏺️',
};

/** The outcome of a computed plan (a run that failed before it had a plan is `error`). */
export function planOutcome(plan: Plan): PlanOutcome {
  // A mandatory policy that failed stops the apply, whatever the plan would do.
  if (mandatoryFailures(plan.policy).length > 0) return 'policy_failed';
  if (plan.changes.some((c) => c.action === 'delete' || c.action === 'replace')) return 'destroys';
  if (plan.drift.length > 0) return 'drift';
  if (plan.changes.some((c) => c.action !== 'no-op' || c.previousAddress !== undefined)) return 'changes';
  return 'no_changes';
}

/** The icon of an object that only moves to a new address (a no-op that moved). */
export const MOVE_ICON = '🚚';
