/**
 * The pull-request comment of a run over several stacks: one status line for the run, a table of the stacks
 * (add / change / destroy / drifted / policy, a status each), then a section per stack: its status line and the blocks
 * the per-stack comment has (`markdownSections`), or its error. Split into parts as a per-stack comment is.
 */
import { DEFAULT_MARKDOWN_MAX_LENGTH, markdownSections, statusLine, type MarkdownOptions } from './markdown';
import { contextLine } from './markdown-context';
import { escapeInline, inlineCode, tableCode } from './markdown-escape';
import { splitComment, type MarkdownSection } from './markdown-split';
import { planTotals } from './plan-view';
import { policyCell } from './policy-view';
import { OUTCOME_LOOK } from './status';
import { problemsPhrase, runOutcome, stackCount, stackOutcome, stackProblem, stacksTotals, stacksTotalsPhrase, type StackReport } from './stacks-view';
import { appendAll } from '../append-all';

export function renderStacksMarkdown(reports: readonly StackReport[], options: MarkdownOptions = {}): string[] {
  const maxLength = options.maxLength ?? DEFAULT_MARKDOWN_MAX_LENGTH;
  const title = options.title ? `## ${escapeInline(options.title)}\n\n` : '';
  const look = OUTCOME_LOOK[runOutcome(reports)];
  const totals = stacksTotals(reports);
  const context = contextLine(options.context);
  const status = `${look.icon} **${look.word}: ${stacksTotalsPhrase(reports, totals)}** over ${stackCount(reports.length)}${problemsPhrase(totals)}`;
  const header = `${title}${status}${context === undefined ? '' : `\n\n${context}`}`;
  const sections: MarkdownSection[] = [stacksTable(reports)];
  for (const report of reports) appendAll(sections, stackSections(report));
  return splitComment(header, sections, maxLength);
}

function stacksTable(reports: readonly StackReport[]): MarkdownSection {
  return {
    head: '| Stack | Add | Change | Destroy | Drifted | Policy | Status |\n| --- | ---: | ---: | ---: | ---: | --- | --- |',
    lines: reports.map((report) => {
      const look = OUTCOME_LOOK[stackOutcome(report)];
      const status = `${look.icon} ${look.word}`;
      if (report.status !== 'done') {
        const why = report.status === 'failed' ? 'error' : `skipped (${tableCode(report.dependency)} failed)`;
        return `| ${tableCode(report.stack)} | — | — | — | — | — | ${status}: ${why} |`;
      }
      const counts = planTotals(report.value);
      return `| ${tableCode(report.stack)} | ${counts.add} | ${counts.change} | ${counts.destroy} | ${counts.drifted} | ${policyCell(report.value)} | ${status} |`;
    }),
    tail: '',
  };
}

function stackSections(report: StackReport): MarkdownSection[] {
  const heading = `### Stack ${inlineCode(report.stack)}`;
  if (report.status !== 'done') {
    // In a CAUTION alert, as everything a reviewer must not miss: this stack's changes are unknown.
    const word = report.status === 'failed' ? 'Error' : 'Skipped';
    return [{ head: `${heading}\n\n> [!CAUTION]`, lines: [`> ${OUTCOME_LOOK.error.icon} **${word}:** ${escapeInline(stackProblem(report)!)}`], tail: '' }];
  }
  return [{ head: `${heading}\n\n${statusLine(report.value)}`, lines: [], tail: '', keepWithNext: true }, ...markdownSections(report.value)];
}
