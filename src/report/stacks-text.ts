/**
 * The text report of a run over several stacks: a section per stack (the per-stack report as `renderText`
 * writes it, or why the stack has none), then one total line, in the words of the stacks' reports.
 */
import pc from 'picocolors';
import type { Plan } from '../engine/plan/plan';
import { renderText, type TextOptions } from './text';
import { problemsPhrase, stackCount, stackProblem, stacksTotals, stacksTotalsPhrase, type StackReport } from './stacks-view';

/**
 * `renderPlan` writes a planned stack's section: the plan as `plan` shows it, unless the command shows a stack
 * another way when it runs alone (destroy with nothing in state shows a line, not a plan: src/cli/change-preview.ts).
 */
export function renderStacksText(reports: readonly StackReport[], options: TextOptions, renderPlan: (plan: Plan, options: TextOptions) => string = renderText): string {
  const colors = pc.createColors(options.color);
  const out: string[] = [];
  for (const report of reports) {
    out.push(colors.bold(`=== Stack ${report.stack} ===`), '');
    if (report.status === 'done') out.push(renderPlan(report.value, options));
    else out.push(`${colors.bold(colors.red(report.status === 'failed' ? 'Error:' : 'Skipped:'))} ${stackProblem(report)}`, '');
  }
  const totals = stacksTotals(reports);
  out.push(colors.bold(`Total over ${stackCount(reports.length)}: ${stacksTotalsPhrase(reports, totals)}${problemsPhrase(totals)}.`));
  return `${out.join('\n')}\n`;
}
