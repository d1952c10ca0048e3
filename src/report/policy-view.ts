/**
 * What the text and markdown reports say about policy results, in the same words: the status of a stack's
 * policies, the results worth a line (failed and waived; passed ones are counted), and each line's text.
 */
import type { Plan } from '../engine/plan/plan';
import { policyCounts, type PolicyResult } from '../policy/evaluation';

export type PolicyOutcome = 'mandatory_failed' | 'advisory_failed' | 'passed';

export const POLICY_OUTCOME_LOOK: Readonly<Record<PolicyOutcome, { readonly icon: string; readonly word: string }>> = {
  mandatory_failed: { icon: '❌', word: 'Failed' },
  advisory_failed: { icon: '⚠️', word: 'Advisory failures' },
  passed: { icon: '✅', word: 'Passed' },
};

/** The stack's policy status; undefined when no pack was evaluated (reports then show no policy section). */
export function policyOutcome(plan: Plan): PolicyOutcome | undefined {
  if (plan.policy === undefined) return undefined;
  const counts = policyCounts(plan.policy);
  if (counts.mandatoryFailed > 0) return 'mandatory_failed';
  return counts.failed > 0 ? 'advisory_failed' : 'passed';
}

/** `3 passed, 2 failed (1 mandatory), 1 waived` over `packs`. */
export function policyTotalsPhrase(plan: Plan): string {
  const counts = policyCounts(plan.policy!);
  const failed = counts.failed > 0 ? `${counts.failed} failed (${counts.mandatoryFailed} mandatory)` : '0 failed';
  return `${counts.passed} passed, ${failed}, ${counts.waived} waived`;
}

/** Failed results first (mandatory before advisory), then waived ones; each group by address. */
export function reportedResults(plan: Plan): PolicyResult[] {
  const rank = (result: PolicyResult) => (result.status === 'failed' ? (result.enforcement === 'mandatory' ? 0 : 1) : 2);
  return (plan.policy?.results ?? [])
    .filter((result) => result.status !== 'passed')
    .sort((a, b) => rank(a) - rank(b) || a.address.localeCompare(b.address) || a.policy.localeCompare(b.policy));
}

export const POLICY_STATUS_WORD: Readonly<Record<PolicyResult['status'], string>> = { failed: 'FAILED', waived: 'WAIVED', passed: 'passed' };

/** What a result says after its policy and address: the violations, and for a waiver its reason. */
export function policyResultText(result: PolicyResult): string {
  return result.status === 'waived' ? `${result.message} (waived: ${result.waiverReason ?? ''})` : result.message;
}

/** The stack's policy status in a table cell of the run over several stacks (`—` when no pack was evaluated). */
export function policyCell(plan: Plan): string {
  const outcome = policyOutcome(plan);
  if (outcome === undefined) return '—';
  const look = POLICY_OUTCOME_LOOK[outcome];
  return `${look.icon} ${look.word}`;
}
