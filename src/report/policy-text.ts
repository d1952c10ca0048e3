/** The policy section of the text report: a heading with the totals, one line per failed or waived result. */
import type { Plan } from '../engine/plan/plan';
import { policyOutcome, policyResultText, policyTotalsPhrase, POLICY_OUTCOME_LOOK, POLICY_STATUS_WORD, reportedResults } from './policy-view';

interface Colors {
  bold: (text: string) => string;
  red: (text: string) => string;
  yellow: (text: string) => string;
  green: (text: string) => string;
}

export function policyTextSection(plan: Plan, colors: Colors): string[] {
  const outcome = policyOutcome(plan);
  if (outcome === undefined) return [];
  const color = outcome === 'mandatory_failed' ? colors.red : outcome === 'advisory_failed' ? colors.yellow : colors.green;
  const out = [
    colors.bold(`Policies (${plan.policy!.packs.join(', ')}): ${color(POLICY_OUTCOME_LOOK[outcome].word)}. ${policyTotalsPhrase(plan)}.`),
  ];
  for (const result of reportedResults(plan)) {
    const word = POLICY_STATUS_WORD[result.status];
    const shown = result.status === 'failed' ? (result.enforcement === 'mandatory' ? colors.red(word) : colors.yellow(word)) : word;
    out.push(`  ${shown} ${result.policy} [${result.enforcement}] ${result.address}: ${policyResultText(result)}`);
  }
  out.push('');
  return out;
}
