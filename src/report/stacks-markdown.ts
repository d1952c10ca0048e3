/**
 * The pull-request comment of a run over several stacks: one status line for the run, a table of the stacks
 * (add / change / destroy / drifted / policy, a status each), then a section per stack: its status line and the blocks
 * the per-stack comment has (`markdownSections`), or its error. Split into parts as a per-stack comment is.
 */
import { DEFAULT_MARKDOWN_MAX_LENGTH, markdownSections, statusLine, type MarkdownOptions } from './markdown';
import { escapeInline, inlineCode, tableCode } from './markdown-escape';
import { splitComment, type MarkdownSection } from './markdown-split';
import { planTotals, totalsPhrase } from './plan-view';
import { policyCell } from './policy-view';
import { OUTCOME_LOOK } from './status';
import { problemsPhrase, runOutcome, stackOutcome, stackProblem, stacksTotals, type StackReport } from './stacks-view';

export function renderStacksMarkdown(reports: readonly StackReport[], options: MarkdownOptions = {}): string[] {
  const maxLength = options.maxLength ?? DEFAULT_MARKDOWN_MAX_LENGTH;
  const title = options.title ? `## ${escapeInline(options.title)}\n\n` : '';
  const look = OUTCOME_LOOK[runOutcome(reports)];
  const totals = stacksTotals(reports);
  const header = `${title}${look.icon} **${look.word}: ${totalsPhrase(totals)}, ${totals.drifted} drifted** over ${reports.length} stacks${problemsPhrase(totals)}`;
  const sections: MarkdownSection[] = [stacksTable(reports)];
  for (const report of reports) sections.push(...stackSections(report));
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
    return [{ head: heading, lines: [`${OUTCOME_LOOK.error.icon} **${report.status === 'failed' ? 'Error' : 'Skipped'}:** ${escapeInline(stackProblem(report)!)}`], tail: '' }];
  }
  return [{ head: `${heading}\n\n${statusLine(report.value)}`, lines: [], tail: '', keepWithNext: true }, ...markdownSections(report.value)];
}
