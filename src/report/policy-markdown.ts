/**
 * The policy section of the pull-request comment: a heading with the status, a table of failed and waived
 * results, each address followed by the `file:line` that declares it when the plan knows it.
 */
import type { Plan } from '../engine/plan/plan';
import { escapeInline, tableCode } from './markdown-escape';
import type { MarkdownSection } from './markdown-split';
import { sourceLabel, sourcesByAddress } from './source-locations';
import { policyOutcome, policyResultText, policyTotalsPhrase, POLICY_OUTCOME_LOOK, POLICY_STATUS_WORD, reportedResults } from './policy-view';

/** `heading` is the markdown heading marker: `###` alone, `####` under a stack's own heading. */
export function policyMarkdownSections(plan: Plan, heading = '###'): MarkdownSection[] {
  const outcome = policyOutcome(plan);
  if (outcome === undefined) return [];
  const look = POLICY_OUTCOME_LOOK[outcome];
  const packs = plan.policy!.packs.map((pack) => tableCode(pack)).join(', ');
  const head = `${heading} Policies: ${look.icon} ${look.word}\n\n${escapeInline(policyTotalsPhrase(plan))} (packs: ${packs}).`;
  const results = reportedResults(plan);
  const sources = sourcesByAddress(plan);
  const where = (address: string) => {
    const source = sources.get(address);
    return source === undefined ? '' : ` at ${tableCode(sourceLabel(source))}`;
  };
  if (results.length === 0) return [{ head, lines: [], tail: '' }];
  return [
    { head, lines: [], tail: '', keepWithNext: true },
    {
      head: '| Status | Policy | Enforcement | Address | Message |\n| --- | --- | --- | --- | --- |',
      lines: results.map((result) =>
        `| ${POLICY_STATUS_WORD[result.status]} | ${tableCode(result.policy)} | ${result.enforcement} | ${tableCode(result.address)}${where(result.address)} | ${escapeInline(policyResultText(result))} |`),
      tail: '',
    },
  ];
}
