/**
 * The text report of a run over several stacks: a section per stack (the per-stack report as `renderText`
 * writes it, or why the stack has none), then one total line, in the words of the stacks' reports.
 */
import pc from 'picocolors';
import { renderText, type TextOptions } from './text';
import { problemsPhrase, stackCount, stackProblem, stacksTotals, stacksTotalsPhrase, type StackReport } from './stacks-view';

export function renderStacksText(reports: readonly StackReport[], options: TextOptions): string {
  const colors = pc.createColors(options.color);
  const out: string[] = [];
  for (const report of reports) {
    out.push(colors.bold(`=== Stack ${report.stack} ===`), '');
    if (report.status === 'done') out.push(renderText(report.value, options));
    else out.push(`${colors.bold(colors.red(report.status === 'failed' ? 'Error:' : 'Skipped:'))} ${stackProblem(report)}`, '');
  }
  const totals = stacksTotals(reports);
  out.push(colors.bold(`Total over ${stackCount(reports.length)}: ${stacksTotalsPhrase(reports, totals)}${problemsPhrase(totals)}.`));
  return `${out.join('\n')}\n`;
}
